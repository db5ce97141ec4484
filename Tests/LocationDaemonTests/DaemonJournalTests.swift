// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// gpslocd's log lines under systemd: priorities the journal understands, no timestamps of its own.
@Suite("gpslocd's log under journald")
struct DaemonJournalTests {
    /// Runs gpslocd for a few seconds with its standard error in a file, `JOURNAL_STREAM` naming
    /// that file (as systemd names the journal's socket) when `journal`; returns what it wrote.
    static func log(journal: Bool) async throws -> String {
        let daemon = try DaemonHarness(sources: ["tcp://127.0.0.1:\(Daemons.freePort())"])
        defer { try? FileManager.default.removeItem(atPath: daemon.root) }
        let file = daemon.root + "/stderr"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        var stream = stat()
        #expect(stat(file, &stream) == 0)
        let command =
            ([gpslocdBinary.path] + daemon.arguments).map { "'\($0)'" }.joined(separator: " ")
            + " 2>>'\(file)'"
        let result = try await Runner.run(
            ["-s", "INT", "4", "/bin/sh", "-c", "exec " + command],
            executable: URL(fileURLWithPath: "/usr/bin/timeout"),
            environment: [
                "JOURNAL_STREAM": journal ? "\(stream.st_dev):\(stream.st_ino)" : "",
                "GPSLOCD_LOG_LEVEL": "debug",
            ])
        #expect(result.status == 0 || result.status == 124, "\(result.standardError)")
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    @Test(
        "with JOURNAL_STREAM naming its standard error, every line starts with a syslog priority and no timestamp"
    )
    func priorities() async throws {
        let lines = try await Self.log(journal: true).split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.wholeMatch(of: /<[2-7]>[^<].*/) != nil, "\(line)")
            #expect(
                line.firstMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d/) == nil, "a timestamp of its own: \(line)")
        }
        // Debug lines at 7, the daemon's own notices at 5: journalctl -p warning leaves both out.
        #expect(lines.contains { $0.hasPrefix("<5>") } && lines.contains { $0.hasPrefix("<7>") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<5>") && $0.contains("listening on") }, "\(lines)")
    }

    @Test("without it (a terminal, a file), lines keep their timestamps and levels")
    func plain() async throws {
        let lines = try await Self.log(journal: false).split(separator: "\n")
        #expect(lines.contains { $0.contains("listening on") }, "\(lines)")
        #expect(lines.allSatisfy { !$0.hasPrefix("<") }, "\(lines)")
    }
}
