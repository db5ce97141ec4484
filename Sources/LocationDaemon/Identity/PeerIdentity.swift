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

/// How a client's identity was established: what the kernel vouches for, from strongest to
/// weakest. Prompts and the log say it, so a user can tell an app from a namesake.
public enum IdentityBasis: Sendable, Hashable {
    /// A service of the system manager: its name was chosen by root.
    case systemUnit(String)
    /// A service of the user's own manager: its name was chosen by that user, and proves little.
    case userUnit(String)
    /// A process in that Flatpak app's sandbox.
    case flatpak(String)
    /// A process under that snap's AppArmor confinement.
    case snap(String)
    /// A registered executable its user could not have replaced.
    case registeredExecutable(String)
    /// The executable (its path) that a desktop entry of the system's application directories
    /// runs, where its user could have replaced neither the entry nor the program.
    case desktopEntry(DesktopEntry, executable: String)
    /// Anything else: the program at that path (`nil` when it could not be read).
    case program(String?)
    /// A program whose path in `/proc` is not the file installed there (a mount namespace of its
    /// own shows another file under that name).
    case unverifiedProgram(String)
    /// A client of gpsd's protocol at that address that no process of this machine owns: an
    /// administrator's grant to its address block is all that speaks for it.
    case network(String)

    /// How the identity was established, as the prompt and the log put it.
    public var proof: String {
        switch self {
        case .systemUnit(let unit): "system unit \(unit)"
        case .userUnit(let unit): "user unit \(unit), a name its user chose"
        case .flatpak(let app): "Flatpak sandbox of \(app)"
        case .snap(let snap): "snap \(snap), by its AppArmor label"
        case .registeredExecutable(let path): "registered executable \(path), which its user cannot replace"
        case .desktopEntry(let entry, let path):
            "desktop entry \(entry.path), whose program \(path) its user cannot replace"
        case .program(let path?): "unregistered program at \(path)"
        case .program(nil): "unregistered program whose executable cannot be read"
        case .unverifiedProgram(let path): "program shown as \(path), which is not the file installed there"
        case .network(let address): "network client at \(address), known by its address alone"
        }
    }
}

/// A client as the daemon knows it: who it is by the kernel's word, how that was established,
/// and the manifest an administrator registered for it (none for an unregistered program).
public struct PeerIdentity: Sendable, Hashable {
    public var credentials: PeerCredentials
    public var wire: WireIdentity
    public var manifest: Manifest
    /// The peer's supplementary groups, for the administrators' group.
    public var groups: [UInt32]
    public var basis: IdentityBasis
    /// Why the peer counts as sandboxed (`nil` outside any sandbox): a sandboxed program may not
    /// speak for its user, and a terminal it opened itself does not make it in use.
    public var sandbox: String?
    /// What identification refused to take the peer for, and why: for the log.
    public var notes: [String]

    public var app: String { wire.app }
    public var uid: UInt32 { credentials.uid }

    /// Identifies the peer: a Flatpak app id from its sandbox, a snap from its AppArmor label, a
    /// registered system unit, a registered user unit, a registered executable its user could
    /// not have replaced, the desktop entry that runs its executable (outside a system unit),
    /// else an unregistered unit or program. `nil` when the process exited while
    /// it was looked at (what was read may describe another process).
    public static func identify(_ credentials: PeerCredentials, registry: AppRegistry) -> PeerIdentity? {
        let pid = credentials.pid
        let placement = ProcessFacts.placement(pid: pid)
        let executable = ProcessFacts.executable(pid: pid)
        let groups = ProcessFacts.groups(pid: pid)
        var notes: [String] = []
        var flatpak: String?
        if let scope = placement.flatpakScope {
            switch FlatpakSandbox.verify(pid: pid, placement: placement, scope: scope) {
            case .success(let app): flatpak = app
            case .failure(let refusal):
                notes.append(
                    "its cgroup names the Flatpak app \(scope.app), but \(refusal): it is not taken for that app"
                )
            }
        }
        let snap = SnapConfinement.label(pid: pid).flatMap(SnapConfinement.snap(label:))
        let sandbox = Self.sandbox(pid: pid, placement: placement, flatpak: flatpak, snap: snap)
        let (registration, basis) = match(
            credentials, placement: placement, executable: executable, flatpak: flatpak, snap: snap,
            groups: groups, registry: registry, notes: &notes)
        guard credentials.isAlive else { return nil }
        let app: String
        if let registration {
            app = registration.app
        } else {
            switch basis {
            case .flatpak(let id): app = "flatpak:" + id
            case .snap(let name): app = "snap:" + name
            case .systemUnit(let unit): app = "unit:" + unit
            case .userUnit(let unit): app = "user-unit:" + unit
            case .registeredExecutable(let path), .program(let path?): app = path
            case .desktopEntry(let entry, _): app = DesktopEntries.prefix + entry.id
            case .program(nil): app = "pid:\(pid)"
            case .unverifiedProgram(let path): app = "unverified:" + path
            case .network(let address): app = NetworkClients.prefix + address
            }
        }
        var wire = WireIdentity(
            app: app, uid: Int(credentials.uid), pid: Int(pid), executable: executable,
            unit: placement.systemUnit, flatpak: flatpak, registered: registration != nil)
        wire.userUnit = placement.userUnit
        wire.snap = snap
        wire.proof = basis.proof
        wire.sandboxed = sandbox != nil
        var manifest = registration?.manifest ?? Manifest()
        if case .desktopEntry(let entry, _) = basis {
            wire.desktopEntry = entry.id
            manifest.whenInUseUsageDescription = entry.usageDescription
        }
        return PeerIdentity(
            credentials: credentials, wire: wire, manifest: manifest,
            groups: groups, basis: basis, sandbox: sandbox, notes: notes)
    }

