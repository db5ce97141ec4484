// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One app's engine: its `LocationCore` (a pure state machine) and the shell that feeds it
/// inputs — sessions, subscriptions, fixes, answers, changes of the store and of the app's
/// activity — and performs the actions it returns.
///
/// The Apple-API façade runs one for an app in its own process; gpslocd runs one for each app of
/// each user it serves, whatever protocol the app speaks. Every subscriber's stream has passed
/// the core's one privacy pipeline before it leaves: a subscriber that may only have reduced
/// locations is never handed a precise one.
public final class AppEngine: Sendable {
    /// How many locations wait for a slow subscriber before the oldest is dropped.
    package static let subscriberCapacity = 64

    package let configuration: Configuration
    package var client: String { configuration.client }
    var log: @Sendable (String) -> Void { configuration.log }

    /// The core and what its identifiers stand for in this process.
    struct State {
        var core: LocationCore
        var updates = UpdateMailboxes()
        var diagnostics: [LocationCore.ID: Mailbox<AuthorizationFlags>] = [:]
        var fixes: [LocationCore.ID: Mailbox<Fix>] = [:]
        var accuracyRequests: [LocationCore.ID: @Sendable (AccuracyRequestRefusal?) -> Void] = [:]
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
        weak var core: MonitorCore?
    }

    /// The live monitors by name: opening a name again gives the same one.
    private let monitors = Mutex<[String: WeakMonitor]>([:])
    /// What the app's stored monitors hold, counted once and kept current.
    package let monitorCensus: MonitorCensus
    /// The one feed of fixes the app's monitors are evaluated from.
    package let monitorFeed = MonitorFeed()

    /// An engine over `configuration`'s receiver, store and prompter. A `detached` engine decides
    /// nothing for real (the façade's when gpslocd decides for the app): it reads no store and
    /// keeps no reduced state.
    @_spi(FrontEnd) public init(_ configuration: Configuration, detached: Bool = false) {
        self.configuration = configuration
        monitorCensus = MonitorCensus(
            directory: configuration.store.directory + "/monitors/"
                + MonitorCore.fileName(configuration.client))
        var snapshot = AuthorizationSnapshot()
        if !detached {
            do { snapshot = try configuration.store.load() } catch { configuration.log("\(error)") }
        }
        let reducer =
            detached
            ? AccuracyReducer(offset: ReducerOffset(secret: .random())) : Self.reducer(configuration)
        state = Mutex(
            State(
                core: LocationCore(
                    client: configuration.client, manifest: configuration.manifest, snapshot: snapshot,
                    inUse: configuration.activity.isInUse, hasReceiver: configuration.service != nil,
                    reducer: reducer)))
        var watcher: StoreWatcher?
        if configuration.watchesStore && !detached {
            watcher = StoreWatcher(
                directory: configuration.store.directory, fileName: "authorization.json"
            ) { [weak self] in self?.reloadStore() }
        }
        let token: Int? =
            detached
            ? nil : configuration.activity.observe { [weak self] inUse in self?.activityChanged(inUse) }
        state.withLock {
            $0.activityToken = token
            $0.watcher = watcher
        }
    }

    deinit {
        let (token, watcher, task) = state.withLock { ($0.activityToken, $0.watcher, $0.promptTask) }
        if let token { configuration.activity.removeObserver(token) }
        watcher?.cancel()
        task?.cancel()
    }

    /// The app's monitor called `name`, kept and evaluated by this engine.
    package func monitor(named name: String) -> MonitorCore {
        monitors.withLock { monitors in
            if let core = monitors[name]?.core { return core }
            monitors = monitors.filter { $0.value.core != nil }
            let core = MonitorCore(name: name, engine: self)
            monitors[name] = WeakMonitor(core: core)
            return core
        }
    }

    // MARK: Performing the core's actions

    /// Feeds the core one input and performs the actions it returns. What must keep the core's
    /// order (deliveries, the receiver, prompts) is done under the lock; what may take time or
    /// call the app's code (storing decisions, logging, observers, completions) after it.
    /// The input may also register what its identifier stands for (a mailbox, a completion)
    /// before the actions that use it are performed.
    /// `event` is the receiver's event the input hands the core, whose fix its `deliverFix`
    /// actions give on: the event itself, as wrapping its fix anew copied several hundred bytes.
    @discardableResult
    func mutate<T>(
        receiving event: LocationService.Event? = nil, _ input: (inout State) -> (T, [LocationCore.Action])
    ) -> T {
        var later: [@Sendable () -> Void] = []
        let result = state.withLock { state -> T in
            let (result, actions) = input(&state)
            // Decisions are stored first, so that nobody hears of one that is not yet saved.
            // By index, each action lent to `perform` where it lies: a `for … in` copies it out.
            for index in actions.indices where actions[index].isPersist {
                perform(actions[index], &state, event, later: &later)
            }
            for index in actions.indices where !actions[index].isPersist {
                perform(actions[index], &state, event, later: &later)
            }
            return result
        }
        for work in later { work() }
        return result
    }

