// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import LocationEngine
import LocationWire
import Locking

/// What the daemon shares among its connections: the receivers, the decisions, the app
/// registrations, the prompt router and the apps it hosts. Connections come and go through
/// ``DaemonServer``; this type decides what each may do.
public final class Daemon: Sendable {
    public struct Configuration: Sendable {
        /// The receivers by name, the first being the default, each with the identity of the
        /// physical receiver it reads (``GNSSSources/SourceAddress/deviceIdentity``): two names of
        /// one device share it, and the service.
        public var receivers: [Receiver]
        public var stateDirectory: String
        public var appsDirectory: String
        /// The application directories whose desktop entries prove packaged desktop apps, in the
        /// order the desktop looks in (none: no app is proven by a desktop entry).
        public var applicationDirectories: [String] = []
        /// Members of this group may change any user's decisions, as root may.
        public var administratorGroup: UInt32?
        /// How long a vanished client's sessions are kept for it to take back.
        public var gracePeriod: Duration
        /// How many monitors an app and a user may keep, and how many bytes of them.
        public var monitorLimits = MonitorLimits()
        /// How long the access history keeps an entry (`nil`: no history is kept), and how many
        /// bytes of it a user's file may hold.
        public var historyRetention: Duration? = .seconds(7 * 24 * 3600)
        public var historyBytesPerUser = 1 << 20
        public var log: @Sendable (String) -> Void

        public init(
            receivers: [Receiver], stateDirectory: String,
            appsDirectory: String,
            administratorGroup: UInt32?, gracePeriod: Duration = .seconds(10),
            log: @escaping @Sendable (String) -> Void
        ) {
            self.receivers = receivers
            self.stateDirectory = stateDirectory
            self.appsDirectory = appsDirectory
            self.administratorGroup = administratorGroup
            self.gracePeriod = gracePeriod
            self.log = log
        }
    }

    let configuration: Configuration
    let stores: DecisionStores
    let registry: AppRegistry
    let router: PromptRouter
    /// Who uses location now, and the access history.
    let activity: ActivityLedger
    var log: @Sendable (String) -> Void { configuration.log }
    let clients = Mutex<[HostedClient.Key: HostedClient]>([:])
    /// What identification refused, as logged already: each (uid, reason) once, so that a client
    /// reconnecting in a loop does not flood the log.
    private let loggedNotes = Mutex<Set<String>>([])
    /// The secret behind the reduced-accuracy offset, one for the whole machine so that apps
    /// comparing notes, even across users and receivers, meet one offset.
    let reducerSecret: ReducerSecret

