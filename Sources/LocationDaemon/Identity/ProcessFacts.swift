// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What `/proc` says about a process: the facts the daemon identifies a client by and decides
/// "in use" from. The parsers are pure functions of the files' text, tested on their own; the
/// readers take the text from `/proc/<pid>/…`.
public enum ProcessFacts {
    /// Where a process runs, from its cgroup path, read the way systemd lays the tree out: slices
    /// hold units, and a unit's own subtree is its own. The first unit below the root's slices is
    /// the system manager's, named by root; below `user@UID.service` the user's manager runs, and
    /// every name there was chosen by that user.
    public struct Placement: Sendable, Hashable {
        /// A service of the system manager: `name.service` directly below the root's slices.
        public var systemUnit: String?
        /// The uid of the user manager (`user@UID.service`) the process runs under.
        public var userManager: UInt32?
        /// A service of that user's manager: a name its user chose.
        public var userUnit: String?
        /// A scope named like a Flatpak instance's (`app-flatpak-<id>-<n>.scope`): a claim, until
        /// the process is found in that instance's sandbox.
        public var flatpakScope: FlatpakScope?
        /// The cgroup path itself.
        public var path: String = ""

        public init() {}
    }

    /// The app id and number of a scope named `app-flatpak-<id>-<n>.scope`; Flatpak numbers it
    /// with the pid of the process that starts the sandbox.
    public struct FlatpakScope: Sendable, Hashable {
        public var app: String
        public var number: Int32?
    }

