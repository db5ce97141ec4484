// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import Crypto
import FoundationEssentials
import GNSS
import GNSSSources

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a journal back: with the private key, every record that is authentic, in order, and a
/// report of what is intact, what a power cut tore and where, and what is not what the recorder
/// wrote; without it, what the frames' CRCs alone can tell (headers, whole frames, torn ends,
/// bytes that are no frame).
///
/// Damage costs what it hit: past bytes that are not a whole frame the reader resynchronises on
/// the next frame whose length and CRC check and whose record opens under the key, and the
/// records' counters (each one's nonce) say exactly how many are missing there. Segments are
/// read in the order their headers give, each once: a segment renamed, swapped or copied is named
/// and read in its place, a second copy is not read, and a segment of another journal (another
/// identity in its header) is not read at all, so that what is handed to `visit` is never a
/// record twice, out of order, or from elsewhere.
///
/// The journal is read a segment at a time: memory is one segment, whatever the journal's size.
public struct JournalReader {
    /// What was found of one segment.
    public struct Segment: Sendable {
        /// Its number, as its header says it (as its file's name says it, when the header is
        /// damaged).
        public var number: UInt64
        public var path: String
        public var bytes: Int
        /// Whole frames (checked without the key).
        public var frames: Int
        /// Bytes after the last whole frame: a torn write, or damage.
        public var tail: Int
        /// With the key: records that opened, by kind.
        public var counts = JournalCounts()
        public var opening: JournalRecord.Opening?
        public var final: JournalRecord.FinalReason?
        /// The counter after the last authentic record: how many records it had up to there.
        var nextCounter: UInt64 = 0
        /// Whether it was read (not another journal's, not a second copy, its header whole).
        var read = false
    }

    /// The whole journal's report.
    public struct Report: Sendable {
        public var segments: [Segment] = []
        /// Lines that say what is wrong: each a record or a segment that is not what was written,
        /// where it is, and what it cost.
        public var damage: [String] = []
        /// Lines that say what a power cut tore or the cap removed, as the journal itself records
        /// it: expected, not damage.
        public var notes: [String] = []
        /// The records read, by kind (with the key).
        public var counts = JournalCounts()
        /// Records known to be missing where the journal is damaged, by their counters or the
        /// counts the journal's own records give.
        public var lost = 0
        /// Places where records are missing and how many cannot be known (a segment's header or
        /// end damaged with nothing saying how many it held).
        public var lostUncounted = 0
        /// Whether records were opened (a key was given): without it nothing is verified.
        public var verified = false

        public var isIntact: Bool { damage.isEmpty }
        /// The records read that hold what was recorded (locations, NMEA, messages, gaps).
        public var records: Int { counts.data }

        /// What damage cost, in words: `3 records lost`, `at least 2 records lost`.
        public var lossSummary: String {
            let records = counted(lost, "record", "records")
            if lostUncounted == 0 { return records + " lost" }
            let places = counted(lostUncounted, "place", "places")
            return lost == 0
                ? "records lost at \(places) (how many cannot be told)"
                : "\(records) lost, and more at \(places) (how many cannot be told)"
        }
    }

    public let path: String
    public let privateKey: Curve25519.KeyAgreement.PrivateKey?

    /// A reader of the journal directory (or one segment file) at `path`.
    public init(path: String, privateKey: Curve25519.KeyAgreement.PrivateKey?) {
        self.path = path
        self.privateKey = privateKey
    }

    /// A segment file as the first look found it: its header, if whole.
    private struct Candidate {
        var file: UInt64
        var path: String
        var header: JournalHeader?
        /// The number it is read as: its header's, else its file's.
        var number: UInt64 { header?.segment ?? file }
    }

