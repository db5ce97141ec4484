// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import TestSupport
import Testing
import TrackJournal

/// Damage is never called intact, and costs what it hit: a closed journal of several segments
/// (locations and NMEA) with bytes flipped in every kind of place, cut, swapped, copied, mixed
/// with another journal's segments, or rolled back. Each damage is told (DAMAGED: the report is
/// not intact), the records read are the ones written less those damaged, in order and once, and
/// the report's count of what was lost is exact where the counters can say it.
@Suite("The track journal, damaged")
struct JournalDamageTests {
    typealias Fixture = JournalTests.Fixture

    /// A record of the journal written: a location, or every fifth one NMEA.
    static func record(_ index: Int) -> JournalRecord {
        index % 5 == 4
            ? .nmea(
                Array("$GPGGA,080000.00,5222.3856,N,00453.5575,E,1,12,0.7,12.0,M,46.9,M,,*\(index)\r\n".utf8))
            : JournalTests.location(index)
    }

    /// A closed journal of `count` records in segments of about 2 KiB.
    static func closedJournal(_ count: Int = 400) throws -> (Fixture, [JournalRecord]) {
        let journal = Fixture()
        let writer = try journal.writer(.init(segmentBytes: 2048, totalBytes: 1 << 30, syncEachRecord: false))
        let written = (0..<count).map(Self.record)
        for record in written {
            try writer.append(record)
            journal.clock += 0.1
        }
        try writer.close()
        return (journal, written)
    }

    /// Where a flip lands.
    enum Place: String, CaseIterable, CustomStringConvertible {
        case header, length, crc, body, tag, opening, final
        var description: String { rawValue }
    }

    /// The byte ranges of each kind of place in a segment's bytes.
    static func places(_ bytes: [UInt8]) -> [Place: [Range<Int>]] {
        let scan = JournalSegmentScan(bytes)
        var places: [Place: [Range<Int>]] = [.header: [0..<JournalFormat.headerSize]]
        for (index, frame) in scan.frames.enumerated() {
            let start = frame.lowerBound - JournalFormat.frameSize
            let whole = start..<frame.upperBound
            if index == 0 {
                places[.opening, default: []].append(whole)
            } else if index == scan.frames.count - 1 {
                places[.final, default: []].append(whole)
            } else {
                places[.length, default: []].append(start..<(start + 4))
                places[.crc, default: []].append((start + 4)..<(start + 8))
                places[.body, default: []].append(
                    frame.lowerBound..<(frame.upperBound - JournalFormat.tagSize))
                places[.tag, default: []].append(
                    (frame.upperBound - JournalFormat.tagSize)..<frame.upperBound)
            }
        }
        return places
    }

    /// Whether `read` is `written` less some records, in order, each at most once.
    static func isOrderedSubset(_ read: [JournalRecord], of written: [JournalRecord]) -> Bool {
        var index = written.startIndex
        for record in read {
            guard let found = written[index...].firstIndex(of: record) else { return false }
            index = found + 1
        }
        return true
    }

