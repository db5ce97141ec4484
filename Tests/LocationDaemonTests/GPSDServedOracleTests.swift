// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import TestSupport
import Testing

/// gpsd's regression corpus through gpslocd: every log replayed as a `file:` receiver and read by
/// a client of gpsd's protocol, its TPVs compared with gpsd's own output for the log (its `.chk`,
/// which gpsd's regression suite recorded from gpsd fed by gpsfake) by the decode oracle's
/// comparer. What the protocol serves must agree with gpsd as often as the decoder does, and its
/// SKY reports must be the decoder's.
@Suite(
    "gpslocd: gpsd's corpus through gpsd's protocol", .serialized,
    .enabled(if: getuid() == 0, "the daemon's tests run as root"),
    .enabled(
        if: ProcessInfo.processInfo.environment["OPENCORELOCATION_ALONE"] == "1",
        "it decodes 71 logs as fast as they can be read, which would starve the timed suites beside it; tools/test runs it alone (OPENCORELOCATION_ALONE=1)"
    ))
struct GPSDServedOracleTests {
    @Test("every log's TPVs through gpslocd agree with gpsd's as the decoder's do")
    func servedAgreesAsDecoded() async throws {
        guard let corpus = Fixtures.gpsdCorpus else {
            Issue.record("\(Fixtures.gpsdCorpusMissing)")

            return
        }
        let logs = try Fixtures.gpsdLogs()
        #expect(logs.count > 50, "only \(logs.count) logs with .chk files in \(corpus.path)")
        let sources = logs.map { "file:\($0.path)?speed=max" }
        // Logs replayed as fast as they are read wait for the client: the default buffer serves.
        let daemon = try DaemonHarness(sources: sources)
        try await daemon.start()
        let socat = URL(fileURLWithPath: "/usr/bin/socat").resolvingSymlinksInPath().path
        try await daemon.grantAlways(uid: 0, app: socat)

        var served = GPSDComparison.Tally()
        var decoded = GPSDComparison.Tally()
        var worse: [String] = []
        var skyReports = 0
        for (log, source) in zip(logs, sources) {
            let client = try daemon.client(as: nil)
            client.send(#"?WATCH={"enable":true,"json":true,"device":"\#(source)"};"#)
            // The log ends: its DEVICE comes without `activated`; what was sent before it follows.
            let ended = await waitUntil(within: 60) {
                GPSDProtocolTests.reports(client.output).contains {
                    $0["class"] as? String == "DEVICE" && $0["path"] as? String == source
                        && $0["activated"] == nil
                }
            }
            var length = -1
            while client.output.utf8.count != length {
                length = client.output.utf8.count
                try await Task.sleep(for: .milliseconds(200))
            }
            await client.stop()
            #expect(ended, "\(log.lastPathComponent) did not end: \(client.output.suffix(400))")
            let lines = client.output.split(separator: "\r\n")
            let ours = try GPSDComparison.compare(log: log, ours: lines)
            var direct: [String] = []
            var decodedSKY: [String] = []
            try ReplaySource(path: log.path).decodeAll { fix in
                direct.append(FixFormat.gpsdTPV(fix))
                var line: [UInt8] = []
                FixFormat.appendGPSDReports(fix, device: QuotedText(source), to: &line)
                decodedSKY += String(decoding: line, as: UTF8.self).split(separator: "\n").filter {
                    $0.hasPrefix(#"{"class":"SKY""#)
                }.map(String.init)
            }
            // The SKY stream served is the decoder's, report for report.
            let servedSKY = lines.filter { $0.hasPrefix(#"{"class":"SKY""#) }.map(String.init)
            #expect(servedSKY == decodedSKY, "\(log.lastPathComponent): SKY served differs from SKY decoded")
            skyReports += servedSKY.count
            let theirs = try GPSDComparison.compare(log: log, ours: direct.map { Substring($0) })
            served.epochs += ours.epochs
            served.agreeing += ours.agreeing
            decoded.epochs += theirs.epochs
            decoded.agreeing += theirs.agreeing
            if ours.agreeing < theirs.agreeing {
                worse.append(
                    "\(log.lastPathComponent): \(ours.agreeing)/\(ours.epochs) served, \(theirs.agreeing) decoded; "
                        + ours.disagreements.prefix(3).joined(separator: "; "))
            }
        }
        await daemon.stop()
        let percent = { (tally: GPSDComparison.Tally) in (tally.share * 10000).rounded() / 100 }
        print(
            "gpsd oracle through gpslocd: \(served.agreeing)/\(served.epochs) timed epochs agree (\(percent(served))%); "
                + "decoded: \(decoded.agreeing)/\(decoded.epochs) (\(percent(decoded))%), over \(logs.count) logs"
        )
        #expect(served.agreeing >= decoded.agreeing, "\(worse.joined(separator: "\n"))")
    }
}
