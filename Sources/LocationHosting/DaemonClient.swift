// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
@_spi(FrontEnd) import LocationEngine
import LocationWire
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The library's side of gpslocd: what an app's ``LocationContext`` does instead of running the
/// core itself when the daemon runs. Sessions and subscriptions become requests; the daemon's
/// events fill the same mailboxes the in-process core fills.
///
/// When the daemon goes away, every update subscription gets `locationUnavailable` at once;
/// the client reconnects with backoff and opens its sessions and subscriptions again, and
/// updates carry on.
final class DaemonClient: Sendable {
    private struct SessionRecord {
        var level: WireLevel
        var purposeKey: String?
        var background: Bool
    }

    private struct UpdateRecord {
        var mailbox: Mailbox<LocationUpdate>
        var configuration: Int
        var monitoring: Bool
        var reduced = false
        var continuous = false
        var implicitSession = true
        var flags = AuthorizationFlags()
    }

    private struct State {
        var connection: DaemonConnection?
        var identity: WireIdentity?
        var authorization = WireAuthorization(
            status: "notDetermined", accuracy: "fullAccuracy", servicesEnabled: true)
        var sessions: [Int: SessionRecord] = [:]
        var updates: [Int: UpdateRecord] = [:]
        var diagnostics: [Int: (mailbox: Mailbox<AuthorizationFlags>, session: Int)] = [:]
        var accuracyRequests: [Int: @Sendable (AccuracyRequestRefusal?) -> Void] = [:]
        var monitors: [Int: (mailbox: Mailbox<MonitorEvent>, name: String)] = [:]
        /// Requests waiting for their reply, by id.
        var replies: [Int: CheckedContinuation<WireEvent?, Never>] = [:]
        var nextNumber = 0
        var stopped = false
    }

    let path: String
    /// Why the first attempt could not connect to gpslocd's socket, when it could not (nobody
    /// listens there, or this user may not connect): said in the log at once unless its owner
    /// says it, and tried again in the background. A daemon slow to answer is not this.
    let firstFailure: String?
    private let log: @Sendable (String) -> Void
    private let state = Mutex(State())
    private let loop: PollLoop
    /// Called after the status or the accuracy changed.
    private let authorizationChanged = Mutex<@Sendable () -> Void>({})

    /// Connects and says hello, waiting up to two seconds for the answer; the connection is
    /// kept (and retried in the background) even when the first attempt fails, which is logged
    /// unless `quietly` (its owner says it itself: ``firstFailure``).
    init(path: String, quietly: Bool = false, log: @escaping @Sendable (String) -> Void) throws(Errno) {
        self.path = path
        self.log = log
        loop = try PollLoop()
        var failure: String?
        do {
            let connection = try DaemonConnection.open(path: path)
            var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
            if connection.send(WireRequest.hello(version: WireProtocol.version, receiver: nil).encoded()),
                let line = try? connection.readLine(timeout: 2000, splitter: &splitter),
                case .hello(_, let identity, let authorization)? = try? WireEvent.parse(line)
            {
                state.withLock {
                    $0.connection = connection
                    $0.identity = identity
                    $0.authorization = authorization
                }
            } else {
                // Slow, not absent: said whoever owns the client, and waited for.
                connection.close()
                log(
                    "gpslocd at \(path) did not answer its hello within 2 seconds; retrying in the background"
                )
            }
        } catch {
            failure = error.description
        }
        firstFailure = failure
        if let failure, !quietly { log("\(failure); retrying in the background until it answers") }
        // The reader holds the client until ``stop()``: a context in client mode lives as long
        // as its program, or its owner stops it.
        let loop = loop
        Task.detached { [self] in
            await onThread(named: "gpslocd client", stop: { loop.stop() }) { self.run() }
        }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        loop.stop()
    }

    func onAuthorizationChange(_ body: @escaping @Sendable () -> Void) {
        authorizationChanged.withLock { $0 = body }
    }

    var identity: WireIdentity? { state.withLock { $0.identity } }
    var isConnected: Bool { state.withLock { $0.connection != nil } }
    var authorization: WireAuthorization { state.withLock { $0.authorization } }

    // MARK: Requests

    func send(_ request: WireRequest) {
        let connection = state.withLock { $0.connection }
        _ = connection?.send(request.encoded())
    }

    /// Sends `request` and waits for its reply; `nil` when the daemon cannot be reached or goes
    /// away first.
    func call(_ request: WireRequest) async -> WireEvent? {
        let id = number()
        return await withCheckedContinuation { continuation in
            let connection = state.withLock { state -> DaemonConnection? in
                guard let connection = state.connection else { return nil }
                state.replies[id] = continuation
                return connection
            }
            guard let connection else { return continuation.resume(returning: nil) }
            if !connection.send(request.encoded(id: id)) {
                state.withLock { $0.replies.removeValue(forKey: id) }?.resume(returning: nil)
            }
        }
    }

