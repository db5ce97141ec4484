// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
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
    /// Where a process runs, from its cgroup path.
    public struct Placement: Sendable, Hashable {
        /// The Flatpak app id, from a scope named `app-flatpak-<id>-<n>.scope`.
        public var flatpak: String?
        /// The innermost systemd service, `name.service` (a system or a user service).
        public var unit: String?
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
        for component in path.split(separator: "/") {
            if component.hasPrefix("app-flatpak-"), component.hasSuffix(".scope") {
                // app-flatpak-org.example.App-12345.scope: the id is what lies between.
                let inner = component.dropFirst("app-flatpak-".count).dropLast(".scope".count)
                if let dash = inner.lastIndex(of: "-"),
                    inner[inner.index(after: dash)...].allSatisfy(\.isNumber)
                {
                    placement.flatpak = String(inner[..<dash])
                } else {
                    placement.flatpak = String(inner)
                }
            } else if component.hasSuffix(".service"), !component.hasPrefix("user@") {
                placement.unit = String(component)
            }
        }
        return placement
    }

    /// The terminal facts of `/proc/<pid>/stat`.
    public struct TerminalState: Sendable, Hashable {
        public var processGroup: Int
        /// The controlling terminal's device number; 0 without one.
        public var terminal: Int
        /// The terminal's foreground process group; -1 without a terminal.
        public var foregroundGroup: Int

        public init(processGroup: Int, terminal: Int, foregroundGroup: Int) {
            self.processGroup = processGroup
            self.terminal = terminal
            self.foregroundGroup = foregroundGroup
        }

        /// In the foreground of its terminal: what "in use" means for a command-line program.
        public var isForeground: Bool { terminal != 0 && processGroup == foregroundGroup }
    }

    /// Reads `/proc/<pid>/stat`'s text. The command name (field 2) is in parentheses and may hold
    /// spaces and parentheses itself, so the fields are counted after its last `)`.
    public static func terminalState(statFile text: String) -> TerminalState? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let rest = text[text.index(after: close)...].split(separator: " ")
        // rest[0] is field 3 (state): pgrp is field 5, tty_nr 7, tpgid 8.
        guard rest.count > 5, let group = Int(rest[2]), let terminal = Int(rest[4]),
            let foreground = Int(rest[5])
        else { return nil }
        return TerminalState(processGroup: group, terminal: terminal, foregroundGroup: foreground)
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
        guard let fd = try? FileDescriptor.open(path, .readOnly, options: [.closeOnExec]) else { return nil }
        defer { try? fd.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0, retryOnInterrupt: true) }
            } catch { return nil }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
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

    public static func placement(pid: Int32) -> Placement {
        read("/proc/\(pid)/cgroup").map { placement(cgroupFile: $0) } ?? Placement()
    }

    public static func terminalState(pid: Int32) -> TerminalState? {
        read("/proc/\(pid)/stat").flatMap { terminalState(statFile: $0) }
    }

    public static func groups(pid: Int32) -> [UInt32] {
        read("/proc/\(pid)/status").map { groups(statusFile: $0) } ?? []
    }
}
