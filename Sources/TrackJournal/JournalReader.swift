// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import Crypto
import FoundationEssentials
import GNSSSources

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a journal back: with the private key, every record that is authentic, in order, and a
/// report of what is intact, what was cut and where, and what is not what the recorder wrote;
/// without it, what can be seen without opening a record (headers, frames, torn ends).
///
/// The journal is read a segment at a time: memory is one segment, whatever the journal's size.
public struct JournalReader {
    /// What was found of one segment.
    public struct Segment: Sendable {
        public var number: UInt64
        public var path: String
        public var bytes: Int
        /// Whole frames (checked without the key).
        public var frames: Int
        /// Bytes after the last whole frame: a torn write, or damage.
        public var trailing: Int
        /// With the key: records that opened, and the first that did not (its index and byte).
        public var authentic: Int = 0
        public var firstInauthentic: (index: Int, offset: Int)?
        public var opening: JournalRecord.Opening?
        public var final: JournalRecord.FinalReason?
    }

    /// The whole journal's report.
    public struct Report: Sendable {
        public var segments: [Segment] = []
        /// Lines that say what is wrong: each a record or a segment that is not what was written.
        public var damage: [String] = []
        /// Lines that say what was cut by a power cut or removed by the cap, as the journal itself
        /// records it: expected, not damage.
        public var notes: [String] = []
        public var records = 0

        public var isIntact: Bool { damage.isEmpty }
    }

    public let path: String
    public let privateKey: Curve25519.KeyAgreement.PrivateKey?

    /// A reader of the journal directory (or one segment file) at `path`.
    public init(path: String, privateKey: Curve25519.KeyAgreement.PrivateKey?) {
        self.path = path
        self.privateKey = privateKey
    }

    /// Reads every segment, oldest first, handing each authentic record to `visit` (with the key);
    /// returns the report.
    public func read(_ visit: (JournalRecord, JournalPosition) throws -> Void = { _, _ in }) throws
        -> Report
    {
        var report = Report()
        let files = try Self.files(path)
        var previous: Segment?
        for (index, file) in files.enumerated() {
            let bytes = try JournalWriter.read(file.path)
            let scan = JournalSegmentScan(bytes)
            var segment = Segment(
                number: file.number, path: file.path, bytes: bytes.count, frames: scan.frames.count,
                trailing: scan.trailing)
            guard let header = scan.header else {
                report.damage.append("\(file.path): not a journal segment (its header is damaged or missing)")
                report.segments.append(segment)
                previous = segment
                continue
            }
            if header.segment != file.number {
                report.damage.append(
                    "\(file.path): its header says segment \(header.segment): it was renamed or moved")
            }
            if let privateKey {
                let opener = try JournalOpener(privateKey: privateKey, header: header)
                for (counter, range) in scan.frames.enumerated() {
                    guard let record = opener.open(bytes[range], counter: UInt64(counter)) else {
                        if segment.firstInauthentic == nil {
                            segment.firstInauthentic = (counter, range.lowerBound - JournalFormat.frameSize)
                        }
                        continue
                    }
                    segment.authentic += 1
                    switch record {
                    case .opening(let opening) where counter == 0:
                        segment.opening = opening
                    case .final(let count, let reason) where count == UInt64(counter + 1):
                        segment.final = reason
                    case .opening, .final:
                        report.damage.append("\(file.path): record \(counter) is out of place")
                    default:
                        report.records += 1
                        try visit(record, JournalPosition(segment: file.number, counter: UInt64(counter)))
                    }
                }
                if let bad = segment.firstInauthentic {
                    report.damage.append(
                        "\(file.path): record \(bad.index) (byte \(bad.offset)) is not authentic: altered, or "
                            + "sealed to another journal; \(scan.frames.count - segment.authentic) of "
                            + "\(scan.frames.count) records are")
                }
                if segment.opening == nil && segment.firstInauthentic?.index != 0 {
                    report.damage.append("\(file.path): its first record is not the segment's opening")
                }
                if segment.final != nil && segment.authentic != scan.frames.count {
                    report.damage.append("\(file.path): records follow its final record")
                }
            }
            check(segment, after: previous, isLast: index == files.count - 1, into: &report)
            report.segments.append(segment)
            previous = segment
        }
        if files.isEmpty { report.notes.append("\(path): no segments") }
        checkStart(into: &report)
        return report
    }

    /// What the journal's own records say of a segment's place, held against what is there.
    private func check(_ segment: Segment, after previous: Segment?, isLast: Bool, into report: inout Report)
    {
        let name = segment.path
        if segment.trailing > 0 {
            let at = segment.bytes - segment.trailing
            if isLast {
                report.notes.append(
                    "\(name): cut at byte \(at) after \(segment.frames) whole records; the last \(segment.trailing) "
                        + "bytes are a torn write (a power cut while recording), or damage")
            } else {
                report.damage.append(
                    "\(name): \(segment.trailing) bytes after byte \(at) are not whole records, and a later "
                        + "segment exists: damage, not a power cut (the recorder cuts a torn end before going on)"
                )
            }
        }
        guard privateKey != nil, let opening = segment.opening else { return }
        if let previous {
            if opening.previous != previous.number {
                report.damage.append(
                    "\(name): follows segment \(opening.previous), but segment \(previous.number) is the one before it: "
                        + "segments \(previous.number + 1)–\(max(previous.number + 1, opening.previous)) are missing"
                )
            } else if previous.final == nil {
                if UInt64(previous.frames) == opening.previousFrames && previous.trailing == 0 {
                    report.notes.append(
                        "\(previous.path): ended without its final record after \(previous.frames) records: the "
                            + "recorder stopped without closing it (a power cut), as segment \(segment.number) records"
                    )
                } else if UInt64(previous.frames) + 1 == opening.previousFrames && previous.trailing == 0 {
                    // A rotation begins the next segment, counting the final record it is about
                    // to write, then writes it: stopped between the two, only that marker is lost.
                    report.notes.append(
                        "\(previous.path): its final record was not written: the recorder stopped between "
                            + "beginning segment \(segment.number) and closing this one; its \(previous.frames) records are whole"
                    )
                } else {
                    report.damage.append(
                        "\(previous.path): has \(previous.frames) records, but segment \(segment.number) found "
                            + "\(opening.previousFrames) when it began: records were cut or added since")
                }
            }
        }
        if isLast, let reason = segment.final, reason != .stopped {
            report.damage.append(
                "\(name): closed to begin segment \(segment.number + 1) (its \(reason == .size ? "size" : "age") was "
                    + "reached), which is missing: the journal's newest segments were removed")
        }
        if isLast && segment.final == nil && segment.trailing == 0 {
            report.notes.append(
                "\(name): has no final record: the recorder is still writing it, or stopped without closing "
                    + "it (a power cut, or its tail was removed)")
        }
    }

    /// Whether the journal starts where its newest opening record says the cap left it: older
    /// segments gone by the cap are noted, any gone otherwise are damage.
    private func checkStart(into report: inout Report) {
        guard let first = report.segments.first,
            let oldestKept = report.segments.last(where: { $0.opening != nil })?.opening?.oldestKept,
            first.opening.map({ $0.previous != 0 }) ?? false
        else { return }
        if first.number == oldestKept {
            report.notes.append(
                "segments before \(first.number) were removed by the journal's size cap, as it records")
        } else if first.number > oldestKept {
            report.damage.append(
                "the journal kept segments from \(oldestKept), but segments \(oldestKept)–\(first.number - 1) are missing"
            )
        }
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
