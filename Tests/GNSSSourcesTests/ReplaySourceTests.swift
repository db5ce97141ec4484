// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import Locking
import NMEA
import TestSupport
import Testing

@Suite("Replaying logs")
struct ReplaySourceTests {
    @Test func decodesABundledLogAndSkipsComments() throws {
        var fixes: [Fix] = []
        let statistics = try ReplaySource(path: Fixtures.url("drive-1hz.nmea").path).decodeAll {
            fixes.append($0)
        }
        #expect(fixes.count == 300)
        #expect(statistics.framer.rejected == 0)
        #expect(statistics.framer.skippedBytes == 0)
        #expect(fixes.first?.time?.iso8601 == "2026-03-14T08:00:00.000Z")
        // Bytes read include the header comments that never reached the framer.
        let size =
            try FileManager.default.attributesOfItem(atPath: Fixtures.url("drive-1hz.nmea").path)[.size]
            as? Int
        #expect(statistics.bytesRead == size)
        #expect(statistics.commentLines == 3)
        #expect(statistics.framer.bytes < size ?? 0)
    }

    @Test func commentFilterIsChunkingInvariantAndReadsTheDateHeader() async {
        let text =
            "# Name: x\n# Date: 2019-3-14\n$GPGGA,1*00\r\n#not a header $GPRMC,2*00\n$GPTXT,a#b*00\n#\n$GPVTG,3*00\n"
        let bytes = Array(text.utf8)
        struct Filtered: Equatable {
            var kept: [UInt8] = []
            var header: CivilDate?
        }
        let filtered = await verifyDripFeed(bytes, make: { CommentFilter() }, into: Filtered()) {
            result, segment in
            result.kept += segment.bytes
            result.header = segment.headerDate
        }
        #expect(
            String(decoding: filtered.kept, as: UTF8.self) == "$GPGGA,1*00\r\n$GPTXT,a#b*00\n$GPVTG,3*00\n")
        #expect(filtered.header == CivilDate(year: 2019, month: 3, day: 14))
        var filter = CommentFilter()
        bytes.withUnsafeBytes { filter.append($0) { _ in } }
        #expect(filter.commentLines == 4)
        // A last comment without its line end still counts.
        filter.finish { _ in }
        #expect(filter.commentLines == 4)
        var trailing = CommentFilter()
        Array("$GPGGA,1*00\n# Date: 2020-01-02".utf8).withUnsafeBytes { trailing.append($0) { _ in } }
        trailing.finish { _ in }
        #expect(trailing.commentLines == 1 && trailing.headerDate == CivilDate(year: 2020, month: 1, day: 2))
    }

    @Test(
        "Both header forms date a log; a key merely starting with Date does not",
        arguments: [
            ("# Date: 2015-03-18\n", CivilDate(year: 2015, month: 3, day: 18)),
            ("# Date = 2015-03-10\n", CivilDate(year: 2015, month: 3, day: 10)),
            ("#Date=2019-3-14\n", nil),
            ("# Date:2021-12-18T\n", CivilDate(year: 2021, month: 12, day: 18)),
            ("# Dated = 2015-03-10\n", nil),
            ("# Date - 2015-03-10\n", nil),
        ] as [(String, CivilDate?)])
    func headerForms(_ header: String, _ date: CivilDate?) {
        var filter = CommentFilter()
        Array(header.utf8).withUnsafeBytes { filter.append($0) { _ in } }
        #expect(filter.headerDate == date)
    }

    @Test func theLogHeaderDatesTheReplay() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("rollover.log")
        let body = SentenceBuilder.sentence("GPRMC,000430.00,A,4808.9993,N,01135.0798,E,0.1,0.0,220899,,,A")
        try ("# Date: 2019-04-06\n" + body).write(to: log, atomically: true, encoding: .utf8)
        var fixes: [Fix] = []
        try ReplaySource(path: log.path).decodeAll { fixes.append($0) }
        #expect(fixes.first?.time?.iso8601 == "2019-04-07T00:04:30.000Z")
        // A date given by the caller wins over the header.
        fixes.removeAll()
        try ReplaySource(path: log.path, referenceDate: .recordedOn(CivilDate(year: 1999, month: 8, day: 1)))
            .decodeAll { fixes.append($0) }
        #expect(fixes.first?.time?.iso8601 == "1999-08-22T00:04:30.000Z")
    }

    @Test func aMissingFileIsAClearError() {
        do {
            try ReplaySource(path: "/no/such/log.nmea").decodeAll { _ in }
            Issue.record("no error")
        } catch let error as SourceError {
            #expect(error.description.contains("cannot open '/no/such/log.nmea'"))
            #expect(error.description.contains("No such file or directory"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func pacedReplayFollowsTheLogsOwnTimesOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let source = ReplaySource(path: Fixtures.url("drive-10hz.nmea").path, speed: .factor(2))
        let received = Counter()
        let task = Task {
            try await source.run(clock: clock) { _ in received.increment() }
        }
        // The first fix comes at once; each later one 0.1 s of log time = 0.05 s of clock.
        try await waitUntil { received.value == 1 && clock.waitingCount == 1 }
        clock.advance(by: .milliseconds(49))
        try await Task.sleep(for: .milliseconds(20))
        #expect(received.value == 1)
        clock.advance(by: .milliseconds(1))
        try await waitUntil { received.value == 2 }
        // Nine more seconds of log at double speed: 4.5 s of clock.
        for _ in 0..<90 {
            try await waitUntil { clock.waitingCount == 1 }
            clock.advance(by: .milliseconds(50))
        }
        try await waitUntil { received.value == 92 }
        task.cancel()
        _ = try? await task.value
    }

    @Test func maximumSpeedNeverSleeps() async throws {
        let clock = ManualClock()
        let received = Counter()
        let statistics = try await ReplaySource(path: Fixtures.url("drive-10hz.nmea").path, speed: .maximum)
            .run(clock: clock) { _ in received.increment() }
        #expect(received.value == 200)
        #expect(clock.sleepCount == 0)
        #expect(statistics.fixes == 200)
    }
}

/// A thread-safe counter for callbacks.
final class Counter: Sendable {
    private let storage = Mutex(0)
    var value: Int { storage.withLock { $0 } }
    func increment() { storage.withLock { $0 += 1 } }
}

/// Polls `condition` until it holds, failing after two seconds of real time.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    for _ in 0..<2000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("condition not reached in time")
    throw CancellationError()
}
