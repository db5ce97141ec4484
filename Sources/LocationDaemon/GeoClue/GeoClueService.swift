// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CGeoClueBus
import CLinux
import CSDBus
import FoundationEssentials
import GNSS
@_spi(FrontEnd) import LocationEngine
import LocationWire
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// GeoClue2's D-Bus API (`org.freedesktop.GeoClue2` on the system bus, as GeoClue 2.6 documents
/// it) over gpslocd's engine: Firefox, GNOME Maps and every other GeoClue app get the receiver's
/// fixes under the decision gpslocd keeps for the program the kernel says is calling.
///
/// A caller is known from the bus daemon's word (`GetConnectionCredentials`: its uid and pid,
/// and its pidfd where the bus gives one), pinned by a pidfd and identified as a socket client
/// is. `DesktopId` is only shown beside that identity; it never chooses a decision. A `Client`
/// answers its owner alone, and its signals go to its owner alone.
public final class GeoClueService: FrontEnd, BusService {
    static let clientsPerConnection = 16
    static let clientsPerUser = 256

    struct State {
        var bus: BusConnection?
        var clients: [String: GeoClueClient] = [:]
        var nextClient = 0
        var inUse = false
    }

    let daemon: Daemon
    private let peers: BusPeers
    private let agents: GeoClueAgents
    let state = Mutex(State())
    private let inUseObserver = Mutex(0)
    let clock = ContinuousClock()
    let started = ContinuousClock.now

    public init(daemon: Daemon) {
        self.daemon = daemon
        peers = BusPeers(daemon: daemon)
        agents = GeoClueAgents(daemon: daemon)
        // Told under the ledger's lock: the change goes to a task, which reads the ledger anew.
        let observer = daemon.activity.observeInUse { [weak self] _ in
            Task { self?.inUseChanged() }
        }
        inUseObserver.withLock { $0 = observer }
    }

    deinit { daemon.activity.removeInUseObserver(inUseObserver.withLock { $0 }) }

    /// Connects to the system bus and owns `org.freedesktop.GeoClue2`; throws, saying why,
    /// when it cannot (no bus, the name owned by another service, a policy that forbids it).
    public func connect() throws(GeoClueServiceError) {
        do {
            let bus = try openBus()
            state.withLock { $0.bus = bus }
        } catch {
            throw GeoClueServiceError(description: "GeoClue2 is not served: \(Self.explain(error))")
        }
        daemon.log("serving GeoClue2 (org.freedesktop.GeoClue2) on the system bus")
    }

    public var name: String { "GeoClue2" }

    /// Serves the bus ``connect()`` reached until cancelled; a lost bus is connected again every
    /// 2 seconds.
    public func run() async {
        await BusServing(
            label: "GeoClue2", daemon: daemon, open: openBus, explain: Self.explain,
            adopt: { [self] bus in state.withLock { $0.bus = bus } }, forget: forgetEverything
        ).run(first: state.withLock { $0.bus })
    }

    /// A connection of the system bus for GeoClue2's objects, owning its name.
    private func openBus() throws(BusError) -> BusConnection {
        try BusConnection(for: self) { ocl_geoclue_open($0, $1, $2) }
    }

    /// What a failure to reach the bus means, and what fixes it.
    private static func explain(_ error: BusError) -> String {
        guard error.isNameRefused else { return error.description }
        return "\(error): another service owns it (GeoClue itself? `systemctl disable --now geoclue.service; "
            + "systemctl mask geoclue.service`), or the bus's policy does not let this user own it "
            + "(install /usr/share/dbus-1/system.d/org.freedesktop.GeoClue2.gpslocd.conf)"
    }

    /// The bus was lost: every client stops, every agent and identity is forgotten.
    private func forgetEverything() {
        let (clients, bus) = state.withLock { state in
            defer {
                state = State()
            }
            return (Array(state.clients.values), state.bus)
        }
        withExtendedLifetime(bus) {
            for client in clients {
                stopRunning(client.running)
                // The bus thread has ended: the slots are let go here, before the bus is.
                for slot in ([client.slot] + client.published.map(\.slot)).compactMap({ $0 }) {
                    sd_bus_slot_unref(slot)
                }
            }
        }
        agents.forgetAll()
        peers.forgetAll()
    }

    // MARK: The bus's calls (on the bus thread)

    var bus: OpaquePointer? { state.withLock { $0.bus?.bus } }