    /// Stops every receiver for good, before the event loop they are read on and tell their
    /// clients on goes away (a receiver under two names is stopped once; the second finds it so).
    public func stopReceivers() async {
        for receiver in configuration.receivers { await receiver.service.stop() }
    }

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        do {
            reducerSecret = try ReducerSecret.load(directory: configuration.stateDirectory)
        } catch {
            configuration.log("\(error); using a secret for this run only")
            reducerSecret = .random()
        }
        stores = DecisionStores(stateDirectory: configuration.stateDirectory)
        registry = AppRegistry(
            directory: configuration.appsDirectory,
            applicationDirectories: configuration.applicationDirectories,
            log: configuration.log)
        router = PromptRouter(stores: stores, log: configuration.log)
        registry.desktopEntries.load()
        let history = configuration.historyRetention.map { retention in
            AccessHistory(
                directory: configuration.stateDirectory + "/activity",
                limits: AccessHistory.Limits(
                    retention: retention, bytesPerUser: configuration.historyBytesPerUser),
                log: configuration.log)
        }
        activity = ActivityLedger(history: history)
        if let history {
            let now = Date()
            let ended = history.endInterrupted(now: now)
            if ended > 0 {
                log(
                    "the access history had \(counted(ended, "period", "periods")) the daemon did not see end "
                        + "(it stopped while they lasted): ended now, marked interrupted")
            }
            history.prune(now: now)
        }
    }

    /// Drops the access history's entries older than its retention; gpslocd runs it every hour.
    public func pruneHistory() {
        activity.history?.prune(now: Date())
    }

    /// The daemon stops: every period of use open now ends in the access history.
    public func endActivity() {
        activity.endAll()
        activity.history?.flush()
    }

    /// The app a new connection belongs to, hosted already or made now: one per user, app and
    /// physical receiver, whichever of the receiver's names the connection chose.
    func attach(_ identity: PeerIdentity, receiver: String?) throws(WireError) -> (HostedClient, Int) {
        let service: LocationService?
        let name: String
        if let receiver {
            guard let found = configuration.receivers.first(where: { $0.name == receiver }) else {
                let names = configuration.receivers.map { "'\($0.name)'" }.joined(separator: ", ")
                throw WireError(
                    "there is no receiver '\(receiver)'; the daemon has \(names.isEmpty ? "none" : names)")
            }
            (name, service) = (found.device, found.service)
        } else {
            (name, service) = (
                configuration.receivers.first?.device ?? "", configuration.receivers.first?.service
            )
        }
        let key = HostedClient.Key(uid: identity.uid, app: identity.app, receiver: name)
        let client = clients.withLock { clients in
            clients[key]
                ?? host(
                    key, manifest: identity.manifest, service: service, inUse: identity.isForeground, &clients
                )
        }
        let connection = client.connect(identity)
        client.refreshActivity()
        return (client, connection)
    }

    /// Attaches a program that asks for nothing itself (a gpsd client, a GeoClue app): in use
    /// from now, holding a session for whatever its user decided, Always included (a service, a
    /// logger) or while it is in use. ``UnmodifiedProgram/detach()`` lets it go. A front-end that
    /// refuses some apps outright says so with `refusing`: its text, for an app it refuses,
    /// becomes the error, and the program is let go at once.
    func attachUnmodified(
        _ identity: PeerIdentity, receiver: String?, refusing: (HostedApp) -> String? = { _ in nil }
    ) throws(WireError) -> UnmodifiedProgram {
        let (client, connection) = try attach(identity, receiver: receiver)
        if let refusal = refusing(client.app) {
            detach(client, connection: connection, keeping: [])
            throw WireError(refusal)
        }
        client.activate(connection)
        client.refreshActivity()
        // Always when its user decided it, never asked for: the program asked for nothing.
        let session = client.takeSession(
            level: .always, purposeKey: nil, background: false, asksForAlways: false)
        return UnmodifiedProgram(hub: self, client: client, connection: connection, session: session)
    }

    /// Makes the hosted app for `key` (the caller holds the lock on `clients`).
    private func host(
        _ key: HostedClient.Key, manifest: Manifest, service: LocationService?, inUse: Bool,
        _ clients: inout [HostedClient.Key: HostedClient]
    ) -> HostedClient {
        let latest = HostedClient.LatestIdentity()
        let activity = AppActivity(inUse: inUse)
        let log = log
        let label = "\(key.app) (uid \(key.uid))"
        let app = HostedApp(
            AppEngine.Configuration(
                client: key.app, manifest: manifest, store: stores.store(uid: key.uid),
                prompter: router.prompter(uid: key.uid) { latest.identity }, activity: activity,
                service: service, watchesStore: false, reducerSecret: reducerSecret,
                receiverName: key.receiver,
                log: { log("\(latest.identity?.summary ?? label): \($0)") }))
        let made = HostedClient(key: key, app: app, activity: activity, latest: latest)
        clients[key] = made
        return made
    }

    /// The hosted app that keeps `identity`'s app's monitors: the app on the first receiver,
    /// whichever receiver the connection chose (monitors are evaluated there).
    func monitorHost(for identity: PeerIdentity) -> HostedClient {
        monitorHost(uid: identity.uid, app: identity.app, manifest: identity.manifest)
    }

    private func monitorHost(uid: UInt32, app: String, manifest: Manifest) -> HostedClient {
        let first = configuration.receivers.first
        let key = HostedClient.Key(uid: uid, app: app, receiver: first?.device ?? "")
        return clients.withLock { clients in
            clients[key] ?? host(key, manifest: manifest, service: first?.service, inUse: false, &clients)
        }
    }

    /// The app's monitor `name` for a request of `identity`'s: opened if it is not, when the app
    /// may keep monitors (an administrator registered it, or its user decided on it) and neither
    /// the app nor its user holds as many as they may.
    func monitor(named name: String, for identity: PeerIdentity) throws(WireError) -> HostedMonitor {
        let host = monitorHost(for: identity)
        if host.app.hasMonitor(named: name) { return host.app.monitor(named: name) }
        let limits = configuration.monitorLimits
        if !identity.wire.registered {
            let decided =
                (try? stores.store(uid: identity.uid).load().clients[identity.app])
                .map { $0.decision != .notDetermined } ?? false
            guard decided else {
                throw WireError(
                    "monitors are kept only for an app an administrator registered or its user decided on; "
                        + "\(identity.app) is neither: ask for authorization first")
            }
        }
        guard host.app.monitorCount < limits.perApp else {
            throw WireError(
                "\(identity.app) has \(limits.perApp) monitors already, the most an app may keep; remove one first"
            )
        }
        let held = hosted(uid: identity.uid).reduce(0) { $0 + $1.app.monitorCount }
        guard held < limits.perUser else {
            throw WireError(
                "uid \(identity.uid) has \(limits.perUser) monitors already, the most a user may keep; remove one first"
            )
        }
        return host.app.monitor(named: name)
    }

    /// Refuses a condition when the user's monitors hold as many bytes as they may.
    func checkMonitorBytes(for identity: PeerIdentity) throws(WireError) {
        let limit = configuration.monitorLimits.bytesPerUser
        let bytes = hosted(uid: identity.uid).reduce(0) { $0 + $1.app.storedMonitors.bytes }
        guard bytes < limit else {
            throw WireError(
                "uid \(identity.uid)'s monitors hold \(counted(bytes, "byte", "bytes")), the most a user may keep is \(limit); "
                    + "remove some conditions first")
        }
    }

    /// The apps hosted for user `uid`.
    private func hosted(uid: UInt32) -> [HostedClient] {
        clients.withLock { clients in clients.values.filter { $0.key.uid == uid } }
    }

    /// Opens every monitor stored in the state directory, so that its conditions are evaluated
    /// from the start, whether its app runs or not: the monitors of apps that may keep them (an
    /// administrator registered the app, or its user decided on it), within the limits. The daemon
    /// runs this after it answers on its socket. Returns how many monitors it opened.
    @discardableResult
    public func restoreMonitors() -> Int {
        let started = ContinuousClock.now
        let users = (try? FileManager.default.contentsOfDirectory(atPath: stores.directory)) ?? []
        var opened = 0
        var skipped: [String] = []
        for user in users.sorted() {
            guard let uid = UInt32(user) else { continue }
            let store = stores.store(uid: uid)
            let stored = HostedApp.storedMonitors(storeDirectory: store.directory)
            guard !stored.isEmpty else { continue }
            let decisions = (try? store.load().clients) ?? [:]
            var held = 0
            for (app, names) in stored {
                let registration = registry.registration(forApp: app)
                guard registration != nil || (decisions[app].map { $0.decision != .notDetermined } ?? false)
                else {
                    skipped.append("\(app) (uid \(uid))")
                    continue
                }
                let client = monitorHost(uid: uid, app: app, manifest: registration?.manifest ?? Manifest())
                let limits = configuration.monitorLimits
                for name in names.prefix(limits.perApp) where held < limits.perUser {
                    _ = client.app.monitor(named: name)
                    held += 1
                }
            }
            opened += held
        }
        if !skipped.isEmpty {
            log(
                "monitors of \(counted(skipped.count, "app", "apps")) nobody registered or decided on are not evaluated: "
                    + skipped.prefix(10).joined(separator: ", ") + (skipped.count > 10 ? ", …" : ""))
        }
        if opened > 0 {
            log(
                "evaluating \(counted(opened, "stored monitor", "stored monitors")) (opened in \(started.duration(to: .now)))"
            )
        }
        return opened
    }

    /// A connection ended: its app is kept for the grace period, then let go.
    func detach(_ client: HostedClient, connection: Int, keeping sessions: [HostedClient.Session]) {
        guard let generation = client.disconnect(connection, keeping: sessions) else { return }
        let grace = configuration.gracePeriod
        Task {
            try? await Task.sleep(for: grace)
            guard client.expire(generation: generation) else { return }
            self.clients.withLock { clients in
                // An app with monitored conditions stays: they are evaluated while it does not run.
                if clients[client.key] === client, !client.isConnected, !client.app.hasMonitorConditions {
                    clients[client.key] = nil
                }
            }
        }
    }

    func refreshActivity(of client: HostedClient) { client.refreshActivity() }

    /// Logs why identification did not take a new connection for what it claimed to be.
    func logNotes(of identity: PeerIdentity) {
        for note in identity.notes { logOnce("\(identity.uid) \(note)", "\(identity.summary): \(note)") }
    }

    /// Logs why a program gets no location, and keeps it in the access history, once for each of
    /// its processes and reasons: what its front-end told it (an ERROR, a `why`), or could not
    /// tell it at all (a GeoClue app that is not in use is served silence), for whoever reads the
    /// log or the history to see it too.
    func refused(_ identity: PeerIdentity, via frontEnd: WireAccess.FrontEnd, _ refusal: Refusal) {
        let first = logOnce(
            "refusal \(identity.uid) \(identity.credentials.pid) \(refusal.text)",
            "\(frontEnd.rawValue): \(identity.summary) gets no location: \(refusal.text)")
        if first {
            activity.refused(ActivityLedger.Accessor(identity, via: frontEnd), refusal.reason, refusal.text)
        }
    }

    /// A period of use for a program `identity` names, for its front-end to tell what it delivers.
    func usePeriod(_ identity: PeerIdentity, via frontEnd: WireAccess.FrontEnd) -> UsePeriod {
        activity.period(for: ActivityLedger.Accessor(identity, via: frontEnd))
    }

    /// Logs `message` the first time `key` is seen (of the last 4,096 keys), so that a client
    /// reconnecting in a loop does not flood the log; returns whether it did.
    @discardableResult
    func logOnce(_ key: String, _ message: String) -> Bool {
        let first = loggedNotes.withLock { logged in
            if logged.count >= 4096 { logged.removeAll() }
            return logged.insert(key).inserted
        }
        if first { log(message) }
        return first
    }

    /// Checks every hosted app's "in use" against `/proc`; the server calls it every second.
    public func refreshActivity() {
        for client in clients.withLock({ Array($0.values) }) { client.refreshActivity() }
    }

    /// Logs each time a receiver is reached (with its rate, and whether it gives a pulse per
    /// second) and each time its source ends (a replayed log's end), until cancelled; its
    /// failures the receiver's service logs itself.
    public func logReceiverConnections() async {
        await withDiscardingTaskGroup { group in
            for receiver in distinctReceivers {
                let events = receiver.service.sourceEvents()
                group.addTask { [log] in
                    for await event in events {
                        switch event {
                        case .connected(let what): log("receiver reached: \(what)")
                        case .ended:
                            log(
                                "receiver \(receiver.device): its source ended (a replayed log played to "
                                    + "its end); its clients' updates end, and the next client to ask for it "
                                    + "replays it from the start")
                        default: break
                        }
                    }
                }
            }
        }
    }

    /// The receivers once each: two names of one device are one receiver, served under the first.
    public var distinctReceivers: [Receiver] {
        var seen: Set<String> = []
        return configuration.receivers.filter { seen.insert($0.device).inserted }
    }

    public var receiverCount: Int { distinctReceivers.count }

    /// How many apps are hosted now (kept ones included).
    public var hostedCount: Int { clients.withLock { $0.count } }

    // MARK: Decisions

    func isAdministrator(_ identity: PeerIdentity) -> Bool {
        if identity.uid == 0 { return true }
        guard let group = configuration.administratorGroup else { return false }
        return identity.credentials.gid == group || identity.groups.contains(group)
    }

    /// Refuses a sandboxed program what only its user may do: answer prompts, register as an
    /// agent, read or change decisions. A sandbox cannot speak for its user.
    func requireUnsandboxed(_ identity: PeerIdentity, to what: String) throws(WireError) {
        guard let sandbox = identity.sandbox else { return }
        throw WireError(
            "this program runs in \(sandbox), and a sandboxed program may not \(what); its user answers "
                + "with `gpsloc agent` run outside any sandbox")
    }
}