    /// The registration that covers the peer, and how the peer was known.
    private static func match(
        _ credentials: PeerCredentials, placement: ProcessFacts.Placement, executable: String?,
        flatpak: String?, snap: String?, groups: [UInt32], registry: AppRegistry, notes: inout [String]
    ) -> (AppRegistration?, IdentityBasis) {
        if let flatpak { return (registry.registration(forFlatpak: flatpak), .flatpak(flatpak)) }
        if let snap { return (registry.registration(forSnap: snap), .snap(snap)) }
        if let unit = placement.systemUnit, let registered = registry.registration(forUnit: unit) {
            return (registered, .systemUnit(unit))
        }
        if let unit = placement.userUnit {
            if let registered = registry.registration(forUserUnit: unit) {
                return (registered, .userUnit(unit))
            }
            if let system = registry.registration(forUnit: unit) {
                notes.append(
                    "it runs as \(unit) of uid \(credentials.uid)'s own manager, not the system's: "
                        + "\(system.app)'s registration covers the system unit only")
            }
        }
        var verified: String?
        if let executable {
            if ExecutableTrust.isRunning(executable, pid: credentials.pid) {
                verified = executable
            } else if !executable.hasSuffix(" (deleted)") {
                notes.append(
                    "its executable shows as \(executable), but that is not the file installed there")
            }
        }
        let reachable = Set(groups + [credentials.gid])
        if let verified, let registered = registry.registration(forExecutable: verified) {
            if let reason = ExecutableTrust.replaceability(
                of: verified, uid: credentials.uid, groups: reachable)
            {
                notes.append(
                    "\(registered.app)'s registration covers \(verified), but \(reason), so that user could "
                        + "have put any program there: it is known as an unregistered program")
            } else {
                return (registered, .registeredExecutable(verified))
            }
        }
        // A service of the system manager is known by its unit, a name root chose; any other
        // process by the desktop entry that runs its executable, if one does.
        if let verified, placement.systemUnit == nil {
            switch registry.desktopEntries.proof(
                forExecutable: verified, pid: credentials.pid, uid: credentials.uid, groups: reachable)
            {
            case .entry(let entry): return (nil, .desktopEntry(entry, executable: verified))
            case .refused(let reason): notes.append(reason)
            case .none: break
            }
        }
        if let unit = placement.systemUnit { return (nil, .systemUnit(unit)) }
        if let unit = placement.userUnit { return (nil, .userUnit(unit)) }
        if let executable, verified == nil, !executable.hasSuffix(" (deleted)") {
            return (nil, .unverifiedProgram(executable))
        }
        return (nil, .program(executable))
    }

    /// Why the process counts as sandboxed, or `nil` outside any sandbox. Namespaces that cannot
    /// be read count as a sandbox: a program the daemon cannot see into never speaks for a user.
    private static func sandbox(
        pid: Int32, placement: ProcessFacts.Placement, flatpak: String?, snap: String?
    ) -> String? {
        if let flatpak { return "the Flatpak sandbox of \(flatpak)" }
        if let snap { return "the confinement of the snap \(snap)" }
        if placement.flatpakScope != nil { return "a scope named for a Flatpak app" }
        guard let user = ProcessFacts.namespace("user", pid: pid), let root = ProcessFacts.root(pid: pid)
        else {
            return "namespaces the daemon cannot read"
        }
        if user != HostView.userNamespace { return "a user namespace of its own" }
        if root != HostView.root { return "a root directory of its own" }
        return nil
    }

    /// Whether the process runs as a service (a systemd unit, the system's or its user's): never
    /// in use.
    public var isService: Bool { wire.unit != nil || wire.userUnit != nil }

    /// In the foreground of its terminal now, by `/proc`; a service never is, nor a sandboxed
    /// program whose terminal session began inside a sandbox (it could open a terminal of its own).
    public var isForeground: Bool { foregroundProbe.isForeground }