    @Test(
        "a byte flipped anywhere — header, length, CRC, body, tag, opening, final — is DAMAGED, and costs the records it hit (OPENCORELOCATION_JOURNAL_TRIALS trials a place)"
    )
    func flippedBytes() async throws {
        let trials = Int(ProcessInfo.processInfo.environment["OPENCORELOCATION_JOURNAL_TRIALS"] ?? "") ?? 40
        let (journal, written) = try Self.closedJournal()
        let paths = journal.segments
        #expect(paths.count >= 8, "\(paths.count) segments")
        let pristine = try paths.map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: $0))) }
        let places = pristine.map(Self.places)
        var generator = SystemRandomNumberGenerator()
        var yielder = Yielder()
        var figures: [String] = []
        for place in Place.allCases {
            var detected = 0
            var losses: [Int] = []
            for _ in 0..<trials {
                await yielder.giveWay()
                let file = Int.random(in: 0..<paths.count, using: &generator)
                let ranges = places[file][place] ?? []
                guard let range = ranges.randomElement(using: &generator) else { continue }
                var bytes = pristine[file]
                bytes[Int.random(in: range, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
                try Data(bytes).write(to: URL(fileURLWithPath: paths[file]))
                defer { try? Data(pristine[file]).write(to: URL(fileURLWithPath: paths[file])) }
                let (report, records) = try journal.read()
                if !report.isIntact { detected += 1 }
                #expect(Self.isOrderedSubset(records, of: written), "\(place): records out of order or twice")
                let missing = written.count - records.count
                losses.append(missing)
                switch place {
                case .header:
                    // The segment's records go with its header: its next segment says how many.
                    #expect(missing <= 40, "\(place): \(missing) lost")
                case .length:
                    // A length wrong hides the frame it leads, and perhaps the few after it.
                    #expect(missing <= 3, "\(place): \(missing) lost")
                    #expect(report.lost >= missing, "\(place): \(report.lost) said lost, \(missing) missing")
                case .crc, .body, .tag:
                    #expect(missing <= 1, "\(place): \(missing) lost")
                    #expect(report.lost == 1, "\(place): \(report.lost) said lost; \(report.damage)")
                case .opening, .final:
                    #expect(missing == 0, "\(place): \(missing) data records lost")
                }
            }
            losses.sort()
            let median = losses.isEmpty ? 0 : losses[losses.count / 2]
            #expect(
                losses.count == trials, "\(place): \(losses.count) of \(trials) trials found a place to flip")
            #expect(detected == losses.count, "\(place): \(detected) of \(losses.count) told DAMAGED")
            figures.append(
                "\(place): \(losses.count) trials, \(detected) detected, records lost median \(median), max \(losses.last ?? 0)"
            )
        }
        print("journal damage by place:\n  " + figures.joined(separator: "\n  "))
    }

    @Test(
        "a cut in an older segment, or in the newest one after it was closed, is DAMAGED, with what it cost")
    func truncations() throws {
        let (journal, written) = try Self.closedJournal(200)
        let paths = journal.segments
        for path in [paths[2], paths[paths.count - 1]] {
            let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
            let scan = JournalSegmentScan([UInt8](pristine))
            // Cut in the middle of its third-last record.
            let cut = scan.frames[scan.frames.count - 3].lowerBound + 5
            try pristine.prefix(cut).write(to: URL(fileURLWithPath: path))
            let (report, records) = try journal.read()
            #expect(!report.isIntact, "\(path): \(report.notes)")
            #expect(Self.isOrderedSubset(records, of: written))
            #expect(report.lost == 3, "\(report.lost) said lost; \(report.damage)")
            #expect(written.count - records.count == 2, "the final record, and two data records")
            try pristine.write(to: URL(fileURLWithPath: path))
        }
        #expect(try journal.read().0.isIntact)
    }

    @Test(
        "segments swapped, copied under the next number, or put in from another journal: DAMAGED, no record twice or out of order"
    )
    func segmentsMixedUp() throws {
        let (journal, written) = try Self.closedJournal(300)
        let paths = journal.segments
        let manager = FileManager.default
        // Two swapped (the first among them): read in their headers' order, all of them.
        try manager.moveItem(atPath: paths[0], toPath: journal.directory + "/swap")
        try manager.moveItem(atPath: paths[3], toPath: paths[0])
        try manager.moveItem(atPath: journal.directory + "/swap", toPath: paths[3])
        var (report, records) = try journal.read()
        #expect(!report.isIntact && records == written, "\(report.damage)")
        #expect(!report.notes.contains { $0.contains("size cap") }, "\(report.notes)")
        try manager.moveItem(atPath: paths[0], toPath: journal.directory + "/swap")
        try manager.moveItem(atPath: paths[3], toPath: paths[0])
        try manager.moveItem(atPath: journal.directory + "/swap", toPath: paths[3])
        #expect(try journal.read().0.isIntact)

        // One copied after itself, the later ones renumbered: the copy is not read.
        let copy = journal.directory + "/copy"
        try manager.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for (index, path) in paths.enumerated() {
            let number = UInt64(index + 1) + (index > 2 ? 1 : 0)
            try manager.copyItem(atPath: path, toPath: copy + "/" + JournalFormat.fileName(segment: number))
        }
        try manager.copyItem(atPath: paths[2], toPath: copy + "/" + JournalFormat.fileName(segment: 4))
        (report, records) = try journal.read(at: copy)
        #expect(!report.isIntact && records == written, "\(report.damage)")
        #expect(report.damage.contains { $0.contains("a second copy of segment 3") }, "\(report.damage)")

        // Another journal's segment 2, of the same key, in place of this one's.
        let other = Fixture(key: journal.key)
        let van = try other.writer(.init(segmentBytes: 2048, syncEachRecord: false))
        for index in 1000..<1300 { try van.append(Self.record(index)) }
        try van.close()
        let original = try Data(contentsOf: URL(fileURLWithPath: paths[1]))
        try manager.removeItem(atPath: paths[1])
        try manager.copyItem(atPath: other.segments[1], toPath: paths[1])
        (report, records) = try journal.read()
        #expect(!report.isIntact, "\(report.notes)")
        #expect(report.damage.contains { $0.contains("belongs to another journal") }, "\(report.damage)")
        #expect(records.allSatisfy(written.contains) && Self.isOrderedSubset(records, of: written))
        #expect(report.lost > 0, "segment 2's records are counted lost")
        try original.write(to: URL(fileURLWithPath: paths[1]))
        #expect(try journal.read().0.isIntact)
    }

    @Test(
        "the newest segments removed (a rollback) are DAMAGED while the head says they were there; without the head, said"
    )
    func rollback() throws {
        let (journal, written) = try Self.closedJournal(300)
        var paths = journal.segments
        try FileManager.default.removeItem(atPath: paths.removeLast())
        var (report, records) = try journal.read()
        #expect(!report.isIntact && report.damage.contains { $0.contains("rolled back") }, "\(report.damage)")
        #expect(Self.isOrderedSubset(records, of: written))
        try FileManager.default.removeItem(atPath: paths.removeLast())
        #expect(try journal.read().0.damage.contains { $0.contains("rolled back") })
        // The head removed too: nothing on the box can tell, and the report says so.
        try FileManager.default.removeItem(atPath: journal.directory + "/head")
        (report, records) = try journal.read()
        #expect(report.notes.contains { $0.contains("has no head file") }, "\(report.notes)")
        #expect(Self.isOrderedSubset(records, of: written))
    }

    @Test(
        "a power cut's torn end of the newest segment, not closed: intact, with the note, nothing lost but the torn record"
    )
    func tornEnd() throws {
        let journal = Fixture()
        var writer: JournalWriter? = try journal.writer(.init(segmentBytes: 2048, syncEachRecord: false))
        let written = (0..<100).map(Self.record)
        for record in written { try writer?.append(record) }
        writer = nil  // killed: no final record
        let newest = try #require(journal.segments.last)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: newest))
        let handle = try #require(FileHandle(forWritingAtPath: newest))
        handle.seekToEndOfFile()
        handle.write(Data([71, 0, 0, 0, 9, 9, 9, 9]) + Data(repeating: 7, count: 30))  // half a record
        try handle.close()
        let (report, records) = try journal.read()
        #expect(report.isIntact, "\(report.damage)")
        #expect(report.notes.contains { $0.contains("power cut stopped mid-write") }, "\(report.notes)")
        #expect(records == written)
        // The same bytes in a closed journal's newest segment are damage.
        try bytes.write(to: URL(fileURLWithPath: newest))
        let next = try journal.writer(.init(segmentBytes: 2048, syncEachRecord: false))
        try next.close()
        let closed = try #require(journal.segments.last)
        let handle2 = try #require(FileHandle(forWritingAtPath: closed))
        handle2.seekToEndOfFile()
        handle2.write(Data([71, 0, 0, 0, 9, 9, 9, 9]) + Data(repeating: 7, count: 30))
        try handle2.close()
        #expect(try !journal.read().0.isIntact)
    }
}