/// How many monitors the daemon keeps for an app and for a user, and how many bytes of them: each
/// is a file and keeps a subscription to the receiver, so a user's monitors must not grow the
/// daemon without bound.
public struct MonitorLimits: Sendable {
    public var perApp: Int
    public var perUser: Int
    public var bytesPerUser: Int

    public init(perApp: Int = 64, perUser: Int = 256, bytesPerUser: Int = 4 << 20) {
        self.perApp = perApp
        self.perUser = perUser
        self.bytesPerUser = bytesPerUser
    }
}

/// A receiver the daemon serves: the name it was configured by (its source address), the physical
/// receiver it reads, and the service that reads it, shared by every name of one device.
public struct Receiver: Sendable {
    public var name: String
    public var device: String
    public var service: LocationService

    public init(name: String, device: String, service: LocationService) {
        self.name = name
        self.device = device
        self.service = service
    }
}

/// A program attached by ``Daemon/attachUnmodified(_:receiver:)``: its hosted app, its connection
/// there and the session it holds.
struct UnmodifiedProgram: Sendable {
    let hub: Daemon
    let client: HostedClient
    let connection: Int
    let session: HostedClient.Session

    var app: HostedApp { client.app }

    /// The program's connection ended: its app keeps the session for the grace period.
    func detach() { hub.detach(client, connection: connection, keeping: [session]) }
}
