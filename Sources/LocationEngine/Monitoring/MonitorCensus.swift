// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import Locking

/// What an app's stored monitors hold, counted from their files once and kept current as each
/// monitor writes its own: the geographic conditions of each (the app's monitored regions are
/// counted across all its monitors) and the bytes of each file. Adding a condition then costs the
/// same however many monitors are stored, where reading every other monitor's file again made a
/// flood of monitors cost the square of their number.
package final class MonitorCensus: Sendable {
    package struct Entry: Sendable, Hashable {
        package var circles: Int
        package var bytes: Int
    }

    /// The app's monitor directory.
    package let directory: String
    private let entries = Mutex<[String: Entry]?>(nil)

    package init(directory: String) {
        self.directory = directory
    }

    /// Geographic conditions in the app's monitors other than the one stored at `path`.
    package func circles(excluding path: String) -> Int {
        withEntries { entries in entries.reduce(0) { $0 + ($1.key == path ? 0 : $1.value.circles) } }
    }

    /// A monitor's file was written (or found): its counts now.
    package func record(_ path: String, circles: Int, bytes: Int) {
        withEntries { $0[path] = Entry(circles: circles, bytes: bytes) }
    }

    /// Monitors stored, and their bytes.
    package var stored: (monitors: Int, bytes: Int) {
        withEntries { entries in (entries.count, entries.values.reduce(0) { $0 + $1.bytes }) }
    }

    private func withEntries<T>(_ body: (inout [String: Entry]) -> T) -> T {
        entries.withLock { entries in
            if entries == nil { entries = Self.count(directory) }
            return body(&entries!)
        }
    }

    /// One pass over the directory's monitor files.
    private static func count(_ directory: String) -> [String: Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [String: Entry] = [:]
        for name in names where name.hasSuffix(".monitor") {
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let stored = (try? MonitorCore.decode(data, path: path)) ?? []
            found[path] = Entry(circles: stored.count { $0.circle?.isValid == true }, bytes: data.count)
        }
        return found
    }
}
