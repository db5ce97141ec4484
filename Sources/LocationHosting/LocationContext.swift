// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
@_spi(FrontEnd) import LocationEngine
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
/// The rules live in the `LocationEngine` module: in process, the context hands the API's calls to
/// an `AppEngine` of its own; in client mode, to gpslocd, which runs the same engine for the
/// app. Either way it hands back the engine's values (`LiveUpdates`, sessions, monitors), which
/// `OpenCoreLocation`'s types wrap and gpsloc prints as they are.
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

    public let configuration: Configuration
    /// Whether this context's receiver has sent a heading to anyone iterating its updates:
    /// what `CLLocationManager.headingAvailable()` says.
    package let headingSeen = Atomic<Bool>(false)
    var client: String { configuration.client }
    var log: @Sendable (String) -> Void { configuration.log }

    /// The engine: the app's own in process; in client mode a detached one, which decides nothing
    /// of the daemon's but keeps the observers and answers what the daemon does not.
    let engine: AppEngine

    /// The daemon this context is a client of; `nil` when the engine runs in this process.
    let remote: DaemonClient?

    private struct WeakMonitor {
        weak var core: RemoteMonitor?
    }

    /// The daemon's monitors by name, in client mode: opening a name again gives the same one.
    private let remoteMonitors = Mutex<[String: WeakMonitor]>([:])

    /// Forwards the app's activity to the daemon, in client mode.
    private let activityToken: Int?

    /// A context that runs the engine in this process, over `configuration`'s receiver.
    public convenience init(_ configuration: Configuration) {
        self.init(configuration, remote: nil)
    }

    /// A context in client mode: gpslocd decides; `configuration` names the app for the log
    /// and keeps its monitors.
    init(_ configuration: Configuration, remote: DaemonClient?) {
        self.configuration = configuration
        self.remote = remote
        engine = AppEngine(configuration, detached: remote != nil)
        activityToken = remote.map { remote in configuration.activity.observe { remote.setInUse($0) } }
        remote?.onAuthorizationChange { [engine] in engine.notifyAuthorizationObservers() }
    }

    deinit {
        remote?.stop()
        if let activityToken { configuration.activity.removeObserver(activityToken) }
    }

    /// The receiver's fixes whole while the app may have precise locations, beside its updates
    /// (for a command that prints gpsd's reports); `nil` in client mode, where gpslocd serves them
    /// through gpsd's protocol instead.
    package func subscribePreciseFixes() -> Mailbox<Fix>? {
        remote == nil ? engine.subscribePreciseFixes() : nil
    }

    /// The monitor called `name`: the daemon's in client mode (its conditions fetched before it
    /// is returned), else one kept and evaluated by this process's engine.
    package func monitor(named name: String) async -> any MonitorBackend {
        guard let remote else { return engine.monitor(named: name) }
        let monitor = remoteMonitors.withLock { monitors -> RemoteMonitor in
            if let core = monitors[name]?.core { return core }
            monitors = monitors.filter { $0.value.core != nil }
            let core = RemoteMonitor(name: name, client: remote, log: configuration.log)
            monitors[name] = WeakMonitor(core: core)
            return core
        }
        await monitor.loaded()
        return monitor
    }

    /// Reads the store again (another process changed it).
    public func reloadStore() {
        engine.reloadStore()
    }

    // MARK: Sessions

    package func addSession(_ requirement: SessionRequirement) -> Int {
        if let remote {
            return remote.openSession(
                level: WireLevel(requirement.level), purposeKey: requirement.purposeKey, background: false)
        }
        return engine.addSession(requirement)
    }

    /// A background activity session: it keeps the app in use only if it starts in use.
    package func addBackgroundActivitySession() -> Int {
        if let remote { return remote.openSession(level: .none, purposeKey: nil, background: true) }
        return engine.addBackgroundActivitySession()
    }

    package func removeSession(_ id: Int) {
        if let remote { return remote.closeSession(id) }
        engine.removeSession(id)
    }

    /// The flags of a session's diagnostics: the current ones at once, then every change.
    package func subscribeDiagnostics(session: Int) -> Mailbox<AuthorizationFlags> {
        if let remote { return remote.subscribeDiagnostics(session: session) }
        return engine.subscribeDiagnostics(session: session)
    }

    // MARK: Updates

    /// A subscription to updates; it holds an implicit when-in-use session while it lasts (unless
    /// `implicitSession` is false, for the delegate API). `wantsReduced`: reduced locations
    /// whatever the authorization allows.
    package func subscribeUpdates(
        configuration live: ActivityProfile, monitoring: Bool = false,
        wantsReduced: Bool = false, continuous: Bool = false, implicitSession: Bool = true
    ) -> Mailbox<LocationUpdate> {
        if let remote {
            return remote.subscribeUpdates(
                configuration: live.rawValue, monitoring: monitoring, reduced: wantsReduced,
                continuous: continuous, implicitSession: implicitSession,
                capacity: AppEngine.subscriberCapacity)
        }
        return engine.subscribeUpdates(
            profile: live, monitoring: monitoring, wantsReduced: wantsReduced, continuous: continuous,
            implicitSession: implicitSession)
    }

    // MARK: Manager

    package var authorizationStatus: AuthorizationStatus {
        if let remote { return AuthorizationStatus(name: remote.authorization.status) ?? .notDetermined }
        return engine.authorizationStatus
    }

    package var accuracyAuthorization: AccuracyAuthorization {
        if let remote {
            return AccuracyAuthorization(name: remote.authorization.accuracy) ?? .reducedAccuracy
        }
        return engine.accuracyAuthorization
    }

    package var servicesEnabled: Bool {
        if let remote { return remote.authorization.servicesEnabled }
        return engine.servicesEnabled
    }

    package func requestAuthorization(_ level: SessionLevel) {
        if let remote { return remote.requestAuthorization(level == .always ? .always : .whenInUse) }
        engine.requestAuthorization(level)
    }

    /// Asks for temporary full accuracy under `purposeKey`: of gpslocd in client mode, which
    /// holds the app's manifest and asks its user; `completion` gets `nil` when granted.
    package func requestTemporaryFullAccuracy(
        purposeKey: String, completion: @escaping @Sendable (AccuracyRequestRefusal?) -> Void
    ) {
        if let remote {
            return remote.requestTemporaryFullAccuracy(purposeKey: purposeKey, completion: completion)
        }
        engine.requestTemporaryFullAccuracy(purposeKey: purposeKey, completion: completion)
    }

    package func observeAuthorization(_ observer: @escaping @Sendable () -> Void) -> Int {
        engine.observeAuthorization(observer)
    }

    package func removeAuthorizationObserver(_ id: Int) {
        engine.removeAuthorizationObserver(id)
    }
}