    /// Reads every segment in the order their headers give, handing each authentic record to
    /// `visit` (with the key); returns the report.
    public func read(_ visit: (JournalRecord, JournalPosition) throws -> Void = { _, _ in }) throws
        -> Report
    {
        var report = Report()
        report.verified = privateKey != nil
        let files = try Self.files(path)
        var candidates = files.map { file in
            Candidate(
                file: file.number, path: file.path,
                header: JournalHeader(firstBytes(of: file.path, count: JournalFormat.headerSize)))
        }
        candidates.sort { ($0.number, $0.file) < ($1.number, $1.file) }
        if let privateKey {
            let keyID = JournalFormat.keyID(privateKey.publicKey)
            let sealedTo = Set(candidates.compactMap(\.header?.keyID))
            if !sealedTo.isEmpty && !sealedTo.contains(keyID) {
                throw JournalError(
                    "this key (\(JournalFormat.hex(keyID))) opens no segment of \(path): it is sealed to "
                        + sealedTo.map(JournalFormat.hex).sorted().joined(separator: ", ")
                        + "; give the private key whose public half the recorder was given")
            }
        }
        let head = Self.isDirectory(path) ? JournalHead.read(in: path) : .missing
        let identity = Self.identity(of: candidates, head: head)
        var previous: Segment?
        for (index, candidate) in candidates.enumerated() {
            let isLast = index == candidates.count - 1
            if let header = candidate.header {
                if let journal = header.journal, let identity, journal != identity {
                    report.damage.append(
                        "\(candidate.path): belongs to another journal (its identity is \(JournalFormat.hex(journal)), this "
                            + "journal's \(JournalFormat.hex(identity))): put in from elsewhere, not read")
                    // The next segment's opening counts the one this took the place of; the newest has none.
                    if isLast { report.lostUncounted += 1 }
                    continue
                }
                if let previous, previous.read, previous.number == header.segment {
                    report.damage.append(
                        "\(candidate.path): a second copy of segment \(header.segment) (\(previous.path) is the first): "
                            + "not read again")
                    continue
                }
                if header.segment != candidate.file {
                    report.damage.append(
                        "\(candidate.path): its header says segment \(header.segment): it was renamed or moved; "
                            + "read as segment \(header.segment), in that place")
                }
            }
            let bytes = try JournalWriter.read(candidate.path)
            let scan = JournalSegmentScan(bytes)
            var segment = Segment(
                number: candidate.number, path: candidate.path, bytes: bytes.count, frames: scan.frames.count,
                tail: scan.tail)
            if let header = scan.header {
                segment.read = true
                try readRecords(of: header, scan, bytes, into: &segment, &report, visit)
            } else {
                report.damage.append(
                    "\(candidate.path): not a journal segment (its header is damaged or missing): its records cannot be read"
                )
                if isLast { report.lostUncounted += 1 }
            }
            check(segment, scan, after: previous, isLast: isLast, head: head, into: &report)
            report.segments.append(segment)
            previous = segment
        }
        if files.isEmpty { report.notes.append("\(path): no segments") }
        checkHead(head, identity: identity, into: &report)
        checkStart(into: &report)
        return report
    }