    /// What ``isForeground`` is decided from, without the rest of the identity.
    public var foregroundProbe: ForegroundProbe {
        var probe = ForegroundProbe(credentials: credentials, isService: isService, sandboxed: sandbox != nil)
        if case .desktopEntry(let entry, _) = basis, !entry.terminal { probe.isDesktopApp = true }
        return probe
    }

    /// What deciding whether a process is in the foreground takes: kept by each connection, and
    /// asked every second for all of them, where copying whole identities (their strings and
    /// arrays) was most of the check's cost.
    public struct ForegroundProbe: Sendable {
        public var credentials: PeerCredentials
        var isService: Bool
        var sandboxed: Bool
        /// A graphical app proven by its desktop entry: in use while it runs, outside a service
        /// and a sandbox (the desktop shows no daemon whether its window is seen, and it has no
        /// terminal to be in the foreground of; docs/desktop-apps.md says why this is the rule).
        var isDesktopApp = false

        public init(credentials: PeerCredentials, isService: Bool, sandboxed: Bool) {
            self.credentials = credentials
            self.isService = isService
            self.sandboxed = sandboxed
        }

        /// ``PeerIdentity/isForeground``.
        public var isForeground: Bool { look(knowing: nil).foreground }

        /// What one look at the process found: whether it is in the foreground; and, when it
        /// has no controlling terminal and does not lead its session, that session, which the
        /// next look may be given as `knowing`.
        public struct Look: Sendable, Hashable {
            public var foreground: Bool
            public var withoutTerminalIn: Int32?

            public init(foreground: Bool, withoutTerminalIn: Int32? = nil) {
                self.foreground = foreground
                self.withoutTerminalIn = withoutTerminalIn
            }
        }

        /// ``isForeground``, told what the last look found (`knowing`, its
        /// ``Look/withoutTerminalIn``). A process that does not lead its session gains no
        /// controlling terminal but by calling `setsid(2)`, which puts it in a session of its
        /// own: while `getsid(2)` still names the session it had, it still has none, and the
        /// look is that call alone rather than reading `/proc/<pid>/stat` (which the kernel
        /// writes out anew each time, about a tenth of a millisecond a second for every
        /// process; `BENCHMARKS.md`, round 2, twenty-second part). It can only conclude "not in
        /// the foreground", never the contrary.
        public func look(knowing withoutTerminalIn: Int32?) -> Look {
            guard !isService else { return Look(foreground: false) }
            if isDesktopApp, !sandboxed { return Look(foreground: credentials.isAlive) }
            let pid = credentials.pid
            if let session = withoutTerminalIn, getsid(pid) == session, credentials.isAlive {
                return Look(foreground: false, withoutTerminalIn: session)
            }
            guard let state = ProcessFacts.terminalState(pid: pid) else { return Look(foreground: false) }
            guard state.isForeground else {
                let session = Int32(exactly: state.session) ?? 0
                // A session of 0 is outside the pid namespace `/proc` was mounted from: not
                // known, so not remembered either.
                let leads = session == pid || session <= 0
                return Look(
                    foreground: false, withoutTerminalIn: state.terminal == 0 && !leads ? session : nil)
            }
            if sandboxed, !PeerIdentity.beganOutsideSandboxes(session: state.session) {
                return Look(foreground: false)
            }
            return Look(foreground: credentials.isAlive)
        }
    }

    /// Whether a terminal session's leader runs outside any sandbox: in the daemon's user
    /// namespace and root, in no scope named for a Flatpak app, under no snap's label.
    static func beganOutsideSandboxes(session leader: Int) -> Bool {
        guard leader > 0, let pid = Int32(exactly: leader) else { return false }
        let placement = ProcessFacts.placement(pid: pid)
        guard placement.flatpakScope == nil,
            SnapConfinement.label(pid: pid).flatMap(SnapConfinement.snap(label:)) == nil,
            ProcessFacts.namespace("user", pid: pid) == HostView.userNamespace,
            ProcessFacts.root(pid: pid) == HostView.root
        else { return false }
        return true
    }

    /// Why the process identified is no longer the program it was (it exited, or became another
    /// program by exec: a connection outlives an exec), `nil` while it is.
    public var changedSinceIdentified: String? {
        let pid = credentials.pid
        guard credentials.isAlive, ProcessFacts.executable(pid: pid) == wire.executable else {
            return "pid \(pid) is no longer the program it was when it connected (\(app)); connect again"
        }
        return nil
    }

    /// How the identity reads in the log and in prompts.
    public var summary: String {
        var parts = ["\(app) (uid \(credentials.uid), pid \(credentials.pid)", basis.proof]
        if let executable = wire.executable, executable != app, !basis.proof.contains(executable) {
            parts.append(executable)
        }
        if let sandbox { parts.append("in \(sandbox)") }
        return parts.joined(separator: ", ") + ")"
    }
}

/// The daemon's own view, which a client's is compared with: its user namespace and its root.
enum HostView {
    static let userNamespace = ProcessFacts.namespace("user", pid: nil)
    static let root = ProcessFacts.root(pid: nil)
}