    func mutate(
        receiving event: LocationService.Event? = nil, _ input: (inout LocationCore) -> [LocationCore.Action]
    ) {
        mutate(receiving: event) { state in ((), input(&state.core)) }
    }

    private func perform(
        _ action: LocationCore.Action, _ state: inout State, _ event: LocationService.Event?,
        later: inout [@Sendable () -> Void]
    ) {
        switch action {
        case .deliver(let ids, let update):
            state.updates.forEach(of: ids) { mailbox in
                if mailbox.post(update), mailbox.dropped.isPowerOfTwo {
                    let (client, dropped, log) = (client, mailbox.dropped, log)
                    later.append {
                        log(
                            "\(client): a subscriber fell behind; \(dropped) of its locations were dropped so far"
                        )
                    }
                }
            }
        case .deliverFix(let id):
            guard case .fix(let fix) = event else {
                preconditionFailure("a fix delivered by an input that received none")
            }
            state.fixes[id]?.post(fix)
        case .diagnose(let id, let flags):
            state.diagnostics[id]?.post(flags)
        case .finish(let id):
            state.updates[id]?.finish()
            state.diagnostics[id]?.finish()
            state.fixes[id]?.finish()
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
            // On the thread that delivered the fix (for a live receiver, the one reading it):
            // the state changes once per output, every 15 to 20 minutes.
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
            // The service's own lock is never held while it calls back into an engine, so
            // subscribing under this one keeps start and stop in the core's order.
            guard let service = configuration.service, state.serviceToken == nil else { return }
            state.serviceToken = service.subscribe(pace: { [weak self] in await self?.waitForRoom() }) {
                [weak self] event in self?.receive(event)
            }
        case .stopReceiver:
            guard let token = state.serviceToken else { return }
            state.serviceToken = nil
            configuration.service?.unsubscribe(token)
        case .authorizationChanged:
            let observers = state.authorizationObservers.sorted { $0.key < $1.key }.map(\.value)
            later.append { for observer in observers { observer() } }
        case .completeAccuracyRequest(let id, let refusal):
            guard let completion = state.accuracyRequests.removeValue(forKey: id) else { return }
            later.append { completion(refusal) }
        }
    }

    // MARK: Inputs

    private func answered(_ request: PromptRequest, _ answer: PromptAnswer?) {
        mutate { core in core.promptAnswered(request, answer) }
    }

    /// Reads the store again (another process changed it).
    package func reloadStore() {
        let snapshot: AuthorizationSnapshot
        do { snapshot = try configuration.store.load() } catch {
            log("\(error)")
            return
        }
        mutate { core in core.storeChanged(snapshot) }
    }

    private func activityChanged(_ inUse: Bool) {
        mutate { core in core.activityChanged(inUse: inUse) }
    }

    // MARK: Sessions

    package func addSession(_ requirement: SessionRequirement) -> LocationCore.ID {
        mutate { state in state.core.addSession(requirement) }
    }

    /// A background activity session: it keeps the app in use only if it starts in use.
    package func addBackgroundActivitySession() -> LocationCore.ID {
        mutate { state in state.core.addBackgroundActivitySession() }
    }

    package func removeSession(_ id: LocationCore.ID) {
        mutate { core in core.removeSession(id) }
    }