    /// Opens a segment's records in order, resynchronising past damage: after bytes that are no
    /// whole frame, the next whole frame is opened under the counters the missing bytes could have
    /// held, and the counter that opens it says how many records are gone.
    private func readRecords(
        of header: JournalHeader, _ scan: JournalSegmentScan, _ bytes: [UInt8], into segment: inout Segment,
        _ report: inout Report, _ visit: (JournalRecord, JournalPosition) throws -> Void
    ) throws {
        let name = segment.path
        guard let privateKey else {
            for gap in scan.gaps {
                report.damage.append(
                    "\(name): byte \(gap.lowerBound): \(notWhole(gap.count)), and whole ones follow: "
                        + "at least one record lost there")
                report.lostUncounted += 1
            }
            return
        }
        let opener: JournalOpener
        do {
            opener = try JournalOpener(privateKey: privateKey, header: header)
        } catch {
            report.damage.append("\(name): \(error): its records cannot be read")
            report.lostUncounted += 1
            return
        }
        var counter: UInt64 = 0
        var gaps = scan.gaps[...]
        var afterFinal = 0
        for range in scan.frames {
            if segment.final != nil {
                afterFinal += 1
                continue
            }
            let frameStart = range.lowerBound - JournalFormat.frameSize
            var gapBytes = 0
            var gapStart: Int?
            while let gap = gaps.first, gap.upperBound <= frameStart {
                gapBytes += gap.count
                gapStart = gapStart ?? gap.lowerBound
                gaps.removeFirst()
            }
            // Past damage, the frame may hold any of the counters the missing bytes could have held.
            let candidates = gapBytes == 0 ? 0 : UInt64(gapBytes / JournalFormat.minimumFrame + 1)
            var opened: (JournalRecord, UInt64)?
            for candidate in counter...(counter + candidates) {
                if let record = opener.open(bytes[range], counter: candidate) {
                    opened = (record, candidate)
                    break
                }
            }
            guard let (record, at) = opened else {
                report.damage.append(
                    "\(name): record \(counter) (byte \(frameStart)) is not authentic: altered, or sealed to another "
                        + "journal; 1 record lost there")
                report.lost += 1
                counter += 1
                continue
            }
            if let gapStart {
                let missing = Int(at - counter)
                report.damage.append(
                    "\(name): byte \(gapStart): \(notWhole(gapBytes)); \(counted(missing, "record", "records")) "
                        + "lost there"
                        + (missing == 1
                            ? " (record \(counter))" : missing > 1 ? " (records \(counter)–\(at - 1))" : ""))
                report.lost += missing
            }
            counter = at + 1
            segment.counts.count(record)
            switch record {
            case .opening(let opening) where at == 0:
                segment.opening = opening
            case .final(let count, let reason) where count == at + 1:
                segment.final = reason
            case .opening, .final:
                report.damage.append("\(name): record \(at) is out of place")
            default:
                report.counts.count(record)
                try visit(record, JournalPosition(segment: header.segment, counter: at))
            }
        }
        segment.nextCounter = counter
        report.counts.openings += segment.counts.openings
        report.counts.finals += segment.counts.finals
        if segment.opening == nil {
            report.damage.append("\(name): its first record is not the segment's opening")
        }
        if afterFinal > 0 {
            report.damage.append(
                "\(name): \(counted(afterFinal, "record follows", "records follow")) its final record: not read"
            )
        }
    }

