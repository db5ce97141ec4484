// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// What `gpsloc decode` and `simulate` say about long work: progress while it runs (on a terminal,
/// or when asked), and a summary that gives time, gaps, rollovers, records and throughput.
@Suite("gpsloc's progress and summary, the built binary")
struct DecodeSummaryTests {
    static let drive = Fixtures.url("drive-1hz.nmea").path

    /// An epoch of RMC and GGA at `second` past 08:00 on `date` (ddmmyy).
    static func epoch(second: Int, date: String) -> String {
        let time = String(format: "08%02d%02d.00", second / 60, second % 60)
        return SentenceBuilder.sentence("GPRMC,\(time),A,5222.38600,N,00453.55600,E,1.0,90.0,\(date),,,A")
            + SentenceBuilder.sentence("GPGGA,\(time),5222.38600,N,00453.55600,E,1,08,0.9,12.0,M,46.9,M,,")
    }

    /// The test's files, removed when it ends.
    let scratch = ScratchDirectories("decode-summary")

    func file(_ text: String) throws -> String {
        try scratch.file("log.nmea", text)
    }

    @Test("The summary gives the first and last fix time, the span, gaps, records written and throughput")
    func summary() async throws {
        let result = try await Runner.run(["decode", Self.drive])
        #expect(result.status == 0)
        let text = result.standardError
        #expect(
            text.contains("  time: 2026-03-14T08:00:00.000Z to 2026-03-14T08:04:59.000Z, 4 min 59 s"),
            "\(text)")
        #expect(text.contains("  gaps: 0; epoch 1 s"))
        #expect(text.contains("  records written: 300; "))
        #expect(
            text.range(of: #"; \d+\.\d{3} s, \d+\.\d MB/s"#, options: .regularExpression) != nil, "\(text)")
        #expect(!text.contains("\r"), "no progress when standard error is not a terminal")
    }

    @Test("A gap in time is counted, with the longest and where it was")
    func gaps() async throws {
        let seconds = Array(0..<10) + Array(40..<45) + [50]
        let log = try file(seconds.map { Self.epoch(second: $0, date: "140326") }.joined())
        let result = try await Runner.run(["decode", log, "--format", "none"])
        #expect(
            result.standardError.contains(
                "  gaps: 2 (longest 31 s after 2026-03-14T08:00:09.000Z); epoch 1 s"),
            "\(result.standardError)")
        #expect(result.standardError.contains("  records written: 0; "))
    }

    @Test(
        "Dates moved by 1024 weeks are counted, with what the correction went by",
        arguments: [
            // gpsd's other header form; the log is from 2015.
            (
                ["# Date = 2015-03-18\n"], [String](), "2015-03-18T08:00:00.000Z",
                "the log's '# Date' header, 2015-03-18"
            ),
            (
                [], ["--reference-date", "2015-03-18"], "2015-03-18T08:00:00.000Z",
                "--reference-date 2015-03-18"
            ),
            // Without either, no date before this release: 1995 + 2 × 1024 weeks.
            ([], [], "2034-11-01T08:00:00.000Z", "this release's date, 2026-11-01"),
        ])
    func rollovers(header: [String], options: [String], time: String, basis: String) async throws {
        // 1995-08-02 is 2015-03-18 less 1024 weeks: a receiver that lost a rollover.
        let log = try file(
            header.joined() + (0..<3).map { Self.epoch(second: $0, date: "020895") }.joined())
        let result = try await Runner.run(["decode", log] + options)
        #expect(result.status == 0)
        #expect(
            result.standardOutput.hasPrefix(#"{"time":"\#(time)""#), "\(result.standardOutput.prefix(80))")
        #expect(
            result.standardError.contains("  dates moved by 1024-week rollovers: 1 (last by "),
            "\(result.standardError)")
        #expect(result.standardError.contains("going by \(basis)"), "\(result.standardError)")
    }

    @Test("--progress draws bytes, percent, throughput and time left even into a pipe, then erases the line")
    func forcedProgress() async throws {
        let result = try await Runner.run(["decode", Self.drive, "--format", "none", "--progress"])
        #expect(result.status == 0)
        let text = result.standardError
        #expect(text.contains("\r\(Self.drive): 262.1 kB of 408.0 kB (64.2 %), "), "\(text)")
        #expect(text.contains(" MB/s") || text.contains(" kB/s"))
        #expect(
            text.contains("\r\u{1B}[K\(Self.drive): 408009 bytes"),
            "the progress line is erased before the summary")
    }

    @Test("--progress with --no-progress is a usage error that names both")
    func conflictingProgress() async throws {
        let result = try await Runner.run(["decode", Self.drive, "--progress", "--no-progress"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--no-progress") && result.standardError.contains("--progress"))
    }

    @Test("simulate shows its progress in epochs, or bytes for --size")
    func simulateProgress() async throws {
        let output = try scratch.make() + "/simulated.nmea"
        let epochs = try await Runner.run(["simulate", "--epochs", "3000", "-o", output, "--progress"])
        #expect(epochs.status == 0)
        #expect(epochs.standardError.contains(" epochs of 3.0 k epochs ("), "\(epochs.standardError)")
        let sized = try await Runner.run(["simulate", "--size", "2M", "-o", output, "--progress"])
        #expect(sized.standardError.contains(" of 2.1 MB ("), "\(sized.standardError)")
        let quiet = try await Runner.run(["simulate", "--epochs", "3000", "-o", output])
        #expect(quiet.standardError.isEmpty)
    }
}
