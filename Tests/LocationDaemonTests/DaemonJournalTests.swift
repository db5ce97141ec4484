// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// gpslocd's log lines under systemd: priorities the journal understands, no timestamps of its own.
@Suite("gpslocd's log under journald")
struct DaemonJournalTests {
    /// Runs gpslocd until it listens (a sanitized build takes its time), its standard error in a
    /// file, `JOURNAL_STREAM` naming that file (as systemd names the journal's socket) when
    /// `journal`; returns what it wrote once SIGINT stopped it.
    static func log(journal: Bool) async throws -> String {
        let daemon = try DaemonHarness(sources: ["tcp://127.0.0.1:\(Daemons.freePort())"])
        defer { try? FileManager.default.removeItem(atPath: daemon.root) }
        let file = daemon.root + "/stderr"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        var stream = stat()
        #expect(stat(file, &stream) == 0)
        let process = Process()
        process.executableURL = gpslocdBinary
        process.arguments = daemon.arguments
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNAL_STREAM"] = journal ? "\(stream.st_dev):\(stream.st_ino)" : nil
        environment["GPSLOCD_LOG_LEVEL"] = "debug"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try process.run()
        let pinned = PinnedProcess(process.processIdentifier)
        ChildReaper.register(process.processIdentifier)
        let text = { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        #expect(await waitUntil(within: 60) { text().contains("listening on") || !process.isRunning })
        pinned?.signal(SIGINT)
        #expect(await waitUntil(within: 20) { !process.isRunning })
        return text()
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