    /// What the journal's own records say of a segment's place and end, held against what is there.
    private func check(
        _ segment: Segment, _ scan: JournalSegmentScan, after previous: Segment?, isLast: Bool,
        head: JournalHead.Found, into report: inout Report
    ) {
        let name = segment.path
        if segment.tail > 0 && segment.read {
            let at = segment.bytes - segment.tail
            let closedByHead: Bool
            if case .head(let said) = head, said.segment == segment.number, said.closedWith != nil {
                closedByHead = true
            } else {
                closedByHead = false
            }
            let closed = segment.final != nil || closedByHead
            if isLast && !closed && scan.isTornAtMost {
                report.notes.append(
                    "\(name): torn at byte \(at) after \(counted(segment.frames, "whole record", "whole records")): the "
                        + "last \(counted(segment.tail, "byte is", "bytes are")) the record a power cut stopped mid-write"
                )
            } else {
                let why =
                    !isLast
                    ? "a later segment exists: damage, not a power cut (the recorder cuts a torn end before going on)"
                    : closed ? "the segment was closed: damage, not a power cut" : "damage comes before them"
                report.damage.append(
                    "\(name): byte \(at): the last \(notWhole(segment.tail)), and \(why)")
                // Counted by the next segment's opening, or for a closed newest one by its final record
                // or its head (``checkHead``); only an open newest one's loss, or any without the key,
                // cannot be counted.
                if isLast && !(closed && report.verified) { report.lostUncounted += 1 }
            }
        }
        guard privateKey != nil, segment.read, let opening = segment.opening else { return }
        if let previous {
            if opening.previous != previous.number {
                if opening.previous == previous.number + 1 {
                    // One segment missing: this one's opening says how many records it held.
                    report.damage.append(
                        "\(name): follows segment \(opening.previous), which is missing: its \(opening.previousFrames) "
                            + "records are lost")
                    report.lost += Int(opening.previousFrames)
                } else if opening.previous > previous.number {
                    report.damage.append(
                        "\(name): follows segment \(opening.previous), but segment \(previous.number) is the one before it: "
                            + "segments \(previous.number + 1)–\(opening.previous) are missing")
                    report.lostUncounted += 1
                } else {
                    report.damage.append(
                        "\(name): follows segment \(opening.previous), but segment \(previous.number) comes before it"
                    )
                }
            } else if !previous.read {
                // Its header could not be read: this segment's opening says how many records it held.
                report.damage.append(
                    "\(previous.path): its \(counted(opening.previousFrames, "record", "records")), as segment "
                        + "\(segment.number) counted \(agreeing(opening.previousFrames, "it, is", "them, are")) lost with its header"
                )
                report.lost += Int(opening.previousFrames)
            } else if previous.final == nil {
                let held = previous.nextCounter
                if held == opening.previousFrames && previous.tail == 0 {
                    report.notes.append(
                        "\(previous.path): ended without its final record after \(counted(previous.frames, "record", "records")): the "
                            + "recorder stopped without closing it (a power cut), as segment \(segment.number) records"
                    )
                } else if held + 1 == opening.previousFrames && previous.tail == 0 {
                    // A rotation begins the next segment, counting the final record it is about
                    // to write, then writes it: stopped between the two, only that marker is lost.
                    report.notes.append(
                        "\(previous.path): its final record was not written: the recorder stopped between "
                            + "beginning segment \(segment.number) and closing this one; its \(counted(previous.frames, "record is", "records are")) whole"
                    )
                } else if held < opening.previousFrames {
                    let missing = Int(opening.previousFrames - held)
                    report.damage.append(
                        "\(previous.path): ends after \(counted(held, "record", "records")), but segment \(segment.number) "
                            + "found \(opening.previousFrames) when it began: \(counted(missing, "record", "records")) "
                            + "lost from its end")
                    report.lost += missing
                } else {
                    report.damage.append(
                        "\(previous.path): has \(counted(held, "record", "records")), but segment \(segment.number) found "
                            + "\(opening.previousFrames) when it began: records were added since")
                }
            }
        }
        if isLast, let reason = segment.final, reason != .stopped {
            report.damage.append(
                "\(name): closed to begin segment \(segment.number + 1) (its \(reason == .size ? "size" : "age") was "
                    + "reached), which is missing: the journal's newest segments were removed")
            report.lostUncounted += 1
        }
        if isLast && segment.final == nil && segment.tail == 0 {
            report.notes.append(
                "\(name): has no final record: the recorder is still writing it, or stopped without closing it (a power cut)"
            )
        }
    }

    /// What the head says of the newest segment, held against the newest there.
    private func checkHead(_ head: JournalHead.Found, identity: [UInt8]?, into report: inout Report) {
        switch head {
        case .missing:
            if Self.isDirectory(path) && !report.segments.isEmpty {
                report.notes.append(
                    "\(path): has no head file: whether its newest segments were removed cannot be told")
            }
        case .unreadable:
            report.damage.append(
                "\(path)/head: is not a journal's head: whether its newest segments were removed cannot be told"
            )
        case .head(let said):
            if let identity, said.journal != identity {
                report.damage.append(
                    "\(path)/head: belongs to another journal (\(JournalFormat.hex(said.journal)))")
                return
            }
            let newest = report.segments.filter(\.read).map(\.number).max() ?? 0
            if said.segment > newest {
                report.damage.append(
                    "\(path): its head says segment \(said.segment) is the newest, but the newest here is \(newest): "
                        + "segments \(newest + 1)–\(said.segment) were removed (rolled back)")
                report.lostUncounted += 1
            } else if said.segment == newest, let records = said.closedWith, report.verified,
                let segment = report.segments.last(where: { $0.number == newest && $0.read }),
                segment.final == nil
            {
                let missing = max(0, Int(records) - Int(segment.nextCounter))
                report.damage.append(
                    "\(segment.path): its head says it was closed with \(counted(records, "record", "records")), but it "
                        + "ends after \(segment.nextCounter) without its final record: "
                        + "\(counted(missing, "record was", "records were")) cut from its end"
                )
                report.lost += missing
            }
        }
    }

