// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A process's or a thread's `/proc/…/stat`, as the kernel gives it.
public struct ProcessStat {
    /// The name between the parentheses (which may itself hold spaces and parentheses).
    public let name: String
    /// The fields after the name, the state (field 3 of proc(5)) first: field N is at N - 3.
    public let fields: [Substring]

    /// `path`'s fields (`/proc/PID/stat`, `/proc/PID/task/TID/stat`); `nil` once the process or
    /// thread has gone.
    public init?(path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
        else { return nil }
        name = String(text[text.index(after: open)..<close])
        fields = text[text.index(after: close)...].split(separator: " ")
    }

    /// Process `pid`'s.
    public init?(pid: Int32) { self.init(path: "/proc/\(pid)/stat") }

    /// Field `number` as proc(5) numbers them (1 is the pid), if there is one.
    public subscript(field number: Int) -> Substring? {
        fields.indices.contains(number - 3) ? fields[number - 3] : nil
    }
}

/// What the kernel says of a running program's threads.
public enum ProcessThreads {
    /// Each thread of process `pid`: its name and its nice value (field 19).
    public static func niceValues(of pid: Int32) throws -> [(name: String, nice: Int)] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.compactMap { task in
            guard let stat = ProcessStat(path: "/proc/\(pid)/task/\(task)/stat"),
                let nice = stat[field: 19].flatMap({ Int($0) })
            else { return nil }
            return (stat.name, nice)
        }
    }
}
