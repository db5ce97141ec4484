import GNSS
import Synchronization

/// Everything Core Location knows implicitly on Apple platforms, made explicit: which app this
/// is (its client identifier and manifest), where the system's decisions are stored, who answers
/// prompts, whether the app is in use, and which receiver gives locations.
///
/// The API types (`CLLocationUpdate.liveUpdates()`, `CLServiceSession`, `CLLocationManager`) use
/// ``current``: the context bound with ``withContext(_:operation:)`` for the running task (tests
/// and embedding programs), else the process-wide one set with ``bootstrap(_:)``, else one made
/// from the environment by ``fromEnvironment(_:)``.
public final class LocationContext: Sendable {
    public struct Configuration: Sendable {
        /// The app's identity, bundle-identifier style, e.g. `com.example.tracker`.
        public var client: String
        public var manifest: Manifest
        public var store: AuthorizationStore
        public var prompter: any Prompter
        public var activity: AppActivity
        /// The receiver; without one, updates report `locationUnavailable`.
        public var service: LocationService?
        /// Follow changes of the store made by other processes (`gpsloc auth`).
        public var watchesStore: Bool
        /// Seeds the reduced-accuracy cadence; random when `nil`.
        public var reducerSeed: UInt64?
        /// Where refusals and failures are explained; standard error by default.
        public var log: @Sendable (String) -> Void

        public init(
            client: String, manifest: Manifest, store: AuthorizationStore, prompter: any Prompter,
            activity: AppActivity = AppActivity(), service: LocationService? = nil,
            watchesStore: Bool = true, reducerSeed: UInt64? = nil,
            log: @escaping @Sendable (String) -> Void = LocationContext.standardErrorLog
        ) {
            self.client = client
            self.manifest = manifest
            self.store = store
            self.prompter = prompter
            self.activity = activity
            self.service = service
            self.watchesStore = watchesStore
            self.reducerSeed = reducerSeed
            self.log = log
        }
    }

