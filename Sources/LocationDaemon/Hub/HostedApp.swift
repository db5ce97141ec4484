// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
@_spi(FrontEnd) import LocationEngine
@_spi(FrontEnd) import LocationWire
import Locking

/// One remote client's app as the daemon runs it: the same ``AppEngine`` as an app in its own
/// process, with its inputs arriving as requests over the socket instead of API calls, and what
/// it delivers leaving as wire values. Privacy is applied by the engine's one pipeline before
/// anything reaches a ``HostedFeed``, so a client that may only have reduced locations is never
/// handed a precise one.
final class HostedApp: Sendable {
    let engine: AppEngine

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

    init(_ configuration: AppEngine.Configuration) {
        engine = AppEngine(configuration)
        _ = engine.observeAuthorization { [weak self] in self?.refreshMonitorSession() }
    }

    /// The app's monitor `name`, opened (and its stored conditions evaluated) the first time.
    func monitor(named name: String) -> HostedMonitor {
        let (monitor, opened) = monitors.withLock { monitors in
            if let monitor = monitors[name] { return (monitor, false) }
            let monitor = HostedMonitor(name: name, core: engine.monitor(named: name)) { [weak self] in
                self?.refreshMonitorSession()
            }
            monitors[name] = monitor
            return (monitor, true)
        }
        refreshMonitorSession()
        if opened { monitor.evaluateStoredConditions() }
        return monitor
    }

    /// Whether the monitor `name` is open.
    func hasMonitor(named name: String) -> Bool { monitors.withLock { $0[name] != nil } }

    /// The app's receiver has no pace of its own (a log replayed at maximum speed): it waits for
    /// the app's clients, whose feeds are read only as fast as each takes its lines.
    var readerSetsPace: Bool { engine.configuration.service?.source.isRealTime == false }

    /// How many monitors are open.
    var monitorCount: Int { monitors.withLock { $0.count } }

    /// Monitors stored, and their bytes.
    var storedMonitors: (monitors: Int, bytes: Int) { engine.monitorCensus.stored }

    /// Whether any of the app's open monitors has a condition.
    var hasMonitorConditions: Bool {
        monitors.withLock { $0.values.contains { !$0.isEmpty } }
    }