    func method(_ call: OpaquePointer, path: String, interface: String, member: String) -> Int32 {
        let sender = sd_bus_message_get_sender(call).map { String(cString: $0) } ?? ""
        switch (interface, member) {
        case ("org.freedesktop.GeoClue2.Manager", "GetClient"):
            return makeClient(call, sender: sender, shared: true)
        case ("org.freedesktop.GeoClue2.Manager", "CreateClient"):
            return makeClient(call, sender: sender, shared: false)
        case ("org.freedesktop.GeoClue2.Manager", "DeleteClient"):
            var argument: UnsafePointer<CChar>?
            guard ocl_read_string_argument(call, CChar(UInt8(ascii: "o")), &argument) >= 0, let argument
            else {
                return reply(
                    call, error: "org.freedesktop.DBus.Error.InvalidArgs", "DeleteClient takes an object path"
                )
            }
            let target = String(cString: argument)
            guard let client = state.withLock({ $0.clients[target] }), client.owner == sender else {
                return reply(
                    call, error: "org.freedesktop.DBus.Error.AccessDenied",
                    "\(target) is not a client of yours")
            }
            remove(target)
            return ocl_reply_empty(call)
        case ("org.freedesktop.GeoClue2.Manager", "AddAgent"):
            return addAgent(call, sender: sender)
        case ("org.freedesktop.GeoClue2.Client", "Start"): return start(call, path: path, sender: sender)
        case ("org.freedesktop.GeoClue2.Client", "Stop"):
            guard owned(path, by: sender) else { return denied(call, path) }
            stop(path)
            return ocl_reply_empty(call)
        default:
            return reply(
                call, error: "org.freedesktop.DBus.Error.UnknownMethod", "no method \(interface).\(member)")
        }
    }

    func get(
        _ reply: OpaquePointer, path: String, interface: String, property: String, sender: String,
        error: UnsafeMutablePointer<sd_bus_error>?
    ) -> Int32 {
        if interface == "org.freedesktop.GeoClue2.Manager" {
            switch property {
            case "InUse": return ocl_append_bool(reply, daemon.activity.isInUse)
            default: return ocl_append_uint32(reply, availableLevel(for: sender))
            }
        }
        if interface == "org.freedesktop.GeoClue2.Location" {
            let clientPath = String(path[..<(path.firstRange(of: "/Location/")?.lowerBound ?? path.endIndex)])
            let found = state.withLock { state -> GeoClueClient.Place?? in
                guard let client = state.clients[clientPath], client.owner == sender else { return nil }
                return .some(
                    client.published.first { $0.path == path }?.place)
            }
            guard let found, let place = found else { return Self.refuse(error, path) }
            switch property {
            case "Latitude": return ocl_append_double(reply, place.latitude)
            case "Longitude": return ocl_append_double(reply, place.longitude)
            case "Accuracy": return ocl_append_double(reply, place.accuracy)
            case "Altitude": return ocl_append_double(reply, place.altitude)
            case "Speed": return ocl_append_double(reply, place.speed)
            case "Heading": return ocl_append_double(reply, place.heading)
            case "Description": return ocl_append_string(reply, "")
            default: return ocl_append_timestamp(reply, place.seconds, place.microseconds)
            }
        }
        guard let client = state.withLock({ $0.clients[path] }), client.owner == sender else {
            return Self.refuse(error, path)
        }
        switch property {
        case "Location": return ocl_append_object_path(reply, client.locationPath)
        case "DistanceThreshold": return ocl_append_uint32(reply, client.distanceThreshold)
        case "TimeThreshold": return ocl_append_uint32(reply, client.timeThreshold)
        case "DesktopId": return ocl_append_string(reply, client.desktopId)
        case "RequestedAccuracyLevel": return ocl_append_uint32(reply, client.requestedLevel)
        default: return ocl_append_bool(reply, client.isActive)
        }
    }

    func set(
        _ value: OpaquePointer, path: String, property: String, sender: String,
        error: UnsafeMutablePointer<sd_bus_error>?
    ) -> Int32 {
        guard owned(path, by: sender) else { return Self.refuse(error, path) }
        if property == "DesktopId" {
            var text: UnsafePointer<CChar>?
            let read = ocl_read_string(value, &text)
            guard read >= 0, let text else { return read }
            // A label, shown beside the verified identity; never longer than a desktop file's name.
            let label = String(String(cString: text).prefix(255))
            state.withLock { $0.clients[path]?.desktopId = label }
            return 0
        }
        var number: UInt32 = 0
        let read = ocl_read_uint32(value, &number)
        guard read >= 0 else { return read }
        state.withLock { state in
            switch property {
            case "DistanceThreshold": state.clients[path]?.distanceThreshold = number
            case "TimeThreshold": state.clients[path]?.timeThreshold = number
            default: state.clients[path]?.requestedLevel = number
            }
        }
        return 0
    }

