import LocationWire
import Synchronization

/// One remote client's app as the daemon runs it: the same ``LocationContext`` shell and core as
/// an app in its own process, with its inputs arriving as requests over the socket instead of
/// API calls, and what it delivers leaving as wire values. Privacy is applied by the core's one
/// pipeline before anything reaches a ``HostedFeed``, so a client that may only have reduced
/// locations is never handed a precise one.
package final class HostedApp: Sendable {
    package let context: LocationContext

    package init(_ configuration: LocationContext.Configuration) {
        context = LocationContext(configuration)
    }

    package var client: String { context.client }

    /// A `CLServiceSession`; returns the core's number for it.
    package func openSession(_ level: WireLevel, purposeKey: String?) -> Int {
        let level = SessionLevel(rawValue: CLServiceSession.AuthorizationRequirement(level).rawValue)!
        return context.addSession(SessionRequirement(level: level, purposeKey: purposeKey, explicit: true))
    }

    package func openBackgroundSession() -> Int {
        context.addBackgroundActivitySession()
    }

    package func closeSession(_ id: Int) {
        context.removeSession(id)
    }

    /// `liveUpdates` with a `LiveConfiguration` raw value, or a monitor's feed.
    package func updates(configuration: Int, monitoring: Bool) -> HostedFeed<WireUpdate> {
        let mailbox = context.subscribeUpdates(
            configuration: CLLocationUpdate.LiveConfiguration(rawValue: configuration), monitoring: monitoring
        )
        return HostedFeed(MailboxLease(mailbox)) { $0.wire }
    }

    /// A session's diagnostics, as flag names; an ended feed when the session is gone.
    package func diagnostics(session: Int) -> HostedFeed<[String]> {
        HostedFeed(MailboxLease(context.subscribeDiagnostics(session: session))) { $0.wireNames }
    }

    package func requestAuthorization(_ level: WireLevel) {
        context.requestAuthorization(level == .always ? .always : .whenInUse)
    }

    /// Asks for temporary full accuracy; `completion` gets `nil` when granted, else the error in
    /// its wire form.
    package func requestTemporaryFullAccuracy(
        purposeKey: String, completion: @escaping @Sendable (String?) -> Void
    ) {
        context.requestTemporaryFullAccuracy(purposeKey: purposeKey) { error in
            completion(error.map { ($0 as? CLError)?.wireText ?? "\(CLError.Code.denied.rawValue):\($0)" })
        }
    }

    package var authorization: WireAuthorization {
        WireAuthorization(
            status: "\(context.authorizationStatus)", accuracy: "\(context.accuracyAuthorization)",
            servicesEnabled: context.servicesEnabled)
    }

    /// Calls `observer` after every change of the status or the accuracy.
    package func observeAuthorization(_ observer: @escaping @Sendable () -> Void) -> Int {
        context.observeAuthorization(observer)
    }

    package func removeAuthorizationObserver(_ id: Int) {
        context.removeAuthorizationObserver(id)
    }

    /// The daemon changed the decisions this app is under.
    package func reloadStore() {
        context.reloadStore()
    }
}

extension WireLevel {
    init(_ level: SessionLevel) {
        switch level {
        case .none: self = .none
        case .whenInUse: self = .whenInUse
        case .always: self = .always
        }
    }
}

extension CLServiceSession.AuthorizationRequirement {
    init(_ level: WireLevel) {
        switch level {
        case .none: self = .none
        case .whenInUse: self = .whenInUse
        case .always: self = .always
        }
    }
}

/// What one subscription of a hosted app delivers, already through its privacy pipeline, as
/// wire values; ``cancel()`` or release ends the subscription.
package final class HostedFeed<Element: Sendable>: Sendable {
    private let pull: @Sendable () async -> Element?
    private let stop: @Sendable () -> Void

    init<Delivered: Deliverable>(
        _ lease: MailboxLease<Delivered>, convert: @escaping @Sendable (Delivered) -> Element
    ) {
        pull = { await lease.mailbox.next().map(convert) }
        stop = { lease.mailbox.close() }
    }

    /// The next element, or `nil` when the subscription is over.
    package func next() async -> Element? { await pull() }

    package func cancel() { stop() }
}
