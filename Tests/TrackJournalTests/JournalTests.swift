// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import GNSSSources
import TestSupport
import Testing
import TrackJournal

/// The track journal: what is written is read back with the key alone, and no change to the
/// files — a byte altered, a tail cut, a segment moved or removed — passes for what was written.
@Suite("The track journal")
struct JournalTests {
    /// A journal in a directory of its own, written by a writer with a clock the test moves.
    final class Fixture {
        let directory = NSTemporaryDirectory() + "ocl-journal-\(UUID().uuidString.prefix(8))"
        let key: Curve25519.KeyAgreement.PrivateKey
        var clock = 1_790_000_000.0

        /// A journal sealed to `key` (a new one by default).
        init(key: Curve25519.KeyAgreement.PrivateKey = .init()) { self.key = key }

        func writer(_ limits: JournalWriter.Limits = .init(syncEachRecord: false)) throws -> JournalWriter {
            try JournalWriter(directory: directory, recipient: key.publicKey, limits: limits) {
                [unowned self] in
                clock
            }
        }

        func read(key: Curve25519.KeyAgreement.PrivateKey? = nil, at path: String? = nil) throws -> (
            JournalReader.Report, [JournalRecord]
        ) {
            var records: [JournalRecord] = []
            let report = try JournalReader(path: path ?? directory, privateKey: key ?? self.key).read {
                record, _ in
                records.append(record)
            }
            return (report, records)
        }

        var segments: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
                $0.hasSuffix(".ocj")
            }
            .sorted().map { directory + "/" + $0 }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func location(_ index: Int) -> JournalRecord {
        .location(
            JournalLocation(
                time: 1_790_000_000 + Double(index) * 0.1, latitude: 52.37 + Double(index) * 1e-5,
                longitude: 4.89 - Double(index) * 1e-5, horizontalAccuracy: 3.5, altitude: 12,
                verticalAccuracy: 5,
                speed: 13.9, speedAccuracy: 0.5, course: Float(index % 360), courseAccuracy: 2, flags: 4))
    }

    @Test("records come back with the key, in order, in several segments; each costs 25 bytes beside its 55")
    func roundTrip() throws {
        let journal = Fixture()
        let writer = try journal.writer(.init(segmentBytes: 4096, syncEachRecord: false))
        let written = (0..<500).map(Self.location)
        for record in written {
            try writer.append(record)
            journal.clock += 0.1
        }
        try writer.close()
        let (report, records) = try journal.read()
        #expect(report.isIntact, "\(report.damage)")
        #expect(records == written)
        #expect(journal.segments.count > 5)
        #expect(report.notes.isEmpty, "\(report.notes)")
        // Overhead: frame (8) + kind (1) + tag (16) on a 54-byte location.
        let sizes = journal.segments.map {
            (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0
        }
        let perRecord = Double(sizes.reduce(0, +)) / Double(written.count)
        #expect(perRecord < 54 + 48, "\(perRecord) bytes per record")
        // Without the key: nothing but structure.
        let blind = try JournalReader(path: journal.directory, privateKey: nil).read()
        #expect(blind.isIntact && blind.records == 0)
        // Another key opens nothing, and says so.
        #expect {
            _ = try journal.read(key: Curve25519.KeyAgreement.PrivateKey())
        } throws: { ($0 as? JournalError)?.description.contains("opens no segment") == true }
    }

    @Test("a torn write: the next run cuts it, starts a segment that says so, and nothing is damaged")
    func powerCut() throws {
        let journal = Fixture()
        var writer: JournalWriter? = try journal.writer()
        for index in 0..<20 { try writer?.append(Self.location(index)) }
        writer = nil  // the process dies: no final record
        let segment = try #require(journal.segments.last)
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        handle.seekToEndOfFile()
        handle.write(Data([60, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9]))  // half a frame
        try handle.close()
        let next = try journal.writer()
        #expect(next.recovery.previousFrames == 21 && next.recovery.cutBytes == 11)
        for index in 20..<30 { try next.append(Self.location(index)) }
        try next.close()
        let (report, records) = try journal.read()
        #expect(report.isIntact, "\(report.damage)")
        #expect(records == (0..<30).map(Self.location))
        #expect(
            report.notes.contains { $0.contains("ended without its final record after 21 records") },
            "\(report.notes)")