    /// A connection left the bus: its clients are deleted, its agent is no more.
    func gone(_ name: String) {
        let paths = state.withLock { state in state.clients.values.filter { $0.owner == name }.map(\.path) }
        for path in paths { remove(path) }
        agents.gone(name)
        if let identity = peers.forget(name), !paths.isEmpty {
            daemon.log(
                "GeoClue2: \(identity.summary) left the bus; its \(counted(paths.count, "client is", "clients are")) deleted"
            )
        }
    }

    // MARK: Manager

    private func makeClient(_ call: OpaquePointer, sender: String, shared: Bool) -> Int32 {
        let identity: PeerIdentity
        switch peers.identity(of: sender, on: bus) {
        case .success(let known): identity = known
        case .failure(let refusal):
            return reply(call, error: "org.freedesktop.DBus.Error.AccessDenied", refusal.text)
        }
        let made = state.withLock { state -> Result<(String, Bool), BusRefusal> in
            if shared, let existing = state.clients.values.first(where: { $0.owner == sender && $0.shared }) {
                return .success((existing.path, false))
            }
            let mine = state.clients.values.filter { $0.owner == sender }.count
            guard mine < Self.clientsPerConnection else {
                return .failure(
                    BusRefusal(
                        "a connection may hold \(Self.clientsPerConnection) clients; delete one first"))
            }
            let users = state.clients.values.filter { $0.identity.uid == identity.uid }.count
            guard users < Self.clientsPerUser else {
                return .failure(
                    BusRefusal("uid \(identity.uid) holds \(Self.clientsPerUser) clients already"))
            }
            state.nextClient += 1
            let path = "/org/freedesktop/GeoClue2/Client/\(state.nextClient)"
            state.clients[path] = GeoClueClient(path: path, owner: sender, identity: identity, shared: shared)
            return .success((path, true))
        }
        switch made {
        case .failure(let refusal):
            return reply(call, error: "org.freedesktop.DBus.Error.LimitsExceeded", refusal.text)
        case .success((let path, let new)):
            if new {
                var slot: OpaquePointer?
                let added = ocl_geoclue_add_client(bus, &slot, path, state.withLock { $0.bus?.callback })
                guard added >= 0 else {
                    _ = state.withLock { $0.clients.removeValue(forKey: path) }
                    return added
                }
                state.withLock { $0.clients[path]?.slot = slot }
            }
            return ocl_reply_object_path(call, path)
        }
    }

    /// `AvailableAccuracyLevel` for the caller: what its decision lets it have.
    private func availableLevel(for sender: String) -> UInt32 {
        guard case .success(let identity) = peers.identity(of: sender, on: bus) else {
            return GeoClueAccuracy.none
        }
        let snapshot = try? daemon.stores.store(uid: identity.uid).load()
        return GeoClueAccuracy.available(
            snapshot?.clients[identity.app], servicesEnabled: snapshot?.servicesEnabled ?? true,
            restricted: snapshot.map { $0.restrictAll || $0.restrictedClients.contains(identity.app) }
                ?? false)
    }

    /// `AddAgent`: the caller answers its user's questions from now on, as `gpsloc agent` does.
    private func addAgent(_ call: OpaquePointer, sender: String) -> Int32 {
        let identity: PeerIdentity
        switch peers.identity(of: sender, on: bus) {
        case .success(let known): identity = known
        case .failure(let refusal):
            return reply(call, error: "org.freedesktop.DBus.Error.AccessDenied", refusal.text)
        }
        do {
            try agents.add(sender, identity: identity) { [weak self] in self?.state.withLock { $0.bus } }
        } catch {
            return reply(call, error: "org.freedesktop.DBus.Error.AccessDenied", error.description)
        }
        return ocl_reply_empty(call)
    }

    /// An agent's `AuthorizeApp` answer.
    func replied(token: UInt64, reply: OpaquePointer) {
        var (failed, authorized, level) = (true, false, UInt32(0))
        ocl_geoclue_read_authorization(reply, &failed, &authorized, &level)
        agents.authorized(token: token, failed: failed, authorized: authorized, level: level)
    }

    // MARK: Replies

    func reply(_ call: OpaquePointer, error name: String, _ message: String) -> Int32 {
        ocl_reply_error(call, name, message)
    }

    func denied(_ call: OpaquePointer, _ path: String) -> Int32 {
        reply(call, error: "org.freedesktop.DBus.Error.AccessDenied", "\(path) is not a client of yours")
    }

    private static func refuse(_ error: UnsafeMutablePointer<sd_bus_error>?, _ path: String) -> Int32 {
        sd_bus_error_set(error, "org.freedesktop.DBus.Error.AccessDenied", "\(path) is not yours")
    }
}

/// Why GeoClue2 could not be served.
public struct GeoClueServiceError: Error, CustomStringConvertible {
    public var description: String
}