    /// Opens or closes the monitors' `.always` session as the authorization and the conditions
    /// now want; never two at once, whoever calls.
    func refreshMonitorSession() {
        while true {
            let wanted = hasMonitorConditions && engine.authorizationStatus == .authorizedAlways
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
                id = engine.addSession(SessionRequirement(level: .always, purposeKey: nil, explicit: false))
            } else if let close = step.close {
                engine.removeSession(close)
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
    static func storedMonitors(storeDirectory: String) -> [(app: String, names: [String])] {
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

    var client: String { engine.client }

    /// A service session (`CLServiceSession`); returns the core's number for it.
    /// `asksForAlways: false` for the session of a program the daemon serves on its user's
    /// decision alone (``SessionRequirement/asksForAlways``).
    func openSession(_ level: WireLevel, purposeKey: String?, asksForAlways: Bool = true) -> Int {
        engine.addSession(
            SessionRequirement(
                level: level.sessionLevel, purposeKey: purposeKey, explicit: true,
                asksForAlways: asksForAlways))
    }

    func openBackgroundSession() -> Int {
        engine.addBackgroundActivitySession()
    }

    func closeSession(_ id: Int) {
        engine.removeSession(id)
    }

    /// The lines of the app's updates on gpslocd's protocol: each update written once for all
    /// its subscriptions (``updates(configuration:monitoring:reduced:continuous:implicitSession:)``).
    let updateLines = WireUpdateLines()

    /// `liveUpdates` with an activity's raw value (an unknown one is `.default`), or a monitor's
    /// feed; written with ``updateLines``.
    func updates(
        configuration: Int, monitoring: Bool, reduced: Bool = false, continuous: Bool = false,
        implicitSession: Bool = true
    ) -> HostedUpdates {
        HostedUpdates(
            engine.subscribeUpdates(
                profile: ActivityProfile(rawValue: configuration) ?? .default,
                monitoring: monitoring,
                wantsReduced: reduced, continuous: continuous, implicitSession: implicitSession))
    }

    /// Every update as the engine gives it (never pausing while the device stands still), for a
    /// front-end that writes its own reports (gpsd's protocol, GeoClue2); `reduced` asks for the
    /// app's reduced locations even where precise ones are allowed; `preciseAsStatus` precise
    /// locations as their status alone, for a front-end that has them from ``preciseFixes()``.
    func engineUpdates(reduced: Bool = false, preciseAsStatus: Bool = false) -> HostedFeed<LocationUpdate> {
        HostedUpdates(
            engine.subscribeUpdates(
                profile: .default, wantsReduced: reduced, continuous: true, preciseAsStatus: preciseAsStatus)
        ).feed
    }

    /// The receiver's fixes whole, while the app may have precise locations; beside
    /// ``engineUpdates()``.
    func preciseFixes() -> HostedFeed<Fix> {
        let lease = MailboxLease(engine.subscribePreciseFixes())
        return HostedFeed(poll: { lease.poll(waking: $0) }, cancel: { lease.mailbox.close() })
    }

    /// A session's diagnostics, as flag names; an ended feed when the session is gone.
    func diagnostics(session: Int) -> HostedFeed<[String]> {
        let lease = MailboxLease(engine.subscribeDiagnostics(session: session))
        return HostedFeed(
            poll: { lease.poll(waking: $0).map(\.setNames) }, cancel: { lease.mailbox.close() })
    }

    func requestAuthorization(_ level: WireLevel) {
        engine.requestAuthorization(level == .always ? .always : .whenInUse)
    }

    /// Asks for temporary full accuracy; `completion` gets `nil` when granted, else the error in
    /// its wire form.
    func requestTemporaryFullAccuracy(
        purposeKey: String, completion: @escaping @Sendable (String?) -> Void
    ) {
        engine.requestTemporaryFullAccuracy(purposeKey: purposeKey) { refusal in
            completion(refusal?.wireText)
        }
    }

    var authorization: WireAuthorization {
        WireAuthorization(
            status: "\(engine.authorizationStatus)", accuracy: "\(engine.accuracyAuthorization)",
            servicesEnabled: engine.servicesEnabled)
    }

    /// Calls `observer` after every change of the status or the accuracy.
    func observeAuthorization(_ observer: @escaping @Sendable () -> Void) -> Int {
        engine.observeAuthorization(observer)
    }

    func removeAuthorizationObserver(_ id: Int) {
        engine.removeAuthorizationObserver(id)
    }

    /// The daemon changed the decisions this app is under.
    func reloadStore() {
        engine.reloadStore()
    }
}

/// An app's updates: their feed, and their mailbox for a reader that polls it itself (a daemon's
/// event loop writing their lines). The mailbox is held beside the lease that holds it too, so
/// that such a reader reaches it without going through the lease: one place in memory fewer for
/// every client at every update (`BENCHMARKS.md`, round 2, fourteenth part).
struct HostedUpdates: Sendable {
    let feed: HostedFeed<LocationUpdate>
    let mailbox: Mailbox<LocationUpdate>
    /// Its release ends the subscription.
    let lease: MailboxLease<LocationUpdate>

    /// `mailbox`'s updates, polled through its lease (specialized for updates).
    init(_ mailbox: Mailbox<LocationUpdate>) {
        let lease = MailboxLease(mailbox)
        self.mailbox = mailbox
        self.lease = lease
        feed = HostedFeed(poll: { lease.poll(waking: $0) }, cancel: { lease.mailbox.close() })
    }
}

/// What one subscription of a hosted app delivers, already through its privacy pipeline, as
/// wire values; ``cancel()`` or release ends the subscription. Polled on an event loop
/// (``poll(waking:)``, ``ConnectionOutput/deliver(_:_:end:)``) or awaited (``next()``), not both.
final class HostedFeed<Element: Sendable>: Sendable {
    /// ``poll(waking:)`` itself, for a reader that holds it rather than the feed.
    let polling: @Sendable (_ wake: @escaping @Sendable () -> Void) -> MailboxPoll<Element>
    private let stop: @Sendable () -> Void

    /// A feed whose elements `poll` takes from the engine (through its lease, whose release ends
    /// the subscription) and converts; `cancel` ends it.
    init(
        poll: @escaping @Sendable (_ wake: @escaping @Sendable () -> Void) -> MailboxPoll<Element>,
        cancel: @escaping @Sendable () -> Void
    ) {
        polling = poll
        stop = cancel
    }

    /// The next element if one waits; else `wake` is called when one does, or the end comes.
    func poll(waking wake: @escaping @Sendable () -> Void) -> MailboxPoll<Element> { polling(wake) }

    /// The next element, or `nil` when the subscription is over (or was cancelled): the poll,
    /// awaited.
    func next() async -> Element? {
        while true {
            let polled = await withCheckedContinuation {
                (continuation: CheckedContinuation<MailboxPoll<Element>, Never>) in
                // Resumed once: with what the poll found, or by the call it keeps when it found nothing.
                let found = polling { continuation.resume(returning: .empty) }
                if case .empty = found { return }
                continuation.resume(returning: found)
            }
            switch polled {
            case .element(let element): return element
            case .end: return nil
            case .empty: continue
            }
        }
    }

    func cancel() { stop() }
}