    public static let standardErrorLog: @Sendable (String) -> Void = { message in
        let line = "OpenCoreLocation: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

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

    /// The documented defaults, from the environment:
    /// - `OPENCORELOCATION_APP`: the client identifier (default: the program's name);
    /// - `OPENCORELOCATION_MANIFEST`: the path of its `Info.plist` (default: none, so every
    ///   request is refused with a message saying which key to add);
    /// - the store in ``AuthorizationStore/defaultDirectory(environment:)``;
    /// - prompts on the terminal when there is one, else pending until `gpsloc auth` answers;
    /// - in use while in the terminal's foreground process group;
    /// - no receiver: pass one with ``bootstrap(_:)`` (e.g. a `LocationService` over a
    ///   `GNSSSources` source).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        service: LocationService? = nil
    ) -> LocationContext {
        let log = standardErrorLog
        let client =
            environment["OPENCORELOCATION_APP"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.processName
        var manifest = Manifest()
        if let path = environment["OPENCORELOCATION_MANIFEST"], !path.isEmpty {
            do { manifest = try Manifest(contentsOf: path) } catch { log("\(error)") }
        }
        let store = AuthorizationStore(
            directory: AuthorizationStore.defaultDirectory(environment: environment))
        let prompter: any Prompter =
            TerminalPrompter.isAvailable ? TerminalPrompter() : PendingPrompter(store: store, log: log)
        return LocationContext(
            Configuration(
                client: client, manifest: manifest, store: store, prompter: prompter,
                activity: .terminalForeground(), service: service, log: log))
    }

    // MARK: State

    public let configuration: Configuration
    var client: String { configuration.client }
    var log: @Sendable (String) -> Void { configuration.log }

    struct UpdateSubscriber {
        var channel: Channel<CLLocationUpdate>
        var stationary: StationaryDetector
        var reducer: AccuracyReducer
        /// A monitor's feed: every precise fix (no stationary pause), and no location at all
        /// under reduced accuracy, where geographic conditions are not evaluated.
        var monitoring = false
        /// The last state sent without a location, so that such updates go out on change only.
        var lastStatus: CLLocationUpdate.Status?

        /// A location-less update saying `flags` (and `unavailable`), unless it was the last
        /// thing said.
        mutating func status(_ flags: AuthorizationFlags, unavailable: Bool = false) -> CLLocationUpdate? {
            let status = CLLocationUpdate.Status(flags: flags, unavailable: unavailable)
            guard status != lastStatus else { return nil }
            lastStatus = status
            return CLLocationUpdate(location: nil, flags: flags, unavailable: unavailable)
        }

        /// An update with a location; the next location-less one is news again.
        mutating func located(_ update: CLLocationUpdate) -> CLLocationUpdate {
            lastStatus = nil
            return update
        }
    }

    struct DiagnosticSubscriber {
        var session: Int
        var channel: Channel<AuthorizationFlags>
        var last: AuthorizationFlags?
    }

    struct AccuracyRequest {
        var purposeKey: String
        var completion: @Sendable ((any Error)?) -> Void
    }

    struct State {
        var auth: AuthorizationState
        var updates: [Int: UpdateSubscriber] = [:]
        var diagnostics: [Int: DiagnosticSubscriber] = [:]
        /// The prompt showing now, if any.
        var promptTask: Task<Void, Never>?
        var serviceToken: Int?
        var unavailable: String?
        var lastFixTime: Date?
        var accuracyRequests: [AccuracyRequest] = []
        var authorizationObservers: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
        var activityToken: Int?
        var watcher: StoreWatcher?

        mutating func makeID() -> Int {
            nextID += 1
            return nextID
        }
    }

    let state: Mutex<State>

    private struct WeakMonitor {
        weak var core: MonitorCore?
    }

    /// The live monitors by name: opening a name again gives the same one.
    private let monitors = Mutex<[String: WeakMonitor]>([:])

    func monitor(named name: String) -> MonitorCore {
        monitors.withLock { monitors in
            if let core = monitors[name]?.core { return core }
            monitors = monitors.filter { $0.value.core != nil }
            let core = MonitorCore(name: name, context: self)
            monitors[name] = WeakMonitor(core: core)
            return core
        }
    }

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        var snapshot = AuthorizationSnapshot()
        do { snapshot = try configuration.store.load() } catch { configuration.log("\(error)") }
        state = Mutex(
            State(
                auth: AuthorizationState(
                    client: configuration.client, manifest: configuration.manifest, snapshot: snapshot,
                    inUse: configuration.activity.isInUse)))
        let token = configuration.activity.observe { [weak self] inUse in self?.activityChanged(inUse) }
        var watcher: StoreWatcher?
        if configuration.watchesStore {
            watcher = StoreWatcher(
                directory: configuration.store.directory, fileName: "authorization.json"
            ) { [weak self] in self?.reloadStore() }
        }
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

    // MARK: Effects

    /// Work decided under the lock and done after it is released.
    enum Effect {
        case post(Channel<CLLocationUpdate>, CLLocationUpdate)
        case diagnostic(Channel<AuthorizationFlags>, AuthorizationFlags)
        case finish(Channel<CLLocationUpdate>)
        case prompt(PromptRequest)
        case cancelPrompt(Task<Void, Never>)
        case persist(ClientAuthorization)
        case log(String)
        case subscribeService
        case unsubscribeService(Int)
        case notifyAuthorization([@Sendable () -> Void])
        case complete(@Sendable ((any Error)?) -> Void, (any Error)?)
    }

    /// Changes the state, brings every subscriber up to date, and performs the resulting effects.
    func mutate(_ body: (inout State, inout [Effect]) -> Void) {
        let effects = state.withLock { state -> [Effect] in
            var effects: [Effect] = []
            let before = (state.auth.status, state.auth.accuracy)
            body(&state, &effects)
            Self.settle(&state, &effects)
            if (state.auth.status, state.auth.accuracy) != before {
                effects.append(.notifyAuthorization(Array(state.authorizationObservers.values)))
            }
            return effects
        }
        perform(effects)
    }

    private func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .post(let channel, let update): channel.post(update)
            case .diagnostic(let channel, let diagnostic): channel.post(diagnostic)
            case .finish(let channel): channel.finish()
            case .prompt(let request): startPrompt(request)
            case .cancelPrompt(let task): task.cancel()
            case .persist(let record):
                do {
                    try configuration.store.update { $0[client] = record }
                } catch {
                    log("the decision for \(client) could not be saved: \(error)")
                }
            case .log(let message): log(message)
            case .subscribeService:
                guard let service = configuration.service else { continue }
                let token = service.subscribe { [weak self] event in await self?.receive(event) }
                let stale = state.withLock { state -> Int? in
                    if state.serviceToken == nil && !state.updates.isEmpty {
                        state.serviceToken = token
                        return nil
                    }
                    return token
                }
                if let stale { service.unsubscribe(stale) }
            case .unsubscribeService(let token): configuration.service?.unsubscribe(token)
            case .notifyAuthorization(let observers): for observer in observers { observer() }
            case .complete(let completion, let error): completion(error)
            }
        }
    }

    /// After any change: start the next prompt, answer precise-location requests that became
    /// moot, persist changed decisions and tell every subscriber what changed.
    private static func settle(_ state: inout State, _ effects: inout [Effect]) {
        if state.auth.reconcileUse() { effects.append(.persist(state.auth.record)) }
        // Manager requests for temporary full accuracy.
        if !state.accuracyRequests.isEmpty {
            var remaining: [AccuracyRequest] = []
            for request in state.accuracyRequests {
                if state.auth.temporaryFullAccuracy.contains(request.purposeKey) {
                    effects.append(.complete(request.completion, nil))
                } else if state.auth.declinedPurposes.contains(request.purposeKey) {
                    effects.append(
                        .complete(
                            request.completion,
                            CLError(
                                .promptDeclined, "precise location for \"\(request.purposeKey)\" was declined"
                            )))
                } else {
                    remaining.append(request)
                }
            }
            state.accuracyRequests = remaining
        }
        if state.auth.prompt == nil, state.auth.inUse, state.auth.isAuthorized,
            let request = state.accuracyRequests.first,
            let reason = state.auth.manifest.temporaryUsageDescriptions[request.purposeKey]
        {
            let prompt = PromptRequest(
                kind: .temporaryFullAccuracy, client: state.auth.client, reason: reason,
                purposeKey: request.purposeKey)
            state.auth.prompt = prompt
            effects.append(.prompt(prompt))
        }
        if state.auth.prompt == nil, let decision = state.auth.nextPrompt() {
            switch decision {
            case .ask(let request):
                state.auth.prompt = request
                effects.append(.prompt(request))
            case .refuse(let reason):
                if state.auth.reported.insert(reason).inserted { effects.append(.log(reason)) }
            }
        }
        // Updates: subscribers that are blocked hear about every change of the reason.
        let gate = state.auth.updateGate
        for id in state.updates.keys where !gate.deliver {
            if let update = state.updates[id]?.status(gate.flags) {
                effects.append(.post(state.updates[id]!.channel, update))
            }
        }
        for (id, subscriber) in state.diagnostics {
            guard let session = state.auth.sessions[subscriber.session] else { continue }
            let flags = state.auth.diagnostic(for: session)
            if flags != subscriber.last {
                state.diagnostics[id]?.last = flags
                effects.append(.diagnostic(subscriber.channel, flags))
            }
        }
    }

    // MARK: Prompts

    private func startPrompt(_ request: PromptRequest) {
        let prompter = configuration.prompter
        let task = Task { [weak self] in
            let answer = await prompter.ask(request)
            guard !Task.isCancelled else { return }
            self?.answered(request, answer)
        }
        let stale = state.withLock { state -> Task<Void, Never>? in
            let old = state.promptTask
            state.promptTask = task
            return old
        }
        stale?.cancel()
    }

    private func answered(_ request: PromptRequest, _ answer: PromptAnswer?) {
        mutate { state, effects in
            guard state.auth.prompt == request else { return }
            state.promptTask = nil
            if state.auth.answer(answer, to: request) {
                effects.append(.persist(state.auth.record))
            }
        }
    }

    // MARK: Inputs

    /// Reads the store again (another process changed it).
    public func reloadStore() {
        let snapshot: AuthorizationSnapshot
        do { snapshot = try configuration.store.load() } catch {
            log("\(error)")
            return
        }
        mutate { state, effects in
            let before = state.auth.record
            state.auth.snapshot = snapshot
            let after = state.auth.record
            // A prompt answered elsewhere (`gpsloc auth grant|deny`) is over.
            if let prompt = state.auth.prompt,
                before.decision != after.decision || before.precise != after.precise
            {
                state.auth.prompt = nil
                if let task = state.promptTask { effects.append(.cancelPrompt(task)) }
                state.promptTask = nil
                if prompt.kind == .always { state.auth.snapshot[client].alwaysPrompted = true }
                if state.auth.isAuthorized { state.auth.managerRequest = nil }
                if after.pendingRequest != nil || state.auth.record != after {
                    state.auth.snapshot[client].pendingRequest = nil
                    effects.append(.persist(state.auth.record))
                }
            }
        }
    }

    private func activityChanged(_ inUse: Bool) {
        mutate { state, _ in
            state.auth.inUse = inUse
        }
    }

    // MARK: Sessions

    func addSession(_ requirement: SessionRequirement) -> Int {
        var id = 0
        mutate { state, _ in
            id = state.makeID()
            state.auth.sessions[id] = requirement
        }
        return id
    }

    /// A background activity session: it keeps the app in use only if it starts in use.
    func addBackgroundActivitySession() -> Int {
        var id = 0
        mutate { state, effects in
            id = state.makeID()
            let keepsInUse = state.auth.effectivelyInUse
            state.auth.sessions[id] = SessionRequirement(
                level: .none, explicit: false, keepsInUse: keepsInUse)
            if !keepsInUse {
                effects.append(
                    .log(
                        "\(client) started a background activity session while not in use; it keeps "
                            + "nothing in use: start it while the app is in the foreground"))
            }
        }
        return id
    }

    func removeSession(_ id: Int) {
        mutate { state, effects in
            guard state.auth.sessions.removeValue(forKey: id) != nil else { return }
            for (key, subscriber) in state.diagnostics where subscriber.session == id {
                state.diagnostics.removeValue(forKey: key)
                subscriber.channel.finish()
            }
            Self.withdrawPromptIfMoot(&state, &effects)
        }
    }

    /// A prompt nobody wants any more (its session ended) is withdrawn.
    private static func withdrawPromptIfMoot(_ state: inout State, _ effects: inout [Effect]) {
        guard let prompt = state.auth.prompt else { return }
        let wanted: Bool
        switch prompt.kind {
        case .whenInUse: wanted = state.auth.requestedLevel >= .whenInUse
        case .always: wanted = state.auth.requestedLevel == .always
        case .temporaryFullAccuracy:
            wanted =
                state.auth.effectiveSessions.contains { $0.purposeKey == prompt.purposeKey }
                || state.accuracyRequests.contains { $0.purposeKey == prompt.purposeKey }
        }
        guard !wanted else { return }
        state.auth.prompt = nil
        if let task = state.promptTask { effects.append(.cancelPrompt(task)) }
        state.promptTask = nil
    }

    /// The flags of a session's diagnostics: the current ones at once, then every change.
    func subscribeDiagnostics(session: Int) -> Channel<AuthorizationFlags> {
        let channel = Channel<AuthorizationFlags>(highWater: .max)
        mutate { state, _ in
            guard let requirement = state.auth.sessions[session] else {
                channel.finish()
                return
            }
            let id = state.makeID()
            let flags = state.auth.diagnostic(for: requirement)
            state.diagnostics[id] = DiagnosticSubscriber(session: session, channel: channel, last: flags)
            channel.post(flags)
        }
        return channel
    }

    // MARK: Updates

    /// A subscription to updates; it holds an implicit when-in-use session while it lasts.
    func subscribeUpdates(
        configuration live: CLLocationUpdate.LiveConfiguration, monitoring: Bool = false
    ) -> Channel<CLLocationUpdate> {
        let box = Mutex<Int?>(nil)
        let channel = Channel<CLLocationUpdate>(highWater: 256) { [weak self] in
            guard let id = box.withLock({ $0 }) else { return }
            self?.unsubscribeUpdates(id)
        }
        let seed = configuration.reducerSeed
        mutate { state, effects in
            let id = state.makeID()
            box.withLock { $0 = id }
            state.auth.sessions[id] = SessionRequirement(level: .whenInUse, explicit: false)
            var subscriber = UpdateSubscriber(
                channel: channel, stationary: StationaryDetector(tuning: live.stationaryTuning),
                reducer: AccuracyReducer(seed: seed.map { $0 &+ UInt64(id) }), monitoring: monitoring)
            if configuration.service == nil {
                let message =
                    "no receiver is configured for \(client): bootstrap a LocationContext with a "
                    + "LocationService (see README)"
                if state.auth.reported.insert(message).inserted { effects.append(.log(message)) }
                let gate = state.auth.updateGate
                if let update = subscriber.status(gate.flags, unavailable: gate.deliver) {
                    channel.post(update)
                }
            } else if state.unavailable != nil, state.auth.updateGate.deliver {
                if let update = subscriber.status(state.auth.updateGate.flags, unavailable: true) {
                    channel.post(update)
                }
            }
            state.updates[id] = subscriber
            if state.serviceToken == nil && configuration.service != nil {
                effects.append(.subscribeService)
            }
        }
        return channel
    }

    private func unsubscribeUpdates(_ id: Int) {
        mutate { state, effects in
            guard state.updates.removeValue(forKey: id) != nil else { return }
            state.auth.sessions.removeValue(forKey: id)
            if state.updates.isEmpty, let token = state.serviceToken {
                state.serviceToken = nil
                state.unavailable = nil
                effects.append(.unsubscribeService(token))
            }
            Self.withdrawPromptIfMoot(&state, &effects)
        }
    }

    /// An event from the receiver, turned into each subscriber's update.
    func receive(_ event: LocationService.Event) async {
        let origin = configuration.service?.source.origin ?? .receiver
        var sends: [(Channel<CLLocationUpdate>, CLLocationUpdate)] = []
        mutate { state, effects in
            let gate = state.auth.updateGate
            /// Tells every subscriber that no position can be had, once.
            func unavailable(resettingStationary: Bool) {
                for id in state.updates.keys.sorted() {
                    guard let update = state.updates[id]?.status(gate.flags, unavailable: true) else {
                        continue
                    }
                    if resettingStationary { state.updates[id]?.stationary.reset() }
                    sends.append((state.updates[id]!.channel, update))
                }
            }
            switch event {
            case .ended:
                for subscriber in state.updates.values { effects.append(.finish(subscriber.channel)) }
            case .unavailable(let reason):
                state.unavailable = reason
                if gate.deliver { unavailable(resettingStationary: true) }
            case .fix(let fix):
                state.unavailable = nil
                guard gate.deliver else { return }
                let fallback = state.lastFixTime ?? Date(timeIntervalSince1970: 0)
                guard let location = CLLocation(fix: fix, origin: origin, fallbackTime: fallback) else {
                    unavailable(resettingStationary: false)
                    return
                }
                state.lastFixTime = location.timestamp
                for id in state.updates.keys.sorted() {
                    guard var subscriber = state.updates[id] else { continue }
                    var update: CLLocationUpdate?
                    if subscriber.monitoring {
                        update =
                            gate.full
                            ? subscriber.located(CLLocationUpdate(location: location, flags: gate.flags))
                            : subscriber.status(gate.flags)
                    } else if gate.full {
                        switch subscriber.stationary.observe(location) {
                        case .deliver:
                            update = subscriber.located(
                                CLLocationUpdate(location: location, flags: gate.flags))
                        case .becameStationary:
                            update = subscriber.located(
                                CLLocationUpdate(location: location, flags: gate.flags, stationary: true))
                        case .silent:
                            break
                        }
                    } else if let reduced = subscriber.reducer.reduce(location) {
                        var flags = gate.flags
                        flags.accuracyLimited = false
                        update = subscriber.located(CLLocationUpdate(location: reduced, flags: flags))
                    } else {
                        update = subscriber.status(gate.flags)
                    }
                    state.updates[id] = subscriber
                    if let update { sends.append((subscriber.channel, update)) }
                }
            }
        }
        for (channel, update) in sends { await channel.send(update) }
    }

    // MARK: Manager

    var authorizationStatus: CLAuthorizationStatus { state.withLock { $0.auth.status } }
    var accuracyAuthorization: CLAccuracyAuthorization { state.withLock { $0.auth.accuracy } }
    var servicesEnabled: Bool { state.withLock { $0.auth.snapshot.servicesEnabled } }

    func requestAuthorization(_ level: SessionLevel) {
        mutate { state, effects in
            let auth = state.auth
            switch level {
            case .whenInUse:
                guard auth.record.decision == .notDetermined else { return }
            case .always:
                // One upgrade chance; ignored after Allow Once.
                guard
                    auth.record.decision == .notDetermined
                        || (auth.record.decision == .whenInUse && !auth.record.once
                            && !auth.record.alwaysPrompted)
                else { return }
            case .none:
                return
            }
            state.auth.managerRequest = max(state.auth.managerRequest ?? .none, level)
            if !state.auth.inUse {
                effects.append(
                    .log("\(client) asked for authorization while not in use; it will be asked when in use"))
            }
        }
    }

    func requestTemporaryFullAccuracy(
        purposeKey: String, completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        mutate { state, effects in
            let auth = state.auth
            guard auth.manifest.temporaryUsageDescriptions[purposeKey] != nil else {
                effects.append(
                    .complete(
                        completion,
                        CLError(
                            .denied,
                            "the purpose key \"\(purposeKey)\" is not in NSLocationTemporaryUsageDescriptionDictionary"
                        )))
                return
            }
            if auth.accuracy == .fullAccuracy {
                effects.append(.complete(completion, nil))
                return
            }
            guard auth.isAuthorized else {
                effects.append(
                    .complete(completion, CLError(.denied, "\(client) is not authorized to use location")))
                return
            }
            guard auth.inUse else {
                effects.append(
                    .complete(
                        completion, CLError(.denied, "precise location can only be requested while in use")))
                return
            }
            state.auth.declinedPurposes.remove(purposeKey)
            state.accuracyRequests.append(AccuracyRequest(purposeKey: purposeKey, completion: completion))
        }
    }

    func observeAuthorization(_ observer: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            let id = state.makeID()
            state.authorizationObservers[id] = observer
            return id
        }
    }

    func removeAuthorizationObserver(_ id: Int) {
        _ = state.withLock { $0.authorizationObservers.removeValue(forKey: id) }
    }
}

extension CLLocationUpdate {
    /// What a location-less update says, to send such updates only when it changes.
    struct Status: Hashable {
        var flags: AuthorizationFlags
        var unavailable: Bool
    }
}
