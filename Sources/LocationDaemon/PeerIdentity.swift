// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import LocationWire
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the kernel said about a connection's peer when it connected (`SO_PEERCRED`), and a
/// pidfd that pins the process (`SO_PEERPIDFD`) where the kernel has one.
public struct PeerCredentials: Sendable, Hashable {
    public var uid: UInt32
    public var gid: UInt32
    public var pid: Int32
    /// Refers to the peer process itself, not to whatever later reuses its pid.
    public var pidfd: FileDescriptor?

    public init(uid: UInt32, gid: UInt32, pid: Int32, pidfd: FileDescriptor?) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        self.pidfd = pidfd
    }

    /// Whether the peer still runs: a pidfd becomes readable when its process exits. Without a
    /// pidfd, whether some process has the pid (which may have been reused).
    public var isAlive: Bool {
        if let pidfd {
            var entry = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 0
        }
        return kill(pid, 0) == 0 || errno == EPERM
    }
}

/// A client as the daemon knows it: who it is by the kernel's word, and the manifest an
/// administrator registered for it (none for an unregistered program).
public struct PeerIdentity: Sendable, Hashable {
    public var credentials: PeerCredentials
    public var wire: WireIdentity
    public var manifest: Manifest
    /// The peer's supplementary groups, for the administrators' group.
    public var groups: [UInt32]

    public var app: String { wire.app }
    public var uid: UInt32 { credentials.uid }

    /// Identifies the peer: a Flatpak app id from its cgroup, else a systemd unit from its
    /// cgroup, else its executable matched against the registrations. `nil` when the process
    /// exited while it was looked at (what was read may describe another process).
    public static func identify(_ credentials: PeerCredentials, registry: AppRegistry) -> PeerIdentity? {
        let pid = credentials.pid
        let placement = ProcessFacts.placement(pid: pid)
        let executable = ProcessFacts.executable(pid: pid)
        let groups = ProcessFacts.groups(pid: pid)
        guard credentials.isAlive else { return nil }
        var registration: AppRegistration?
        let app: String
        if let flatpak = placement.flatpak {
            registration = registry.registration(forApp: flatpak)
            app = flatpak
        } else if let unit = placement.unit, let registered = registry.registration(forUnit: unit) {
            registration = registered
            app = registered.app
        } else if let executable, let registered = registry.registration(forExecutable: executable) {
            registration = registered
            app = registered.app
        } else if let unit = placement.unit {
            app = "unit:" + unit
        } else {
            app = executable ?? "pid:\(pid)"
        }
        return PeerIdentity(
            credentials: credentials,
            wire: WireIdentity(
                app: app, uid: Int(credentials.uid), pid: Int(pid), executable: executable,
                unit: placement.unit,
                flatpak: placement.flatpak, registered: registration != nil),
            manifest: registration?.manifest ?? Manifest(), groups: groups)
    }

    /// Whether the peer runs as a service (a systemd unit, or no terminal at all): never in use.
    public var isService: Bool { wire.unit != nil }

    /// In the foreground of its terminal now, by `/proc`; a service never is.
    public var isForeground: Bool {
        guard !isService, let state = ProcessFacts.terminalState(pid: credentials.pid), credentials.isAlive
        else {
            return false
        }
        return state.isForeground
    }

    /// How the identity reads in the log and in prompts.
    public var summary: String {
        var parts = ["\(app) (uid \(credentials.uid), pid \(credentials.pid)"]
        if let unit = wire.unit { parts.append("unit \(unit)") }
        if let executable = wire.executable, executable != app { parts.append(executable) }
        if !wire.registered { parts.append("unregistered") }
        return parts.joined(separator: ", ") + ")"
    }
}