    private func number() -> Int {
        state.withLock { state in
            state.nextNumber += 1
            return state.nextNumber
        }
    }

    func openSession(level: WireLevel, purposeKey: String?, background: Bool) -> Int {
        let id = number()
        state.withLock {
            $0.sessions[id] = SessionRecord(level: level, purposeKey: purposeKey, background: background)
        }
        send(
            background
                ? .openBackgroundSession(session: id)
                : .openSession(session: id, level: level, purposeKey: purposeKey))
        return id
    }

    func closeSession(_ id: Int) {
        let diagnostics = state.withLock { state -> [Mailbox<AuthorizationFlags>] in
            state.sessions[id] = nil
            let ended = state.diagnostics.filter { $0.value.session == id }
            for key in ended.keys { state.diagnostics[key] = nil }
            return ended.map(\.value.mailbox)
        }
        for mailbox in diagnostics { mailbox.finish() }
        send(.closeSession(session: id))
    }

    func subscribeUpdates(
        configuration: Int, monitoring: Bool, reduced: Bool = false, continuous: Bool = false,
        implicitSession: Bool = true, capacity: Int
    )
        -> Mailbox<LocationUpdate>
    {
        let id = number()
        let mailbox: Mailbox<LocationUpdate> = unsubscribing(id, capacity: capacity) {
            $0.updates.removeValue(forKey: id) != nil
        }
        state.withLock {
            $0.updates[id] = UpdateRecord(
                mailbox: mailbox, configuration: configuration, monitoring: monitoring, reduced: reduced,
                continuous: continuous, implicitSession: implicitSession)
        }
        send(
            .subscribeUpdates(
                subscription: id, configuration: configuration, monitoring: monitoring, reduced: reduced,
                continuous: continuous, implicitSession: implicitSession))
        return mailbox
    }

    func subscribeDiagnostics(session: Int) -> Mailbox<AuthorizationFlags> {
        let id = number()
        let mailbox: Mailbox<AuthorizationFlags> = unsubscribing(id, capacity: 1) {
            $0.diagnostics.removeValue(forKey: id) != nil
        }
        let open = state.withLock { state -> Bool in
            guard state.sessions[session] != nil else { return false }
            state.diagnostics[id] = (mailbox, session)
            return true
        }
        if open { send(.subscribeDiagnostics(subscription: id, session: session)) } else { mailbox.finish() }
        return mailbox
    }

    /// The events of the app's monitor `name`, as the daemon evaluates it.
    func subscribeMonitor(name: String) -> Mailbox<MonitorEvent> {
        let id = number()
        let mailbox: Mailbox<MonitorEvent> = unsubscribing(id, capacity: 1) {
            $0.monitors.removeValue(forKey: id) != nil
        }
        state.withLock { $0.monitors[id] = (mailbox, name) }
        send(.subscribeMonitor(subscription: id, monitor: name))
        return mailbox
    }

    /// A mailbox for subscription `id`: when its reader lets it go, `forget` drops the
    /// subscription from the state and, if it was still there, the daemon is told.
    private func unsubscribing<Element: Deliverable>(
        _ id: Int, capacity: Int, forget: @escaping @Sendable (inout State) -> Bool
    ) -> Mailbox<Element> {
        Mailbox<Element>(capacity: capacity) { [weak self] in
            guard let self else { return }
            if self.state.withLock({ forget(&$0) }) { self.send(.unsubscribe(subscription: id)) }
        }
    }

    func requestAuthorization(_ level: WireLevel) {
        send(.requestAuthorization(level))
    }

    func requestTemporaryFullAccuracy(
        purposeKey: String, completion: @escaping @Sendable (AccuracyRequestRefusal?) -> Void
    ) {
        let id = number()
        let connected = state.withLock { state -> Bool in
            guard state.connection != nil else { return false }
            state.accuracyRequests[id] = completion
            return true
        }
        guard connected else {
            completion(AccuracyRequestRefusal(.denied, "gpslocd cannot be reached at \(path)"))
            return
        }
        send(.requestTemporaryFullAccuracy(request: id, purposeKey: purposeKey))
    }

    func setInUse(_ inUse: Bool) {
        send(.activity(inUse: inUse))
    }

    // MARK: Events

    /// The reader: reads and dispatches events; when the daemon goes away, reports it and
    /// reconnects with backoff.
    private func run() {
        var backoff: UInt32 = 100_000
        while !loop.isStopped {
            guard let connection = state.withLock({ $0.connection }) else {
                usleep(backoff)
                backoff = min(backoff * 2, 2_000_000)
                reconnect()
                continue
            }
            backoff = 100_000
            read(connection)
            state.withLock { $0.connection = nil }
            connection.close()
            guard !loop.isStopped else { return }
            lost()
        }
    }