    /// Whether the journal starts where its newest opening record says the cap left it: older
    /// segments gone by the cap are noted, any gone otherwise are damage.
    private func checkStart(into report: inout Report) {
        let read = report.segments.filter(\.read)
        guard let first = read.first,
            let oldestKept = read.last(where: { $0.opening != nil })?.opening?.oldestKept,
            first.opening.map({ $0.previous != 0 }) ?? false
        else { return }
        if first.number == oldestKept {
            report.notes.append(
                "segments before \(first.number) were removed by the journal's size cap, as it records")
        } else if first.number > oldestKept {
            report.damage.append(
                "the journal kept segments from \(oldestKept), but segments \(oldestKept)–\(first.number - 1) are missing"
            )
            report.lostUncounted += 1
        }
    }

    /// The journal's identity: its head's, else the one most of its segments carry (the newest
    /// segment's among equals); `nil` for a journal of version-1 segments alone.
    private static func identity(of candidates: [Candidate], head: JournalHead.Found) -> [UInt8]? {
        if case .head(let said) = head { return said.journal }
        var seen: [[UInt8]: Int] = [:]
        for candidate in candidates {
            if let journal = candidate.header?.journal { seen[journal, default: 0] += 1 }
        }
        let most = seen.values.max() ?? 0
        return candidates.reversed().compactMap(\.header?.journal).first { seen[$0] == most }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The NMEA the journal recorded (`gpsloc record --nmea`), opened into memory (a memfd),
    /// never onto the disk: a path to read it at (`/proc/self/fd/N`), its descriptor (the
    /// caller's to close), how many records held sentences, and the report.
    public func sentencesInMemory() throws -> (path: String, descriptor: Int32, records: Int, report: Report)
    {
        let descriptor = memfd_create("opencorelocation-journal", CLINUX_MFD_CLOEXEC)
        guard descriptor >= 0 else {
            throw JournalError("cannot hold the journal's sentences in memory: \(errnoDescription(errno))")
        }
        var records = 0
        do {
            let report = try read { record, _ in
                guard case .nmea(let bytes) = record else { return }
                records += 1
                var offset = 0
                while offset < bytes.count {
                    let written = bytes[offset...].withUnsafeBytes {
                        write(descriptor, $0.baseAddress, $0.count)
                    }
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else {
                        throw JournalError(
                            "cannot hold the journal's sentences in memory: \(errnoDescription(errno))")
                    }
                    offset += written
                }
            }
            lseek(descriptor, 0, SEEK_SET)
            return ("/proc/self/fd/\(descriptor)", descriptor, records, report)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Whether `path` is a journal: a directory holding segments, or a segment (by its magic).
    public static func isJournal(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return (try? JournalWriter.segments(in: path).isEmpty == false) ?? false
        }
        return firstBytes(of: path, count: 4) == JournalFormat.magic
    }

    /// The segment files at `path` (a directory or one segment), oldest first.
    static func files(_ path: String) throws(JournalError) -> [(number: UInt64, path: String)] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw JournalError("\(path): \(errnoDescription(errno))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            return try JournalWriter.segments(in: path).map { ($0, JournalWriter.path(path, $0)) }
        }
        let name = String(path.split(separator: "/").last ?? "")
        guard let number = JournalFormat.segmentNumber(fileName: name) else {
            let bytes = try JournalWriter.read(path)
            guard let header = JournalHeader(bytes) else {
                throw JournalError("\(path) is neither a journal directory nor a journal segment")
            }
            return [(header.segment, path)]
        }
        return [(number, path)]
    }
}

/// The first `count` bytes of the file at `path` (fewer when it is shorter; none when unreadable).
private func firstBytes(of path: String, count: Int) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: count)
    let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, count) }
    return Array(bytes.prefix(max(0, got)))
}

/// `count` bytes that hold no whole record, in words: "3 bytes are not whole records".
private func notWhole(_ count: some BinaryInteger) -> String {
    counted(count, "byte is not a whole record", "bytes are not whole records")
}
