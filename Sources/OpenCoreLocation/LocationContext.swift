// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import LocationWire
import Locking

/// Everything Core Location knows implicitly on Apple platforms, made explicit: which app this
/// is (its client identifier and manifest), where the system's decisions are stored, who answers
/// prompts, whether the app is in use, and which receiver gives locations.
///
/// The API types (`CLLocationUpdate.liveUpdates()`, `CLServiceSession`, `CLLocationManager`) use
/// ``current``: the context bound with ``withContext(_:operation:isolation:)`` for the running task (tests
/// and embedding programs), else the process-wide one set with ``bootstrap(_:)``, else one made
/// from the environment by ``fromEnvironment(_:service:)``.
///
/// The rules live in a `LocationCore`, a pure state machine; the context is its shell in the
/// app's own process: it feeds the core its inputs (sessions, subscriptions, fixes, answers,
/// changes of the store and of the app's activity) and performs the actions the core returns.
public final class LocationContext: Sendable {
    // MARK: Finding the context

    @TaskLocal static var bound: LocationContext?
    private static let shared = Mutex<LocationContext?>(nil)

    /// The context the API uses in this task.
    public static var current: LocationContext {
        if let bound { return bound }
        return shared.withLock { shared in
            if let shared { return shared }
            let made = fromEnvironment()
            shared = made
            return made
        }
    }

    /// Sets the process-wide context; call it once, early (before any API use).
    public static func bootstrap(_ context: LocationContext) {
        shared.withLock { $0 = context }
    }