    private func read(_ connection: DaemonConnection) {
        var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let result = try? buffer.withUnsafeMutableBytes { try loop.read(connection.descriptor, into: $0) }
            guard case .bytes(let count)? = result, let lines = try? splitter.append(buffer[..<count]) else {
                return
            }
            for line in lines {
                do { dispatch(try WireEvent.parse(line)) } catch {
                    log("gpslocd sent a line this library does not understand: \(error)")
                }
            }
        }
    }

    private func dispatch(_ event: WireEvent) {
        switch event {
        case .update(let id, let wire):
            let update = LocationUpdate(wire: wire)
            let mailbox = state.withLock { state -> Mailbox<LocationUpdate>? in
                state.updates[id]?.flags = update.flags
                return state.updates[id]?.mailbox
            }
            mailbox?.post(update)
        case .diagnostic(let id, let flags):
            _ = state.withLock { $0.diagnostics[id]?.mailbox }?.post(AuthorizationFlags(named: flags))
        case .why(_, let text):
            // The daemon says it once per reason: the program's log carries it, beside the
            // flags its updates already have.
            log("no location from gpslocd: \(text)")
        case .monitorEvent(let id, let wire):
            _ = state.withLock { $0.monitors[id]?.mailbox }?.post(MonitorEvent(wire: wire))
        case .finish(let id):
            let (updates, diagnostics, monitor) = state.withLock { state in
                (
                    state.updates.removeValue(forKey: id)?.mailbox,
                    state.diagnostics.removeValue(forKey: id)?.mailbox,
                    state.monitors.removeValue(forKey: id)?.mailbox
                )
            }
            updates?.finish()
            diagnostics?.finish()
            monitor?.finish()
        case .authorization(let authorization):
            state.withLock { $0.authorization = authorization }
            authorizationChanged.withLock { $0 }()
        case .accuracyAnswer(let id, let error):
            let completion = state.withLock { $0.accuracyRequests.removeValue(forKey: id) }
            completion?(error.map(AccuracyRequestRefusal.init(wireText:)))
        case .ok(let id?, _), .records(let id?, _), .decisions(let id?, _):
            state.withLock { $0.replies.removeValue(forKey: id) }?.resume(returning: event)
        case .error(let id, let message):
            if let id, let waiting = state.withLock({ $0.replies.removeValue(forKey: id) }) {
                waiting.resume(returning: event)
            } else {
                log("gpslocd: \(message)")
            }
        case .hello, .ok, .records, .decisions, .prompt, .withdraw, .access:
            break
        }
    }

    /// The daemon went away: every subscription hears `locationUnavailable` now.
    private func lost() {
        log("gpslocd at \(path) went away; reconnecting")
        let (updates, requests, replies) = state.withLock { state in
            defer {
                state.accuracyRequests = [:]
                state.replies = [:]
            }
            return (
                state.updates.values.map { ($0.mailbox, $0.flags) }, Array(state.accuracyRequests.values),
                Array(state.replies.values)
            )
        }
        for (mailbox, flags) in updates {
            mailbox.post(LocationUpdate(location: nil, flags: flags, unavailable: true))
        }
        for completion in requests { completion(AccuracyRequestRefusal(.denied, "gpslocd went away")) }
        for reply in replies { reply.resume(returning: nil) }
    }

    /// Connects again, says hello, and opens every session and subscription there was.
    private func reconnect() {
        guard let connection = try? DaemonConnection.open(path: path) else { return }
        var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        guard connection.send(WireRequest.hello(version: WireProtocol.version, receiver: nil).encoded()),
            let line = try? connection.readLine(timeout: 2000, splitter: &splitter),
            case .hello(_, let identity, let authorization)? = try? WireEvent.parse(line)
        else {
            connection.close()
            return
        }
        let (requests, changed) = state.withLock { state -> ([WireRequest], Bool) in
            let changed = state.authorization != authorization
            state.connection = connection
            state.identity = identity
            state.authorization = authorization
            var requests: [WireRequest] = []
            for (id, session) in state.sessions.sorted(by: { $0.key < $1.key }) {
                requests.append(
                    session.background
                        ? .openBackgroundSession(session: id)
                        : .openSession(session: id, level: session.level, purposeKey: session.purposeKey))
            }
            for (id, record) in state.updates.sorted(by: { $0.key < $1.key }) {
                requests.append(
                    .subscribeUpdates(
                        subscription: id, configuration: record.configuration, monitoring: record.monitoring,
                        reduced: record.reduced, continuous: record.continuous,
                        implicitSession: record.implicitSession))
            }
            for (id, record) in state.diagnostics.sorted(by: { $0.key < $1.key }) {
                requests.append(.subscribeDiagnostics(subscription: id, session: record.session))
            }
            for (id, record) in state.monitors.sorted(by: { $0.key < $1.key }) {
                requests.append(.subscribeMonitor(subscription: id, monitor: record.name))
            }
            return (requests, changed)
        }
        for request in requests { _ = connection.send(request.encoded()) }
        log("reconnected to gpslocd at \(path)")
        if changed { authorizationChanged.withLock { $0 }() }
    }
}
