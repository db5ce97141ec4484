// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import TestSupport
import Testing

/// gpsd's regression corpus as an external oracle: for every log, the last TPV gpsd printed for
/// each time is compared with ours for the same time.
@Suite("gpsd oracle")
struct GPSDOracleTests {
    /// What the project guarantees today over the developer set (see fixtures/gpsd-divergences.md).
    static let floor = 0.965

    static func compare(log: URL) throws -> GPSDComparison.Tally {
        var ours: [String] = []
        try ReplaySource(path: log.path).decodeAll { ours.append(FixFormat.gpsdTPV($0)) }
        return try GPSDComparison.compare(log: log, ours: ours.map { Substring($0) })
    }

    @Test func agreesWithGPSDOverTheWholeCorpus() async throws {
        guard let corpus = Fixtures.gpsdCorpus else {
            Issue.record("\(Fixtures.gpsdCorpusMissing)")

            return
        }
        let logs = try Fixtures.gpsdLogs()
        #expect(logs.count > 50, "only \(logs.count) logs with .chk files in \(corpus.path)")
        var total = GPSDComparison.Tally()
        var report: [String] = []
        var yielder = Yielder()
        for log in logs {
            await yielder.giveWay()
            let tally = try Self.compare(log: log)
            total.epochs += tally.epochs
            total.found += tally.found
            total.agreeing += tally.agreeing
            total.rolled += tally.rolled
            guard tally.epochs > 0 else { continue }
            report.append(
                "\(log.lastPathComponent): \(tally.agreeing)/\(tally.epochs) agree, \(tally.found) found"
                    + (tally.rolled > 0 ? ", \(tally.rolled) of them 1024 weeks before gpsd's date" : ""))
            for line in tally.disagreements { report.append("    \(line)") }
        }
        let share = Double(total.agreeing) / Double(max(total.epochs, 1))
        let percent = (share * 10000).rounded() / 100
        report.append(
            "gpsd oracle: \(total.agreeing)/\(total.epochs) timed epochs agree (\(percent)%), "
                + "\(total.found) found (\(total.rolled) dated 1024 weeks before gpsd's date, as their "
                + "logs' headers say), over \(logs.count) logs in \(corpus.path)")
        print(report.joined(separator: "\n"))
        #expect(share >= Self.floor, "agreement \(percent)% fell below \(Self.floor * 100)%")
    }
}
