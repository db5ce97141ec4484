// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import GNSS
import GNSSSources
import NMEA
import Synchronization
import TestSupport
import Testing

/// `ReplaySource.decodeAll` on two threads (the log read and parsed on one, assembled on the
/// other) against the same on one: the same fixes, counts, progress and errors, whatever the
/// log and however it is cut into chunks.
@Suite("Decoding a log on two threads")
struct TwoThreadDecodeTests {
    /// Everything a decode tells its caller.
    struct Outcome: Equatable {
        var fixes: [Fix] = []
        var statistics: DecodeStatistics?
        var commentLines: Int?
        var bytesRead: Int?
        var referenceBasis: String?
        var rollovers: RolloverCorrections?
        var progress: [[Int?]] = []
        var error: String?
    }

    static func decode(
        _ source: ReplaySource, onTwoThreads: Bool, failingAt failure: Int? = nil
    ) -> Outcome {
        var outcome = Outcome()
        do {
            let statistics = try source.decodeAll(
                onTwoThreads: onTwoThreads, progress: { outcome.progress.append([$0, $1]) }
            ) { fix in
                outcome.fixes.append(fix)
                if outcome.fixes.count == failure { throw SourceError("stopped at fix \(failure ?? 0)") }
            }
            outcome.statistics = statistics
            outcome.commentLines = statistics.commentLines
            outcome.bytesRead = statistics.bytesRead
            outcome.referenceBasis = statistics.referenceBasis
            outcome.rollovers = statistics.rollovers
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }

    /// Decodes `source` both ways and expects the same outcome; returns it.
    @discardableResult
    static func expectSame(
        _ source: ReplaySource, failingAt failure: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Outcome {
        let (one, decodedTwice) = await onAThreadOfItsOwn {
            (
                decode(source, onTwoThreads: false, failingAt: failure),
                decode(source, onTwoThreads: true, failingAt: failure)
            )
        }
        var two = decodedTwice
        let context = "\(source.path ?? "stdin") in chunks of \(source.chunkSize)"
        #expect(two.fixes.count == one.fixes.count, "\(context)", sourceLocation: sourceLocation)
        if let index = one.fixes.indices.first(where: {
            $0 < two.fixes.count && one.fixes[$0] != two.fixes[$0]
        }) {
            Issue.record(
                "\(context): fix \(index) differs: \(one.fixes[index]) on one thread, \(two.fixes[index]) on two",
                sourceLocation: sourceLocation)
        }
        // The rest, the fixes compared above.
        var rest = one
        rest.fixes = []
        two.fixes = []
        #expect(two == rest, "\(context)", sourceLocation: sourceLocation)
        return one
    }

    /// A directory of the test's own, removed when the test ends.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("two-threads-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(
        "every fixture, whole or in chunks down to a few bytes: the same fixes, counts and progress",
        arguments: ["drive-1hz.nmea", "drive-10hz.nmea", "drive-faults.nmea"], [7, 4096, 1 << 18])
    func fixtures(_ name: String, _ chunkSize: Int) async {
        let outcome = await Self.expectSame(ReplaySource(path: Fixtures.url(name).path, chunkSize: chunkSize))
        #expect(outcome.fixes.count > 100 && outcome.error == nil)
    }

    @Test("gpsd's corpus, each log: the same fixes and counts")
    func gpsdCorpus() async throws {
        let logs = try Fixtures.gpsdLogs()
        guard !logs.isEmpty else {
            Issue.record(Comment(rawValue: Fixtures.gpsdCorpusMissing))
            return
        }
        for log in logs { await Self.expectSame(ReplaySource(path: log.path, chunkSize: 1000)) }
    }

    @Test("a date header after sentences dates what follows it, in whichever chunk it falls")
    func headerAfterSentences() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 1999-08-22 as a receiver that lost 1024 weeks sends 2019-04-07: the fix before the
        // header is dated by the default, the one after by the header.
        let rmc = SentenceBuilder.sentence("GPRMC,000430.00,A,4808.9993,N,01135.0798,E,0.1,0.0,220899,,,A")
        let later = SentenceBuilder.sentence("GPRMC,000431.00,A,4808.9993,N,01135.0798,E,0.1,0.0,220899,,,A")
        let log = directory.appendingPathComponent("header-after.nmea")
        try (rmc + "# Date: 2019-04-06\n" + later).write(to: log, atomically: true, encoding: .utf8)
        for chunkSize in [5, 40, 80, 1 << 18] {
            let outcome = await Self.expectSame(ReplaySource(path: log.path, chunkSize: chunkSize))
            #expect(outcome.fixes.compactMap { $0.time?.iso8601 }.last == "2019-04-07T00:04:31.000Z")
            #expect(outcome.referenceBasis?.contains("'# Date' header") == true)
        }
    }

