// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import LocationEngine
@_spi(FrontEnd) import LocationWire
import Locking

/// One connection after its hello: its requests turned into the inputs of the app's core, and
/// what the core delivers turned into lines. Numbers the client chose for its sessions and
/// subscriptions are checked here; a request that names one wrongly gets an error reply and
/// changes nothing.
final class NativeSession: Sendable {
    let identity: PeerIdentity
    let client: HostedClient
    /// This connection's number among the app's connections.
    let connection: Int
    private let hub: Daemon
    private let output: ConnectionOutput

    private struct Feed {
        /// Ends the feed; `true` when the connection ended (a monitor's unacknowledged events
        /// then wait for the app's next loop), `false` when the client unsubscribed.
        var cancel: @Sendable (_ connectionEnded: Bool) -> Void
        /// A monitor's events, which the client acknowledges.
        var monitor: HostedMonitorFeed?
    }

    private struct State {
        /// The client's session numbers → the core's, with what each was opened as.
        var sessions: [Int: HostedClient.Session] = [:]
        var feeds: [Int: Feed] = [:]
        var authorizationObserver: Int?
        var agent: Int?
        /// The connection's watch of who uses location (`activity.watch`).
        var activityWatcher: Int?
        var closed = false
    }

    private let state = Mutex(State())

    /// How many sessions, and how many subscriptions, one connection may hold: far more than an
    /// app needs, few enough that a flood cannot grow the hub.
    static let limit = 256

    init(
        identity: PeerIdentity, client: HostedClient, connection: Int, hub: Daemon,
        output: ConnectionOutput
    ) {
        self.identity = identity
        self.client = client
        self.connection = connection
        self.hub = hub
        self.output = output
        let app = client.app
        let observer = client.app.observeAuthorization {
            output.send(WireEvent.authorization(app.authorization).encoded())
        }
        state.withLock { $0.authorizationObserver = observer }
    }

    /// Handles one request; what it returns is the reply, sent before anything the request
    /// starts (a subscription's first update comes after its `ok`).
    func handle(_ request: WireRequest, id: Int?) {
        do {
            try perform(request, id: id)
        } catch {
            send(WireEvent.error(id: id, message: error.description).encoded())
        }
    }

    private func send(_ line: [UInt8]) { output.send(line) }

    private func ok(_ id: Int?) { send(WireEvent.ok(id: id).encoded()) }