        // Stopped while a segment was being begun: a header alone, or part of one. It held
        // nothing; the next run removes it and takes its number.
        for torn in [JournalFormat.headerSize, 72, 30] {
            let before = journal.segments
            let newest = try #require(before.last?.split(separator: "/").last.map(String.init))
            let next = try #require(JournalFormat.segmentNumber(fileName: newest)) + 1
            let header = try Data(contentsOf: URL(fileURLWithPath: before[0])).prefix(torn)
            try header.write(
                to: URL(fileURLWithPath: journal.directory + "/" + JournalFormat.fileName(segment: next)))
            let again = try journal.writer()
            try again.append(Self.location(99))
            try again.close()
            #expect(journal.segments.count == before.count + 1)
            let (after, _) = try journal.read()
            #expect(after.isIntact, "\(after.damage)")
        }
    }

    @Test(
        "stopped mid-rotation, after the next segment began and before the final record: noted, nothing lost")
    func stoppedMidRotation() throws {
        let journal = Fixture()
        let writer = try journal.writer(.init(segmentBytes: 1024, syncEachRecord: false))
        for index in 0..<40 { try writer.append(Self.location(index)) }
        try writer.close()
        // The last segment's final record cut off, as a kill between the two steps leaves it,
        // in a segment that is not the last.
        let segments = journal.segments
        let victim = segments[segments.count - 2]
        let bytes = try Data(contentsOf: URL(fileURLWithPath: victim))
        let scanned = JournalSegmentScan(Array(bytes))
        try bytes.prefix(scanned.frames[scanned.frames.count - 2].upperBound).write(
            to: URL(fileURLWithPath: victim))
        let (report, records) = try journal.read()
        #expect(report.isIntact, "\(report.damage)")
        #expect(report.notes.contains { $0.contains("its final record was not written") }, "\(report.notes)")
        #expect(records == (0..<40).map(Self.location))
        // One data record more cut off is damage.
        try bytes.prefix(scanned.frames[scanned.frames.count - 3].upperBound).write(
            to: URL(fileURLWithPath: victim))
        #expect(try !journal.read().0.isIntact)
    }

    @Test("segments reordered or removed are told; removed by the cap, they are noted as such")
    func segmentsMovedOrRemoved() throws {
        let journal = Fixture()
        let writer = try journal.writer(.init(segmentBytes: 1024, totalBytes: 1 << 30, syncEachRecord: false))
        for index in 0..<100 { try writer.append(Self.location(index)) }
        try writer.close()
        let segments = journal.segments
        #expect(segments.count >= 6)
        // Two swapped.
        let (a, b) = (segments[2], segments[3])
        try FileManager.default.moveItem(atPath: a, toPath: a + ".tmp")
        try FileManager.default.moveItem(atPath: b, toPath: a)
        try FileManager.default.moveItem(atPath: a + ".tmp", toPath: b)
        #expect(try !journal.read().0.isIntact)
        try FileManager.default.moveItem(atPath: a, toPath: a + ".tmp")
        try FileManager.default.moveItem(atPath: b, toPath: a)
        try FileManager.default.moveItem(atPath: a + ".tmp", toPath: b)
        #expect(try journal.read().0.isIntact)
        // One from the middle, then the oldest: gone without the cap's word.
        let middle = try Data(contentsOf: URL(fileURLWithPath: segments[3]))
        try FileManager.default.removeItem(atPath: segments[3])
        #expect(try journal.read().0.damage.contains { $0.contains("missing") })
        try middle.write(to: URL(fileURLWithPath: segments[3]))
        // The newest, whole: the one before it says a newer one was begun.
        let newest = try Data(contentsOf: URL(fileURLWithPath: segments[segments.count - 1]))
        try FileManager.default.removeItem(atPath: segments[segments.count - 1])
        #expect(try journal.read().0.damage.contains { $0.contains("which is missing") })
        try newest.write(to: URL(fileURLWithPath: segments[segments.count - 1]))
        try FileManager.default.removeItem(atPath: segments[0])
        #expect(try journal.read().0.damage.contains { $0.contains("missing") })

        // A capped journal: the oldest go, counted, and the reader takes the journal's word for it.
        let capped = Fixture()
        let small = try capped.writer(.init(segmentBytes: 1024, totalBytes: 4096, syncEachRecord: false))
        for index in 0..<200 { try small.append(Self.location(index)) }
        try small.close()
        #expect(small.removedSegments > 0)
        let (report, records) = try capped.read()
        #expect(report.isIntact, "\(report.damage)")
        #expect(report.notes.contains { $0.contains("removed by the journal's size cap") }, "\(report.notes)")
        #expect(records == Array((0..<200).map(Self.location).suffix(records.count)))
    }

    @Test(
        "rotation by age, a gap record for what a full disk lost, keys read from their files with clear errors"
    )
    func ageGapAndKeys() throws {
        let journal = Fixture()
        let writer = try journal.writer(.init(segmentSeconds: 60, syncEachRecord: false))
        for index in 0..<10 {
            try writer.append(Self.location(index))
            journal.clock += 20
        }
        try writer.close()
        #expect(journal.segments.count >= 3)
        #expect(try journal.read().0.isIntact)

        let (privateText, publicText) = JournalKeys.generate()
        let publicKey = try JournalKeys.publicKey(publicText, path: "k.pub")
        let privateKey = try JournalKeys.privateKey(privateText, path: "k")
        #expect(publicKey.rawRepresentation == privateKey.publicKey.rawRepresentation)
        #expect {
            _ = try JournalKeys.publicKey(privateText, path: "k")
        } throws: {
            ($0 as? JournalError)?.description.contains("is a private key; give the public one") == true
        }
        #expect {
            _ = try JournalKeys.privateKey("hello\n", path: "x")
        } throws: { ($0 as? JournalError)?.description.contains("is not a journal key file") == true }
    }
}