    @Test("a gzip log cut short: every fix before the fault, then the same error")
    func damagedCompressedLog() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("cut.nmea")
        try Data(try Fixtures.bytes("drive-1hz.nmea")).write(to: plain)
        let result = try await Runner.run(
            ["-k", "-f", plain.path], executable: URL(fileURLWithPath: "/bin/gzip"))
        #expect(result.status == 0)
        let compressed = try Data(contentsOf: URL(fileURLWithPath: plain.path + ".gz"))
        let cut = directory.appendingPathComponent("cut.nmea.gz")
        try compressed.prefix(compressed.count * 2 / 3).write(to: cut)
        let outcome = await Self.expectSame(ReplaySource(path: cut.path, chunkSize: 4096))
        #expect(outcome.error?.contains("gzip data ends early") == true, "\(outcome.error ?? "no error")")
        #expect(outcome.fixes.count > 10)
    }

    @Test("a log that cannot be opened: the same error, nothing decoded")
    func missingLog() async {
        let outcome = await Self.expectSame(ReplaySource(path: "/no/such/log.nmea"))
        #expect(outcome.error?.contains("cannot open '/no/such/log.nmea'") == true)
        #expect(outcome.fixes.isEmpty && outcome.progress.isEmpty)
    }

    @Test("a caller that throws stops the decode with its error, the log closed when it returns")
    func callerThrows() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("stopped-\(UUID()).nmea")
        try Data(try Fixtures.bytes("drive-10hz.nmea")).write(to: log)
        for chunkSize in [64, 1 << 18] {
            let outcome = await Self.expectSame(
                ReplaySource(path: log.path, chunkSize: chunkSize), failingAt: 10)
            #expect(outcome.error == "stopped at fix 10" && outcome.fixes.count == 10)
            // The reader stopped with the assembler, and closed the log before decodeAll returned.
            #expect(!Self.openDescriptorTargets().contains(log.path))
        }
    }

    @Test("a pipe is read on the calling thread: a caller that stops is not held by a read of more")
    func pipeStopsWithoutWaitingForMore() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo-\(UUID())").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Thirty epochs, less than a pipe holds: written at once, then the pipe stays open, as a
        // receiver's does, until the test lets the writer close it.
        let bytes = try driveSample(epochs: 30, allSentences: true).bytes
        let release = DispatchSemaphore(value: 0)
        let closed = Atomic<Bool>(false)
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(bytes))
            _ = release.wait(timeout: .now() + 30)
            closed.store(true, ordering: .sequentiallyConsistent)
            try? handle.close()
        }
        writer.start()
        var fixes = 0
        #expect(throws: SourceError.self) {
            try ReplaySource(path: fifo).decodeAll(onTwoThreads: true) { _ in
                fixes += 1
                if fixes == 10 { throw SourceError("stopped at fix 10") }
            }
        }
        // Returned while the writer still held the pipe open: nothing waited for its next bytes.
        let writerClosed = closed.load(ordering: .sequentiallyConsistent)
        #expect(!writerClosed)
        #expect(fixes == 10)
        release.signal()
    }

    /// What this process's descriptors are open on.
    static func openDescriptorTargets() -> Set<String> {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(
            descriptors.compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
            })
    }

    /// The threads of this process named as the reading thread is.
    static func readingThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("gpsloc-parse")
        }.count
    }
}