    private func perform(_ request: WireRequest, id: Int?) throws(WireError) {
        let app = client.app
        switch request {
        case .openSession, .openBackgroundSession, .subscribeUpdates, .subscribeDiagnostics,
            .requestAuthorization,
            .requestTemporaryFullAccuracy, .activity, .addCondition, .removeCondition, .monitorRecords,
            .subscribeMonitor, .consumedEvent:
            client.activate(connection)
            hub.refreshActivity(of: client)
        default:
            break
        }
        switch request {
        case .hello:
            throw WireError("hello was sent already; it is the first request of a connection only")
        case .openSession(let number, let level, let purposeKey):
            try claimSession(number) {
                self.client.takeSession(level: level, purposeKey: purposeKey, background: false)
            }
            ok(id)
        case .openBackgroundSession(let number):
            try claimSession(number) {
                self.client.takeSession(level: .none, purposeKey: nil, background: true)
            }
            ok(id)
        case .closeSession(let number):
            let session = state.withLock { $0.sessions.removeValue(forKey: number) }
            guard let session else { throw WireError("no session \(number) is open on this connection") }
            app.closeSession(session.id)
            ok(id)
        case .subscribeUpdates(
            let number, let configuration, let monitoring, let reduced, let continuous, let implicitSession):
            try reserveFeed(number)
            ok(id)
            let (lines, output, paced) = (app.updateLines, output, app.readerSetsPace)
            let updates = app.updates(
                configuration: configuration, monitoring: monitoring, reduced: reduced,
                continuous: continuous, implicitSession: implicitSession)
            let reasons = RefusalReasons(
                subscription: number,
                explain: { [identity, app] update in
                    RefusalWords.refusal(
                        update.flags, identity: identity,
                        undecided: app.engine.authorizationStatus == .notDetermined)
                },
                noted: { [identity, hub] in hub.refused(identity, via: .native, $0) })
            // Ended with the feed; a feed let go without its end (the connection gone) ends it
            // as it goes.
            let period = hub.usePeriod(identity, via: .native)
            start(number, updates.feed) { end in
                output.deliverUpdateLines(
                    updates, lines, subscription: number, reasons: reasons, period: period,
                    readerSetsPace: paced,
                    end: {
                        period.end()
                        end()
                    })
            }
        case .subscribeDiagnostics(let number, let sessionNumber):
            guard let session = state.withLock({ $0.sessions[sessionNumber] }) else {
                throw WireError("no session \(sessionNumber) is open on this connection; open it first")
            }
            try reserveFeed(number)
            ok(id)
            start(number, app.diagnostics(session: session.id)) { flags, line in
                WireEvent.diagnostic(subscription: number, flags: flags).append(to: &line)
            }
        case .unsubscribe(let number):
            let feed = state.withLock { $0.feeds.removeValue(forKey: number) }
            guard let feed else { throw WireError("no subscription \(number) is open on this connection") }
            feed.cancel(false)
            ok(id)
        case .addCondition(let name, let identifier, let condition, let assuming):
            let monitor = try hub.monitor(named: name, for: identity)
            try hub.checkMonitorBytes(for: identity)
            try monitor.add(condition, identifier: identifier, assuming: assuming)
            ok(id)
        case .removeCondition(let name, let identifier):
            try hub.monitor(named: name, for: identity).remove(identifier)
            ok(id)
        case .monitorRecords(let name):
            send(WireEvent.records(id: id, try hub.monitor(named: name, for: identity).records).encoded())
        case .subscribeMonitor(let number, let name):
            let monitor = try hub.monitor(named: name, for: identity)
            try reserveFeed(number)
            ok(id)
            startMonitor(number, monitor.subscribe())
        case .consumedEvent(let sequence):
            let feeds = state.withLock { $0.feeds.values.compactMap(\.monitor) }
            guard feeds.contains(where: { $0.consumed(sequence: sequence) }) else {
                throw WireError(
                    "no monitor event \(sequence) was sent on this connection, or it was acknowledged")
            }
            ok(id)
        case .requestAuthorization(let level):
            ok(id)
            app.requestAuthorization(level)
        case .requestTemporaryFullAccuracy(let number, let purposeKey):
            ok(id)
            let output = output
            app.requestTemporaryFullAccuracy(purposeKey: purposeKey) { error in
                output.send(WireEvent.accuracyAnswer(request: number, error: error).encoded())
            }
        case .activity(let inUse):
            client.claimBackground(!inUse, connection: connection)
            hub.refreshActivity(of: client)
            ok(id)
        case .showAuthorization(let uid):
            try hub.requireUnsandboxed(identity, to: "read its user's decisions")
            let target = try hub.authorize(identity, toSee: uid)
            send(WireEvent.decisions(id: id, try hub.decisions(uid: target)).encoded())
        case .showActivity(let uid, let all, let since, let app):
            let view = try hub.activityView(identity, uid: uid, all: all)
            let output = output
            // Read on the history's thread; the lines reach the socket through the loop, in order.
            try hub.history(view: view, since: since, app: app) { read in
                for entry in read.entries { output.send(WireEvent.access(id: id, entry).encoded()) }
                let damaged =
                    read.damaged == 0
                    ? nil
                    : "the history has \(counted(read.damaged, "damaged line", "damaged lines")) (a write cut off "
                        + "by a crash or a power cut), skipped"
                output.send(WireEvent.ok(id: id, note: damaged).encoded())
            }
        case .watchActivity(let all):
            let view = try hub.activityView(identity, uid: nil, all: all)
            guard state.withLock({ $0.activityWatcher == nil }) else {
                throw WireError("this connection watches already; one watch per connection")
            }
            ok(id)
            let output = output
            let watcher = hub.activity.watch(uid: view) {
                output.send(WireEvent.access(id: nil, $0).encoded())
            }
            let closed = state.withLock { state -> Bool in
                state.activityWatcher = watcher
                return state.closed
            }
            if closed { hub.activity.unwatch(watcher) }
        case .changeAuthorization(let uid, let change):
            try hub.requireUnsandboxed(identity, to: "change decisions")
            let note = try hub.change(change, uid: uid, by: identity)
            send(WireEvent.ok(id: id, note: note).encoded())
        case .registerAgent:
            try hub.requireUnsandboxed(identity, to: "register as its user's agent")
            let registered = state.withLock { $0.agent != nil }
            guard !registered else { throw WireError("this connection is an agent already") }
            ok(id)
            let agent = hub.router.register(uid: identity.uid, send: output.send)
            state.withLock { $0.agent = agent }
        case .answerPrompt(let prompt, let answer):
            try hub.requireUnsandboxed(identity, to: "answer prompts")
            try hub.router.answer(prompt: prompt, uid: identity.uid, answer)
            ok(id)
        }
    }