    /// The flags of a session's diagnostics: the current ones at once, then every change.
    package func subscribeDiagnostics(session: LocationCore.ID) -> Mailbox<AuthorizationFlags> {
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
    /// whatever the authorization allows. `preciseAsStatus`: precise locations as their status
    /// alone, for a front-end that takes them from ``subscribePreciseFixes()``.
    @_spi(FrontEnd) public func subscribeUpdates(
        profile: ActivityProfile, monitoring: Bool = false, wantsReduced: Bool = false,
        continuous: Bool = false, implicitSession: Bool = true, preciseAsStatus: Bool = false
    ) -> Mailbox<LocationUpdate> {
        let box = Mutex<LocationCore.ID?>(nil)
        let mailbox = Mailbox<LocationUpdate>(capacity: Self.subscriberCapacity) { [weak self] in
            guard let id = box.withLock({ $0 }) else { return }
            self?.unsubscribeUpdates(id)
        }
        mutate { state in
            let (id, actions) = state.core.subscribeUpdates(
                profile: profile, monitoring: monitoring, wantsReduced: wantsReduced,
                continuous: continuous, implicitSession: implicitSession, preciseAsStatus: preciseAsStatus)
            box.withLock { $0 = id }
            state.updates.insert(mailbox, for: id)
            return ((), actions)
        }
        return mailbox
    }

    /// The receiver's fixes whole, while the app may have precise locations (see
    /// ``LocationCore/subscribeFixes()``); beside an update subscription.
    package func subscribePreciseFixes() -> Mailbox<Fix> {
        let box = Mutex<LocationCore.ID?>(nil)
        let mailbox = Mailbox<Fix>(capacity: Self.subscriberCapacity) { [weak self] in
            guard let id = box.withLock({ $0 }) else { return }
            self?.state.withLock { state in
                state.fixes.removeValue(forKey: id)
                state.core.unsubscribeFixes(id)
            }
        }
        state.withLock { state in
            let id = state.core.subscribeFixes()
            box.withLock { $0 = id }
            state.fixes[id] = mailbox
        }
        return mailbox
    }

    private func unsubscribeUpdates(_ id: LocationCore.ID) {
        mutate { state in
            state.updates.remove(id)
            return ((), state.core.unsubscribeUpdates(id))
        }
    }

    /// An event from the receiver, turned into each subscriber's update, on the thread that
    /// brought it (for a live receiver, the one that read the fix); ``waitForRoom()`` is what a
    /// source without a pace of its own waits on.
    func receive(_ event: LocationService.Event) {
        let origin = configuration.service?.source.origin ?? .receiver
        let received = Date()
        switch event {
        case .fix(let fix):
            mutate(receiving: event) { core in core.receive(fix, origin: origin, received: received) }
        case .unavailable(let reason):
            mutate { core in core.receive(.unavailable(reason), origin: origin, received: received) }
        case .ended:
            mutate { core in core.receive(.ended, origin: origin, received: received) }
        }
    }

    /// Waits until every subscriber has room: a log replayed as fast as it can be read goes at
    /// the pace of the slowest.
    func waitForRoom() async {
        let (updates, fixes) = state.withLock { ($0.updates.all, Array($0.fixes.values)) }
        for mailbox in updates { await mailbox.waitForRoom() }
        for mailbox in fixes { await mailbox.waitForRoom() }
    }

    // MARK: Authorization

    package var authorizationStatus: AuthorizationStatus {
        state.withLock { $0.core.auth.status }
    }

    package var accuracyAuthorization: AccuracyAuthorization {
        state.withLock { $0.core.auth.accuracy }
    }

    package var servicesEnabled: Bool {
        state.withLock { $0.core.auth.snapshot.servicesEnabled }
    }

    package func requestAuthorization(_ level: SessionLevel) {
        mutate { core in core.requestAuthorization(level) }
    }

    /// Asks for temporary full accuracy; `completion` gets `nil` when it is granted.
    package func requestTemporaryFullAccuracy(
        purposeKey: String, completion: @escaping @Sendable (AccuracyRequestRefusal?) -> Void
    ) {
        mutate { state in
            let (id, actions) = state.core.requestTemporaryFullAccuracy(purposeKey: purposeKey)
            state.accuracyRequests[id] = completion
            return ((), actions)
        }
    }

    /// Calls `observer` after every change of the status or the accuracy; returns its number.
    package func observeAuthorization(_ observer: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextObserverID += 1
            state.authorizationObservers[state.nextObserverID] = observer
            return state.nextObserverID
        }
    }

    package func removeAuthorizationObserver(_ id: Int) {
        _ = state.withLock { $0.authorizationObservers.removeValue(forKey: id) }
    }

    /// Calls the authorization observers (a detached engine's, when gpslocd says the app's
    /// authorization changed).
    package func notifyAuthorizationObservers() {
        let observers = state.withLock { $0.authorizationObservers.sorted { $0.key < $1.key }.map(\.value) }
        for observer in observers { observer() }
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