    /// Runs `operation` with `context` as ``current`` for it and every task it creates.
    public static func withContext<T>(
        _ context: LocationContext, operation: () async throws -> T,
        isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> T {
        try await $bound.withValue(context, operation: operation)
    }

    // MARK: State

    /// How many locations wait for a slow `for try await` loop before the oldest is dropped.
    static let subscriberCapacity = 64

    public let configuration: Configuration
    /// Whether this context's receiver has sent a heading to anyone iterating its updates:
    /// what `CLLocationManager.headingAvailable()` says.
    let headingSeen = Atomic<Bool>(false)
    var client: String { configuration.client }
    var log: @Sendable (String) -> Void { configuration.log }

    /// The core and what its identifiers stand for in this process.
    struct State {
        var core: LocationCore
        var updates: [LocationCore.ID: Mailbox<CLLocationUpdate>] = [:]
        var diagnostics: [LocationCore.ID: Mailbox<AuthorizationFlags>] = [:]
        var accuracyRequests: [LocationCore.ID: @Sendable ((any Error)?) -> Void] = [:]
        /// The prompt showing now, if any.
        var promptTask: Task<Void, Never>?
        var serviceToken: Int?
        var authorizationObservers: [Int: @Sendable () -> Void] = [:]
        var nextObserverID = 0
        var activityToken: Int?
        var watcher: StoreWatcher?
    }

    let state: Mutex<State>

    private struct WeakMonitor {
        weak var core: (any MonitorBackend)?
    }

    /// The live monitors by name: opening a name again gives the same one.
    private let monitors = Mutex<[String: WeakMonitor]>([:])

    /// The monitor called `name`: the daemon's in client mode (its conditions fetched before it
    /// is returned), else one kept and evaluated in this process.
    func monitor(named name: String) async -> any MonitorBackend {
        guard let remote else { return localMonitor(named: name) }
        let monitor = monitors.withLock { monitors -> RemoteMonitor in
            if let core = monitors[name]?.core as? RemoteMonitor { return core }
            monitors = monitors.filter { $0.value.core != nil }
            let core = RemoteMonitor(name: name, client: remote, log: configuration.log)
            monitors[name] = WeakMonitor(core: core)
            return core
        }
        await monitor.loaded()
        return monitor
    }

    /// The monitor called `name` kept and evaluated in this process (the daemon's own, for the
    /// apps it hosts).
    func localMonitor(named name: String) -> MonitorCore {
        monitors.withLock { monitors in
            if let core = monitors[name]?.core as? MonitorCore { return core }
            monitors = monitors.filter { $0.value.core != nil }
            let core = MonitorCore(name: name, context: self)
            monitors[name] = WeakMonitor(core: core)
            return core
        }
    }

    /// The daemon this context is a client of; `nil` when the core runs in this process.
    let remote: DaemonClient?

    /// A context that runs the core in this process, over `configuration`'s receiver.
    public convenience init(_ configuration: Configuration) {
        self.init(configuration, remote: nil)
    }

    /// A context in client mode: gpslocd decides; `configuration` names the app for the log
    /// and keeps its monitors.
    init(_ configuration: Configuration, remote: DaemonClient?) {
        self.configuration = configuration
        self.remote = remote
        var snapshot = AuthorizationSnapshot()
        if remote == nil {
            do { snapshot = try configuration.store.load() } catch { configuration.log("\(error)") }
        }
        let reducer =
            remote == nil
            ? Self.reducer(configuration) : AccuracyReducer(offset: ReducerOffset(secret: .random()))
        state = Mutex(
            State(
                core: LocationCore(
                    client: configuration.client, manifest: configuration.manifest, snapshot: snapshot,
                    inUse: configuration.activity.isInUse, hasReceiver: configuration.service != nil,
                    reducer: reducer)))
        let token = configuration.activity.observe { [weak self] inUse in self?.activityChanged(inUse) }
        var watcher: StoreWatcher?
        if configuration.watchesStore && remote == nil {
            watcher = StoreWatcher(
                directory: configuration.store.directory, fileName: "authorization.json"
            ) { [weak self] in self?.reloadStore() }
        }
        state.withLock {
            $0.activityToken = token
            $0.watcher = watcher
        }
        remote?.onAuthorizationChange { [weak self] in self?.notifyAuthorizationObservers() }
    }

    deinit {
        remote?.stop()
        let (token, watcher, task) = state.withLock { ($0.activityToken, $0.watcher, $0.promptTask) }
        if let token { configuration.activity.removeObserver(token) }
        watcher?.cancel()
        task?.cancel()
    }

    // MARK: Performing the core's actions

    /// Feeds the core one input and performs the actions it returns. What must keep the core's
    /// order (deliveries, the receiver, prompts) is done under the lock; what may take time or
    /// call the app's code (storing decisions, logging, observers, completions) after it.
    /// The input may also register what its identifier stands for (a mailbox, a completion)
    /// before the actions that use it are performed.
    @discardableResult
    func mutate<T>(_ input: (inout State) -> (T, [LocationCore.Action])) -> T {
        var later: [@Sendable () -> Void] = []
        let result = state.withLock { state -> T in
            let (result, actions) = input(&state)
            // Decisions are stored first, so that nobody hears of one that is not yet saved.
            for action in actions where action.isPersist { perform(action, &state, later: &later) }
            for action in actions where !action.isPersist { perform(action, &state, later: &later) }
            return result
        }
        for work in later { work() }
        return result
    }

    func mutate(_ input: (inout LocationCore) -> [LocationCore.Action]) {
        mutate { state in ((), input(&state.core)) }
    }

    private func perform(
        _ action: LocationCore.Action, _ state: inout State, later: inout [@Sendable () -> Void]
    ) {
        switch action {
        case .deliver(let id, let update):
            guard let mailbox = state.updates[id] else { return }
            if mailbox.post(update), mailbox.dropped.isPowerOfTwo {
                let (client, dropped, log) = (client, mailbox.dropped, log)
                later.append {
                    log(
                        "\(client): a subscriber fell behind; \(dropped) of its locations were dropped so far"
                    )
                }
            }
        case .diagnose(let id, let flags):
            state.diagnostics[id]?.post(flags)
        case .finish(let id):
            state.updates[id]?.finish()
            state.diagnostics[id]?.finish()
        case .ask(let request):
            let prompter = configuration.prompter
            let task = Task { [weak self] in
                let answer = await prompter.ask(request)
                guard !Task.isCancelled else { return }
                self?.answered(request, answer)
            }
            if let stale = state.promptTask { later.append { stale.cancel() } }
            state.promptTask = task
        case .withdrawPrompt:
            if let stale = state.promptTask { later.append { stale.cancel() } }
            state.promptTask = nil
        case .persist(let record):
            // Written now, under the lock, before anyone is told: an app that ends as soon as it
            // hears the answer must not lose it, nor may a new process ask again. Decisions are
            // rare; the write is a few hundred bytes.
            do {
                try configuration.store.update { $0[client] = record }
            } catch {
                let (client, log) = (client, log)
                later.append { log("the decision for \(client) could not be saved: \(error)") }
            }
        case .log(let message):
            let log = log
            later.append { log(message) }
        case .persistReduced(let reduced):
            let (store, client, receiver, log) = (
                configuration.store, client, configuration.receiverName, log
            )
            later.append {
                if let failure = ReducedStateFile.save(
                    reduced, store: store, client: client, receiver: receiver)
                {
                    log("the approximate-location state of \(client) could not be saved: \(failure)")
                }
            }
        case .startReceiver:
            // The service's own lock is never held while it calls back into a context, so
            // subscribing under this one keeps start and stop in the core's order.
            guard let service = configuration.service, state.serviceToken == nil else { return }
            state.serviceToken = service.subscribe { [weak self] event in await self?.receive(event) }
        case .stopReceiver:
            guard let token = state.serviceToken else { return }
            state.serviceToken = nil
            configuration.service?.unsubscribe(token)
        case .authorizationChanged:
            let observers = state.authorizationObservers.sorted { $0.key < $1.key }.map(\.value)
            later.append { for observer in observers { observer() } }
        case .completeAccuracyRequest(let id, let error):
            guard let completion = state.accuracyRequests.removeValue(forKey: id) else { return }
            later.append { completion(error) }
        }
    }

    // MARK: Inputs

    private func answered(_ request: PromptRequest, _ answer: PromptAnswer?) {
        mutate { core in core.promptAnswered(request, answer) }
    }

    /// Reads the store again (another process changed it).
    public func reloadStore() {
        let snapshot: AuthorizationSnapshot
        do { snapshot = try configuration.store.load() } catch {
            log("\(error)")
            return
        }
        mutate { core in core.storeChanged(snapshot) }
    }

    private func activityChanged(_ inUse: Bool) {
        if let remote { return remote.setInUse(inUse) }
        mutate { core in core.activityChanged(inUse: inUse) }
    }

    private func notifyAuthorizationObservers() {
        let observers = state.withLock { $0.authorizationObservers.sorted { $0.key < $1.key }.map(\.value) }
        for observer in observers { observer() }
    }

    // MARK: Sessions

    func addSession(_ requirement: SessionRequirement) -> LocationCore.ID {
        if let remote {
            return remote.openSession(
                level: WireLevel(requirement.level), purposeKey: requirement.purposeKey, background: false)
        }
        return mutate { state in state.core.addSession(requirement) }
    }

    /// A background activity session: it keeps the app in use only if it starts in use.
    func addBackgroundActivitySession() -> LocationCore.ID {
        if let remote { return remote.openSession(level: .none, purposeKey: nil, background: true) }
        return mutate { state in state.core.addBackgroundActivitySession() }
    }

    func removeSession(_ id: LocationCore.ID) {
        if let remote { return remote.closeSession(id) }
        mutate { core in core.removeSession(id) }
    }

    /// The flags of a session's diagnostics: the current ones at once, then every change.
    func subscribeDiagnostics(session: LocationCore.ID) -> Mailbox<AuthorizationFlags> {
        if let remote { return remote.subscribeDiagnostics(session: session) }
        let box = Mutex<LocationCore.ID?>(nil)
        let mailbox = Mailbox<AuthorizationFlags>(capacity: 1) { [weak self] in
            guard let id = box.withLock({ $0 }) else { return }
            _ = self?.state.withLock { state in
                state.diagnostics.removeValue(forKey: id)
                state.core.unsubscribeDiagnostics(id)
            }
        }
        let subscribed = mutate { state -> (Bool, [LocationCore.Action]) in
            let (id, actions) = state.core.subscribeDiagnostics(session: session)
            guard let id else { return (false, actions) }
            box.withLock { $0 = id }
            state.diagnostics[id] = mailbox
            return (true, actions)
        }
        if !subscribed { mailbox.finish() }
        return mailbox
    }

    // MARK: Updates

    /// A subscription to updates; it holds an implicit when-in-use session while it lasts (unless
    /// `implicitSession` is false, for the delegate API). `wantsReduced`: reduced locations
    /// whatever the authorization allows.
    func subscribeUpdates(
        configuration live: CLLocationUpdate.Activity, monitoring: Bool = false,
        wantsReduced: Bool = false, continuous: Bool = false, implicitSession: Bool = true
    ) -> Mailbox<CLLocationUpdate> {
        if let remote {
            return remote.subscribeUpdates(
                configuration: live.rawValue, monitoring: monitoring, reduced: wantsReduced,
                continuous: continuous, implicitSession: implicitSession,
                capacity: Self.subscriberCapacity)
        }
        let box = Mutex<LocationCore.ID?>(nil)
        let mailbox = Mailbox<CLLocationUpdate>(capacity: Self.subscriberCapacity) { [weak self] in
            guard let id = box.withLock({ $0 }) else { return }
            self?.unsubscribeUpdates(id)
        }
        mutate { state in
            let (id, actions) = state.core.subscribeUpdates(
                configuration: live, monitoring: monitoring, wantsReduced: wantsReduced,
                continuous: continuous, implicitSession: implicitSession)
            box.withLock { $0 = id }
            state.updates[id] = mailbox
            return ((), actions)
        }
        return mailbox
    }

    private func unsubscribeUpdates(_ id: LocationCore.ID) {
        mutate { state in
            state.updates.removeValue(forKey: id)
            return ((), state.core.unsubscribeUpdates(id))
        }
    }

    /// An event from the receiver, turned into each subscriber's update. A source without a pace
    /// of its own waits until every subscriber has room for its next fix.
    func receive(_ event: LocationService.Event) async {
        let source = configuration.service?.source
        let origin = source?.origin ?? .receiver
        let coreEvent: LocationCore.ReceiverEvent =
            switch event {
            case .fix(let fix): .fix(fix)
            case .unavailable(let reason): .unavailable(reason)
            case .ended: .ended
            }
        let received = Date()
        mutate { core in core.receive(coreEvent, origin: origin, received: received) }
        guard let source, !source.isRealTime, case .fix = event else { return }
        let mailboxes = state.withLock { Array($0.updates.values) }
        for mailbox in mailboxes { await mailbox.waitForRoom() }
    }

    // MARK: Manager

    var authorizationStatus: CLAuthorizationStatus {
        if let remote {
            return CLAuthorizationStatus(wireName: remote.authorization.status) ?? .notDetermined
        }
        return state.withLock { $0.core.auth.status }
    }

    var accuracyAuthorization: CLAccuracyAuthorization {
        if let remote {
            return CLAccuracyAuthorization(wireName: remote.authorization.accuracy) ?? .reducedAccuracy
        }
        return state.withLock { $0.core.auth.accuracy }
    }

    var servicesEnabled: Bool {
        if let remote { return remote.authorization.servicesEnabled }
        return state.withLock { $0.core.auth.snapshot.servicesEnabled }
    }

    func requestAuthorization(_ level: SessionLevel) {
        if let remote { return remote.requestAuthorization(level == .always ? .always : .whenInUse) }
        mutate { core in core.requestAuthorization(level) }
    }

    func requestTemporaryFullAccuracy(
        purposeKey: String, completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        mutate { state in
            let (id, actions) = state.core.requestTemporaryFullAccuracy(purposeKey: purposeKey)
            state.accuracyRequests[id] = completion
            return ((), actions)
        }
    }

    func observeAuthorization(_ observer: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextObserverID += 1
            state.authorizationObservers[state.nextObserverID] = observer
            return state.nextObserverID
        }
    }

    func removeAuthorizationObserver(_ id: Int) {
        _ = state.withLock { $0.authorizationObservers.removeValue(forKey: id) }
    }
}

extension Int {
    /// 1, 2, 4, 8, …: when a growing count is worth a log line.
    fileprivate var isPowerOfTwo: Bool { self > 0 && self & (self - 1) == 0 }
}

extension LocationCore.Action {
    /// Whether the action stores the app's decision.
    fileprivate var isPersist: Bool {
        if case .persist = self { return true }
        return false
    }
}
