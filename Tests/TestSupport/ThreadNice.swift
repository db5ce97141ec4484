// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What the kernel says of a running program's threads.
public enum ProcessThreads {
    /// Each thread of process `pid`: its name and its nice value (`/proc/PID/task/TID/stat`).
    public static func niceValues(of pid: Int32) throws -> [(name: String, nice: Int)] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.compactMap { task in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the name: the state (field 3) onwards; the nice value is field 19.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
            return (String(stat[stat.index(after: open)..<close]), nice)
        }
    }
}
