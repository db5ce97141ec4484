// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether a process whose cgroup names a Flatpak app runs in that app's sandbox. A scope's name
/// is chosen by whoever asks the user's manager for it, so the name alone proves nothing: the app
/// id is taken only from the sandbox's own `.flatpak-info`, read through the process's root as
/// xdg-desktop-portal reads it, for a process the scope's sandbox holds.
///
/// What is checked, in order:
/// 1. the scope's number is the pid of a process that started the sandbox: one of the client's
///    ancestors, in the same cgroup;
/// 2. the client runs in a mount namespace and a pid namespace other than that process's: a
///    sandbox was made between them (Flatpak's bubblewrap always makes both), and with
///    `no_new_privs`, which bubblewrap always sets and nothing inside can clear;
/// 3. the client's root is a tmpfs, as bubblewrap makes it (read from `mountinfo`, so that a FUSE
///    root's server is never asked anything), and `/.flatpak-info` in the client's own root (`/proc/<pid>/root`, never a path of the daemon's)
///    is a regular file, opened without following a link, small, and names an application (not
///    a runtime) with a valid id and an instance;
/// 4. that id is the scope's.
///
/// The caller reads these while the client's pidfd pins it, and checks it is alive after.
public enum FlatpakSandbox {
    /// What `.flatpak-info` says of the sandbox.
    public struct Info: Sendable, Hashable {
        public var app: String
        public var instance: String
    }

    /// The largest `.flatpak-info` read; Flatpak's are a few kilobytes.
    static let maximumInfoSize = 64 * 1024

    /// The app id of the Flatpak sandbox `pid` runs in, or why it is not taken for one.
    public static func verify(
        pid: Int32, placement: ProcessFacts.Placement, scope: ProcessFacts.FlatpakScope
    ) -> Result<String, Refusal> {
        guard let starter = scope.number, starter > 1, starter != pid else {
            return .failure(Refusal("the scope's number names no process that started a sandbox"))
        }
        guard isAncestor(starter, of: pid) else {
            return .failure(Refusal("pid \(starter), whose scope it is, did not start it"))
        }
        guard ProcessFacts.placement(pid: starter).path == placement.path else {
            return .failure(Refusal("pid \(starter) is not in the scope it names"))
        }
        for kind in ["mnt", "pid"] {
            let inside = ProcessFacts.namespace(kind, pid: pid)
            let outside = ProcessFacts.namespace(kind, pid: starter)
            guard let inside, let outside, inside != outside else {
                return .failure(
                    Refusal(
                        "it shares its \(kind) namespace with pid \(starter): no sandbox was made between them"
                    ))
            }
        }
        // bubblewrap's root is a tmpfs; on any other (a FUSE filesystem whose server could hold the
        // daemon's open, say) nothing is read.
        guard ProcessFacts.rootFilesystemType(pid: pid) == "tmpfs" else {
            return .failure(Refusal("its root is not the tmpfs a Flatpak sandbox's root is"))
        }
        guard ProcessFacts.read("/proc/\(pid)/status").map(Self.hasNoNewPrivileges) == true else {
            return .failure(Refusal("it runs without no_new_privs, which Flatpak's sandbox always sets"))
        }
        let text: String
        switch readInfo(pid: pid) {
        case .success(let read): text = read
        case .failure(let refusal): return .failure(refusal)
        }
        switch info(keyFile: text) {
        case .success(let info) where info.app == scope.app: return .success(info.app)
        case .success(let info):
            return .failure(Refusal("its sandbox is the Flatpak app \(info.app)'s, not \(scope.app)'s"))
        case .failure(let refusal): return .failure(refusal)
        }
    }

    /// Whether `/proc/<pid>/status` says `NoNewPrivs: 1`.
    public static func hasNoNewPrivileges(statusFile text: String) -> Bool {
        text.split(separator: "\n").contains { line in
            line.hasPrefix("NoNewPrivs:") && line.dropFirst("NoNewPrivs:".count).contains("1")
        }
    }

    /// Why a process is not taken for a Flatpak app, for the log.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads a `.flatpak-info` key file: `[Application] name` and `[Instance] instance-id`.
    public static func info(keyFile text: String) -> Result<Info, Refusal> {
        var group = ""
        var values: [String: String] = [:]
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { return .failure(Refusal(".flatpak-info is not a key file")) }
                group = String(line.dropFirst().dropLast())
                values["[" + group] = ""
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                return .failure(Refusal(".flatpak-info is not a key file"))
            }
            let key = line[..<equals].trimmingCharacters(in: " \t")
            let value = line[line.index(after: equals)...].trimmingCharacters(in: " \t")
            values[group + "/" + key] = values[group + "/" + key] ?? value
        }
        if values["[Runtime"] != nil {
            return .failure(Refusal("its sandbox runs a Flatpak runtime, not an app"))
        }
        guard let app = values["Application/name"], isValidAppID(app) else {
            return .failure(Refusal(".flatpak-info names no valid application id"))
        }
        guard let instance = values["Instance/instance-id"], !instance.isEmpty else {
            return .failure(Refusal(".flatpak-info names no instance"))
        }
        return .success(Info(app: app, instance: instance))
    }

    /// Flatpak's rule for an application id: at most 255 bytes, three or more dot-separated
    /// elements of ASCII letters, digits and `_` that do not begin with a digit; `-` is allowed
    /// in the last element only. What fails it is never shown to a user as an app's name.
    public static func isValidAppID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        for (index, element) in elements.enumerated() {
            let last = index == elements.count - 1
            guard let first = element.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
                return false
            }
            for byte in element {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                    continue
                case UInt8(ascii: "-") where last: continue
                default: return false
                }
            }
        }
        return true
    }

    /// Whether `ancestor` is among `pid`'s parents (a short walk: sandboxes nest a few levels).
    static func isAncestor(_ ancestor: Int32, of pid: Int32) -> Bool {
        var current = pid
        for _ in 0..<64 {
            guard let parent = ProcessFacts.terminalState(pid: current)?.parent, parent > 0 else {
                return false
            }
            if parent == Int(ancestor) { return true }
            current = Int32(parent)
        }
        return false
    }

    /// `.flatpak-info` in the process's own root: opened relative to `/proc/<pid>/root` without
    /// following a link at its name, and taken only when it is a small regular file (a FIFO or a
    /// device there must neither block the daemon nor be read).
    static func readInfo(pid: Int32) -> Result<String, Refusal> {
        let root = open("/proc/\(pid)/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard root >= 0 else {
            return .failure(Refusal("its root cannot be opened (\(String(cString: strerror(errno))))"))
        }
        defer { close(root) }
        let file = openat(root, ".flatpak-info", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard file >= 0 else {
            let reason =
                errno == ENOENT ? "no .flatpak-info is in its root" : "its .flatpak-info cannot be opened"
            return .failure(Refusal(reason))
        }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            info.st_size <= maximumInfoSize
        else {
            return .failure(Refusal("its .flatpak-info is not a small regular file"))
        }
        var bytes = [UInt8](repeating: 0, count: maximumInfoSize + 1)
        var count = 0
        let descriptor = FileDescriptor(rawValue: file)
        while count < bytes.count {
            let got = try? bytes.withUnsafeMutableBytes { buffer in
                try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
            }
            guard let got, got > 0 else { break }
            count += got
        }
        guard count <= maximumInfoSize else { return .failure(Refusal("its .flatpak-info is too large")) }
        return .success(String(decoding: bytes[..<count], as: UTF8.self))
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