    private func claimSession(_ number: Int, _ take: () -> HostedClient.Session) throws(WireError) {
        try state.withLock { state throws(WireError) in
            guard state.sessions[number] == nil else {
                throw WireError("session \(number) is open already on this connection; choose another number")
            }
            guard state.sessions.count < Self.limit else {
                throw WireError("this connection holds \(Self.limit) sessions already; close some first")
            }
            state.sessions[number] = take()
        }
    }

    private func reserveFeed(_ number: Int) throws(WireError) {
        try state.withLock { state throws(WireError) in
            guard state.feeds[number] == nil else {
                throw WireError(
                    "subscription \(number) is open already on this connection; choose another number")
            }
            state.feeds[number] = Feed(cancel: { _ in })
        }
    }

    /// Forwards a feed's elements as lines until it ends (its session ended, or the receiver),
    /// then says so with `finish`; an unsubscribed feed ends without one. On the connection's
    /// event loop, where each line is written as it is made.
    private func start<Element: Sendable>(
        _ number: Int, _ feed: HostedFeed<Element>,
        _ write: @escaping @Sendable (Element, inout [UInt8]) -> Void
    ) {
        let output = output
        start(number, feed) { output.deliverLines(feed, write, end: $0) }
    }

    /// ``start(_:_:_:)`` with the way `deliver` reads the feed, given what to call when it ends.
    private func start<Element: Sendable>(
        _ number: Int, _ feed: HostedFeed<Element>, delivering deliver: (_ end: @escaping () -> Void) -> Void
    ) {
        let output = output
        deliver {
            // Unsubscribed, or the connection ended: the feed was taken out first, and says nothing.
            let wanted = self.state.withLock { $0.feeds.removeValue(forKey: number) != nil }
            if wanted { output.send(WireEvent.finish(subscription: number).encoded()) }
        }
        let cancel: @Sendable (Bool) -> Void = { _ in feed.cancel() }
        let closed = state.withLock { state -> Bool in
            if !state.closed, state.feeds[number] != nil { state.feeds[number] = Feed(cancel: cancel) }
            return state.closed
        }
        if closed { cancel(true) }
    }

    /// Forwards a monitor's events as lines until the subscription ends.
    private func startMonitor(_ number: Int, _ feed: HostedMonitorFeed) {
        let output = output
        let task = Task {
            while let event = await feed.next() {
                output.send(WireEvent.monitorEvent(subscription: number, event).encoded())
            }
            let wanted = self.state.withLock { $0.feeds.removeValue(forKey: number) != nil }
            if wanted && !Task.isCancelled { output.send(WireEvent.finish(subscription: number).encoded()) }
        }
        // The feed first: what waits in it goes back to the monitor, not away with the task.
        let cancel: @Sendable (Bool) -> Void = { connectionEnded in
            feed.cancel(requeue: connectionEnded)
            task.cancel()
        }
        let closed = state.withLock { state -> Bool in
            if !state.closed, state.feeds[number] != nil {
                state.feeds[number] = Feed(cancel: cancel, monitor: feed)
            }
            return state.closed
        }
        if closed { cancel(true) }
    }

    /// The connection ended: subscriptions end now; sessions stay with the app for the grace
    /// period, for a restarted app to take again.
    func close() {
        let (feeds, sessions, observer, agent, watcher) = state.withLock { state in
            state.closed = true
            defer {
                state.feeds = [:]
                state.sessions = [:]
            }
            return (
                Array(state.feeds.values), Array(state.sessions.values), state.authorizationObserver,
                state.agent, state.activityWatcher
            )
        }
        if let watcher { hub.activity.unwatch(watcher) }
        for feed in feeds { feed.cancel(true) }
        if let observer { client.app.removeAuthorizationObserver(observer) }
        if let agent { hub.router.unregister(uid: identity.uid, agent: agent) }
        hub.detach(client, connection: connection, keeping: sessions)
    }
}