    /// Reads `/proc/<pid>/cgroup`'s text: the unified hierarchy's line (`0::/path`), else (on a
    /// hybrid system, where the unified one may say only `/`) the systemd one (`N:name=systemd:/path`).
    public static func placement(cgroupFile text: String) -> Placement {
        var unified: Substring?
        var systemd: Substring?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("0::") {
                unified = line.dropFirst(3)
                continue
            }
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            if fields.count == 3, fields[1] == "name=systemd" { systemd = fields[2] }
        }
        let path = unified.flatMap { $0 == "/" ? nil : $0 } ?? systemd ?? unified
        guard let path else { return Placement() }
        var placement = Placement()
        placement.path = String(path)
        var components = path.split(separator: "/")[...]
        // The system manager's part: slices, then its unit.
        while let first = components.first, first.hasSuffix(".slice") { components.removeFirst() }
        guard let unit = components.popFirst() else { return placement }
        if let uid = userManagerUID(unit) {
            placement.userManager = uid
            while let first = components.first, first.hasSuffix(".slice") { components.removeFirst() }
            guard let userUnit = components.first else { return placement }
            if userUnit.hasSuffix(".service") {
                placement.userUnit = String(userUnit)
            } else {
                placement.flatpakScope = flatpakScope(userUnit)
            }
        } else if unit.hasSuffix(".service") {
            placement.systemUnit = String(unit)
        } else {
            placement.flatpakScope = flatpakScope(unit)
        }
        return placement
    }

    /// `user@1000.service` → 1000.
    private static func userManagerUID(_ component: Substring) -> UInt32? {
        guard component.hasPrefix("user@"), component.hasSuffix(".service") else { return nil }
        return UInt32(component.dropFirst("user@".count).dropLast(".service".count))
    }

    /// `app-flatpak-org.example.App-12345.scope` → (org.example.App, 12345).
    private static func flatpakScope(_ component: Substring) -> FlatpakScope? {
        guard component.hasPrefix("app-flatpak-"), component.hasSuffix(".scope") else { return nil }
        let inner = component.dropFirst("app-flatpak-".count).dropLast(".scope".count)
        if let dash = inner.lastIndex(of: "-"), let number = Int32(inner[inner.index(after: dash)...]) {
            return FlatpakScope(app: String(inner[..<dash]), number: number)
        }
        return FlatpakScope(app: String(inner), number: nil)
    }

    /// The terminal facts of `/proc/<pid>/stat`.
    public struct TerminalState: Sendable, Hashable {
        public var parent: Int = 0
        public var processGroup: Int
        /// The session's leader: the process that began the session (0 when it is outside the
        /// pid namespace `/proc` was mounted from).
        public var session: Int = 0
        /// The controlling terminal's device number; 0 without one.
        public var terminal: Int
        /// The terminal's foreground process group; -1 without a terminal.
        public var foregroundGroup: Int

        public init(
            parent: Int = 0, processGroup: Int, session: Int = 0, terminal: Int, foregroundGroup: Int
        ) {
            self.parent = parent
            self.processGroup = processGroup
            self.session = session
            self.terminal = terminal
            self.foregroundGroup = foregroundGroup
        }

        /// In the foreground of its terminal: what "in use" means for a command-line program.
        public var isForeground: Bool { terminal != 0 && processGroup == foregroundGroup }
    }

    /// Reads `/proc/<pid>/stat`'s text. The command name (field 2) is in parentheses and may hold
    /// spaces and parentheses itself, so the fields are counted after its last `)`.
    public static func terminalState(statFile text: String) -> TerminalState? {
        terminalState(statBytes: Array(text.utf8))
    }

    /// The same, from the file's bytes: read for every client every second, so without a
    /// `String` or an array of fields.
    static func terminalState(statBytes bytes: [UInt8]) -> TerminalState? {
        guard var index = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        index += 1
        /// The next field after the command, or `nil` past the last.
        func field() -> ArraySlice<UInt8>? {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: " "), bytes[index] != UInt8(ascii: "\n") {
                index += 1
            }
            return index > start ? bytes[start..<index] : nil
        }
        // Fields 3 (state) to 8 after the command: state, ppid, pgrp, session, tty_nr, tpgid.
        guard field() != nil, let parent = field().flatMap(decimal), let group = field().flatMap(decimal),
            let session = field().flatMap(decimal), let terminal = field().flatMap(decimal),
            let foreground = field().flatMap(decimal)
        else { return nil }
        return TerminalState(
            parent: parent, processGroup: group, session: session, terminal: terminal,
            foregroundGroup: foreground)
    }

    /// A signed decimal of at most 18 digits (what `/proc` prints of an `int`), or `nil`.
    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        var rest = digits[...]
        let negative = rest.first == UInt8(ascii: "-")
        if negative { rest = rest.dropFirst() }
        guard !rest.isEmpty, rest.count <= 18 else { return nil }
        var value = 0
        for byte in rest {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }

    /// The supplementary groups of `/proc/<pid>/status`'s `Groups:` line.
    public static func groups(statusFile text: String) -> [UInt32] {
        for line in text.split(separator: "\n") where line.hasPrefix("Groups:") {
            return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
                .compactMap { UInt32($0) }
        }
        return []
    }

    // MARK: Reading /proc

    /// A small file of `/proc`, whole; `nil` when it cannot be read (the process is gone, or
    /// the daemon may not look).
    public static func read(_ path: String) -> String? {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The same file's bytes (at most 1 MiB: no file of `/proc` read here is near it).
    static func readBytes(_ path: String) -> [UInt8]? {
        try? fileContents(atPath: path, limit: 1 << 20)
    }

    /// `/proc/<pid>/exe`'s target: the program's executable. A program replaced on disk since it
    /// started keeps its old path with " (deleted)" appended, which is kept: it matches no
    /// registration, so an upgraded program is known by its new path once it restarts.
    public static func executable(pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The inode that names one of the process's namespaces (`/proc/<pid>/ns/<kind>`: `mnt`,
    /// `pid`, `user`…); `nil` when it cannot be read. Two processes share the namespace when
    /// their inodes are equal.
    public static func namespace(_ kind: String, pid: Int32?) -> UInt64? {
        let path = "/proc/\(pid.map(String.init) ?? "self")/ns/\(kind)"
        var buffer = [CChar](repeating: 0, count: 128)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        // "mnt:[4026531841]"
        let text = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let open = text.firstIndex(of: "["), text.hasSuffix("]") else { return nil }
        return UInt64(text[text.index(after: open)..<text.index(before: text.endIndex)])
    }

    /// The device and inode of the process's root directory (`/proc/<pid>/root`), which `chroot`
    /// and a sandbox's new root change; `nil` when it cannot be read.
    public static func root(pid: Int32?) -> FileIdentity? {
        var info = stat()
        guard stat("/proc/\(pid.map(String.init) ?? "self")/root/", &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The type of the filesystem mounted at the process's root (`tmpfs`, `ext4`, `fuse.…`), from
    /// `/proc/<pid>/mountinfo`: text the kernel writes, read without touching the filesystem
    /// itself (a FUSE filesystem's server could otherwise hold the reader).
    public static func rootFilesystemType(mountinfo text: String) -> String? {
        var type: String?
        for line in text.split(separator: "\n") {
            // id parent major:minor root mountpoint options [optional…] - type source super
            let fields = line.split(separator: " ")
            guard fields.count > 6, fields[4] == "/", let dash = fields.firstIndex(of: "-"),
                dash + 1 < fields.count
            else { continue }
            type = String(fields[dash + 1])  // the last mount at "/" is the one in effect
        }
        return type
    }

    public static func rootFilesystemType(pid: Int32) -> String? {
        read("/proc/\(pid)/mountinfo").flatMap { rootFilesystemType(mountinfo: $0) }
    }

    /// A file as the kernel tells files apart.
    public struct FileIdentity: Sendable, Hashable {
        public var device: UInt64
        public var inode: UInt64
    }

    public static func placement(pid: Int32) -> Placement {
        read("/proc/\(pid)/cgroup").map { placement(cgroupFile: $0) } ?? Placement()
    }

    public static func terminalState(pid: Int32) -> TerminalState? {
        readBytes("/proc/\(pid)/stat").flatMap { terminalState(statBytes: $0) }
    }

    /// The process's real gid, from its `status` file.
    public static func gid(pid: Int32) -> UInt32? {
        read("/proc/\(pid)/status").flatMap(gid(statusFile:))
    }

    /// The real gid of a `status` file's `Gid:` line.
    static func gid(statusFile text: String) -> UInt32? {
        for line in text.split(separator: "\n") where line.hasPrefix("Gid:") {
            return line.dropFirst(4).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap {
                UInt32($0)
            }
        }
        return nil
    }

    public static func groups(pid: Int32) -> [UInt32] {
        read("/proc/\(pid)/status").map { groups(statusFile: $0) } ?? []
    }
}
