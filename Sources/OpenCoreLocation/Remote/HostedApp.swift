// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import Locking

/// One remote client's app as the daemon runs it: the same ``LocationContext`` shell and core as
/// an app in its own process, with its inputs arriving as requests over the socket instead of
/// API calls, and what it delivers leaving as wire values. Privacy is applied by the core's one
/// pipeline before anything reaches a ``HostedFeed``, so a client that may only have reduced
/// locations is never handed a precise one.
package final class HostedApp: Sendable {
    package let context: LocationContext

    /// The app's monitors the daemon opened, held for as long as the app is hosted.
    private let monitors = Mutex<[String: HostedMonitor]>([:])

    private struct MonitorSession {
        var id: Int?
        var changing = false
        var again = false
    }

    /// An `.always` session held while the app is authorized Always and has a monitored
    /// condition: Always takes effect only under such a session, and the app's monitors are
    /// evaluated while it does not run.
    private let monitorSession = Mutex(MonitorSession())

    package init(_ configuration: LocationContext.Configuration) {
        context = LocationContext(configuration)
        _ = context.observeAuthorization { [weak self] in self?.refreshMonitorSession() }
    }

    /// The app's monitor `name`, opened (and its stored conditions evaluated) the first time.
    package func monitor(named name: String) -> HostedMonitor {
        let (monitor, opened) = monitors.withLock { monitors in
            if let monitor = monitors[name] { return (monitor, false) }
            let monitor = HostedMonitor(name: name, core: context.localMonitor(named: name)) { [weak self] in
                self?.refreshMonitorSession()
            }
            monitors[name] = monitor
            return (monitor, true)
        }
        refreshMonitorSession()
        if opened { monitor.evaluateStoredConditions() }
        return monitor
    }

    /// Whether any of the app's open monitors has a condition.
    package var hasMonitorConditions: Bool {
        monitors.withLock { $0.values.contains { !$0.isEmpty } }
    }

    /// Opens or closes the monitors' `.always` session as the authorization and the conditions
    /// now want; never two at once, whoever calls.
    package func refreshMonitorSession() {
        while true {
            let wanted = hasMonitorConditions && context.authorizationStatus == .authorizedAlways
            let step = monitorSession.withLock { session -> (open: Bool, close: Int?)? in
                if session.changing {
                    session.again = true
                    return nil
                }
                guard wanted != (session.id != nil) else { return nil }
                session.changing = true
                return (wanted, session.id)
            }
            guard let step else { return }
            var id: Int?
            if step.open {
                id = context.addSession(SessionRequirement(level: .always, purposeKey: nil, explicit: false))
            } else if let close = step.close {
                context.removeSession(close)
            }
            let again = monitorSession.withLock { session in
                session.id = id
                session.changing = false
                defer { session.again = false }
                return session.again
            }
            if !again { return }
        }
    }

    /// The monitors stored under an authorization store's directory: each app's names.
    package static func storedMonitors(storeDirectory: String) -> [(app: String, names: [String])] {
        let root = storeDirectory + "/monitors"
        let manager = FileManager.default
        var found: [(app: String, names: [String])] = []
        for directory in ((try? manager.contentsOfDirectory(atPath: root)) ?? []).sorted() {
            guard let app = MonitorCore.name(fromFileName: directory) else { continue }
            let files = (try? manager.contentsOfDirectory(atPath: root + "/" + directory)) ?? []
            let names = files.filter { $0.hasSuffix(".monitor") }.sorted().compactMap {
                MonitorCore.name(fromFileName: String($0.dropLast(".monitor".count)))
            }
            if !names.isEmpty { found.append((app, names)) }
        }
        return found
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

    /// `liveUpdates` with an `Activity` raw value (an unknown one is `.default`), or a monitor's
    /// feed.
    package func updates(
        configuration: Int, monitoring: Bool, reduced: Bool = false, continuous: Bool = false,
        implicitSession: Bool = true
    )
        -> HostedFeed<
            WireUpdate
        >
    {
        let mailbox = context.subscribeUpdates(
            configuration: CLLocationUpdate.Activity(rawValue: configuration) ?? .default,
            monitoring: monitoring,
            wantsReduced: reduced, continuous: continuous, implicitSession: implicitSession)
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
