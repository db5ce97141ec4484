// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CActivityBus
import CSDBus
import LocationWire
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The live indicator on the system bus (`org.opencorelocation.Activity`, object
/// `/org/opencorelocation/Activity`, interface `org.opencorelocation.Activity1`): which programs
/// are served location now, on every front-end, each by its verified identity and proof (never a
/// name it chose, such as GeoClue's `DesktopId`), its protocol, its accuracy and since when.
///
/// Each connection on the bus sees its own user's programs; root and the administrators' group
/// see everyone's; a sandboxed program sees nothing. `Programs` answers each reader with its own
/// view, and every change is told as `PropertiesChanged` to each connection whose view it
/// changed, alone — nobody learns of another user's programs, not even that they changed.
public final class ActivityIndicator: FrontEnd, BusService {
    /// What a connection on the bus may see.
    private enum View: Hashable {
        case user(UInt32)
        case everyone
        case nothing
    }

    private struct State {
        var bus: BusConnection?
        /// Each connection on the bus, by its unique name, and what it may see.
        var viewers: [String: View] = [:]
        /// The users whose programs changed since the viewers were last told (`nil`: all).
        var changed: Set<UInt32> = []
        var flushQueued = false
        /// Connections listed as the bus was opened, before it could be asked who they are.
        var unknown: [String] = []
    }

    private let daemon: Daemon
    private let peers: BusPeers
    private let state = Mutex(State())
    private let watcher = Mutex<Int?>(nil)

    public init(daemon: Daemon) {
        self.daemon = daemon
        peers = BusPeers(daemon: daemon)
    }

    deinit { if let watcher = watcher.withLock({ $0 }) { daemon.activity.unwatch(watcher) } }

    public var name: String { "activity indicator" }

    /// Connects to the system bus and owns `org.opencorelocation.Activity`; throws, saying why,
    /// when it cannot.
    public func connect() throws(IndicatorError) {
        do {
            let bus = try openBus()
            state.withLock { $0.bus = bus }
        } catch {
            throw IndicatorError(description: "the activity indicator is not served: \(Self.explain(error))")
        }
        let watching = daemon.activity.watch(uid: nil) { [weak self] entry in
            self?.programsChanged(of: entry.uid)
        }
        watcher.withLock { $0 = watching }
        daemon.log("serving the activity indicator (org.opencorelocation.Activity) on the system bus")
    }

    /// Serves the bus until cancelled; a lost bus is connected again every 2 seconds.
    public func run() async {
        await BusServing(
            label: "activity indicator", daemon: daemon, open: openBus, explain: Self.explain,
            adopt: { [self] bus in
                state.withLock { $0.bus = bus }
                bus.perform { [weak self] in self?.identifyListed() }
            }, forget: forgetEverything
        ).run(first: state.withLock { $0.bus })
    }

    /// A connection of the system bus for the indicator's object, owning its name, told of every
    /// connection on the bus now.
    private func openBus() throws(BusError) -> BusConnection {
        let bus = try BusConnection(for: self) { ocl_activity_open($0, $1, $2) }
        // Before the bus thread runs: this thread is the only one on the bus yet.
        _ = ocl_bus_list_connections(bus.bus, bus.callback)
        return bus
    }

    private static func explain(_ error: BusError) -> String {
        guard error.isNameRefused else { return error.description }
        return "\(error): another gpslocd owns it, or the bus's policy does not let this user own it "
            + "(install /usr/share/dbus-1/system.d/org.opencorelocation.Activity.conf)"
    }

    private func forgetEverything() {
        state.withLock { state in
            state.viewers = [:]
            state.changed = []
            state.flushQueued = false
            state.unknown = []
            state.bus = nil
        }
        peers.forgetAll()
    }

    // MARK: The bus's calls (on the bus thread)

    private var bus: OpaquePointer? { state.withLock { $0.bus?.bus } }

    func method(_ call: OpaquePointer, path: String, interface: String, member: String) -> Int32 {
        ocl_reply_error(call, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(interface).\(member)")
    }

    func get(
        _ reply: OpaquePointer, path: String, interface: String, property: String, sender: String,
        error: UnsafeMutablePointer<sd_bus_error>?
    ) -> Int32 {
        let programs: [WireAccess]
        switch view(of: sender) {
        case .nothing:
            return sd_bus_error_set(
                error, "org.freedesktop.DBus.Error.AccessDenied",
                "a sandboxed program, or one gpslocd cannot identify, sees no program's use of location")
        case .everyone: programs = daemon.activity.programs(visibleTo: nil)
        case .user(let uid): programs = daemon.activity.programs(visibleTo: uid)
        }
        if property == "InUse" { return ocl_append_bool(reply, !programs.isEmpty) }
        return IndicatorMessages.append(programs, to: reply)
    }

    func set(
        _ value: OpaquePointer, path: String, property: String, sender: String,
        error: UnsafeMutablePointer<sd_bus_error>?
    ) -> Int32 {
        sd_bus_error_set(error, "org.freedesktop.DBus.Error.PropertyReadOnly", "\(property) is read-only")
    }

    /// A connection joined the bus: what it may see is settled now, from the bus daemon's word,
    /// so that it hears of the changes it may see from the first.
    func arrived(_ name: String) {
        // Listed while the bus is being opened: asked about once it is served.
        let listing = state.withLock { state -> Bool in
            guard state.bus == nil else { return false }
            state.unknown.append(name)
            return true
        }
        if !listing { _ = view(of: name) }
    }

    /// Settles what each connection listed at the bus's opening may see.
    private func identifyListed() {
        let listed = state.withLock { state in
            defer { state.unknown = [] }
            return state.unknown
        }
        for name in listed { _ = view(of: name) }
    }

    func gone(_ name: String) {
        _ = state.withLock { $0.viewers.removeValue(forKey: name) }
        peers.forget(name)
    }

    func replied(token: UInt64, reply: OpaquePointer) {}

    /// What the connection `name` may see, settled the first time it is asked for.
    private func view(of name: String) -> View {
        if let known = state.withLock({ $0.viewers[name] }) { return known }
        let view: View
        switch peers.identity(of: name, on: bus) {
        case .failure: view = .nothing
        case .success(let identity):
            if identity.sandbox != nil {
                view = .nothing
            } else if daemon.isAdministrator(identity) {
                view = .everyone
            } else {
                view = .user(identity.uid)
            }
            // Only the verdict is kept: the identity's pidfd is not held for every connection on the bus.
            peers.forget(name)
        }
        state.withLock { $0.viewers[name] = view }
        return view
    }

    // MARK: Changes

    /// A program of `uid` began or ended a period: the viewers who see it are told, on the bus
    /// thread, once for however many changes came in between. Under the ledger's lock.
    private func programsChanged(of uid: UInt32) {
        let (queue, bus) = state.withLock { state -> (Bool, BusConnection?) in
            state.changed.insert(uid)
            defer { state.flushQueued = true }
            return (!state.flushQueued, state.bus)
        }
        if queue { bus?.perform { [weak self] in self?.flush() } }
    }

    /// Tells each viewer whose view changed what it sees now.
    private func flush() {
        let (changed, viewers) = state.withLock { state in
            defer {
                state.changed = []
                state.flushQueued = false
            }
            return (state.changed, state.viewers)
        }
        guard let bus, !changed.isEmpty else { return }
        var everyone: [WireAccess]?
        var byUser: [UInt32: [WireAccess]] = [:]
        for (name, view) in viewers {
            switch view {
            case .nothing: continue
            case .everyone:
                if everyone == nil { everyone = daemon.activity.programs(visibleTo: nil) }
                _ = IndicatorMessages.emitChanged(everyone ?? [], on: bus, to: name)
            case .user(let uid):
                guard changed.contains(uid) else { continue }
                if byUser[uid] == nil { byUser[uid] = daemon.activity.programs(visibleTo: uid) }
                _ = IndicatorMessages.emitChanged(byUser[uid] ?? [], on: bus, to: name)
            }
        }
    }
}

/// Why the activity indicator could not be served.
public struct IndicatorError: Error, CustomStringConvertible {
    public var description: String
}
