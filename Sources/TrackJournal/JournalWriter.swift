// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import FoundationEssentials
import GNSSSources
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Appends records to a journal directory, one frame per `write`, each made durable before the
/// next (`fdatasync`, unless told otherwise), so that a power cut loses at most the record being
/// written.
///
/// Opening a journal that a power cut interrupted cuts its newest segment after the last whole
/// frame and starts a new segment, whose first record says where the old one was cut. Only a
/// power cut's tear is cut: the end of a newest segment that was not closed, with nothing whole
/// after the cut. Damage anywhere else is left for `verify` to name. Each segment carries the
/// journal's identity, and ``JournalHead`` says which segment is the newest. Segments
/// rotate by size and age, each closed with a final record; the oldest go first when the journal
/// passes its cap. A full disk loses the records that do not fit, and nothing else: the first
/// record written when space returns is preceded by a gap record that counts them.
public final class JournalWriter {
    public struct Limits: Sendable {
        /// A segment is closed once it is this large...
        public var segmentBytes: Int
        /// ...or this old.
        public var segmentSeconds: Double
        /// The journal's segments together; the oldest are removed past it.
        public var totalBytes: Int
        /// `fdatasync` after each record.
        public var syncEachRecord: Bool

        public init(
            segmentBytes: Int = 8 << 20, segmentSeconds: Double = 3600, totalBytes: Int = 256 << 20,
            syncEachRecord: Bool = true
        ) {
            self.segmentBytes = segmentBytes
            self.segmentSeconds = segmentSeconds
            self.totalBytes = totalBytes
            self.syncEachRecord = syncEachRecord
        }
    }

    /// What opening the journal found and did, for the recorder to say.
    public struct Recovery: Sendable {
        /// The newest segment before this run, its whole frames, and the bytes cut after them.
        public var previous: UInt64
        public var previousFrames: Int
        /// Where it was cut, and how many bytes went (0: it ended with a whole frame).
        public var cutAt: Int
        public var cutBytes: Int
        /// Segments removed by the cap so far (those numbered below the oldest kept).
        public var oldestKept: UInt64
    }

    public let directory: String
    public let recovery: Recovery
    private let recipient: Curve25519.KeyAgreement.PublicKey
    private let limits: Limits
    private let now: () -> Double
    private var segment: OpenSegment
    /// Records lost to a full disk since the last one written, and the time they span.
    private var lost: (count: UInt64, from: Int64, to: Int64)?
    /// Segments removed by the cap in this run.
    public private(set) var removedSegments = 0
    /// The records this run wrote that hold what was recorded (locations, NMEA, messages, gaps).
    public var recordsWritten: Int { written.data }
    /// Every record this run wrote, by kind (the segments' opening and final records included).
    public private(set) var written = JournalCounts()
    /// The journal's identity, in every segment's header.
    public let journal: [UInt8]

    private struct OpenSegment {
        var number: UInt64
        var descriptor: FileDescriptor
        var sealer: JournalSealer
        var counter: UInt64 = 0
        var bytes: Int
        var opened: Double
    }

    /// Opens (or makes) the journal in `directory`, sealed to `recipient`; `now` gives seconds
    /// since 1970.
    public init(
        directory: String, recipient: Curve25519.KeyAgreement.PublicKey, limits: Limits = Limits(),
        now: @escaping () -> Double = { Date().timeIntervalSince1970 }
    ) throws(JournalError) {
        self.directory = directory
        self.recipient = recipient
        self.limits = limits
        self.now = now
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw JournalError("cannot make the journal directory \(directory): \(errnoDescription(errno))")
        }
        var numbers = try Self.segments(in: directory)
        // A segment stopped while it was being begun (no whole record, not even its opening)
        // holds nothing: it goes, and its number is used again.
        while let newest = numbers.last,
            JournalSegmentScan(try Self.read(Self.path(directory, newest))).frames.isEmpty
        {
            guard unlink(Self.path(directory, newest)) == 0 else {
                throw JournalError(
                    "cannot remove \(Self.path(directory, newest)), begun and never written: \(errnoDescription(errno))"
                )
            }
            numbers.removeLast()
        }
        var recovery = Recovery(
            previous: 0, previousFrames: 0, cutAt: 0, cutBytes: 0, oldestKept: numbers.first ?? 1)
        let head = JournalHead.read(in: directory)
        var identity: [UInt8]?
        if let newest = numbers.last {
            let path = Self.path(directory, newest)
            let bytes = try Self.read(path)
            let scan = JournalSegmentScan(bytes)
            identity = scan.header?.journal
            recovery.previous = newest
            recovery.previousFrames = scan.frames.count
            // A power cut's tear, and nothing else: the end of a segment the recorder had not
            // closed, with nothing damaged before it (a header torn too: all of it). Damage is
            // left as it is, for `verify` to name.
            let closed: Bool
            if case .head(let said) = head, said.segment == newest, said.closedWith != nil {
                closed = true
            } else {
                closed = false
            }
            if scan.tail > 0 && scan.isTornAtMost && !closed {
                recovery.cutBytes = scan.tail
                recovery.cutAt = scan.end
                guard truncate(path, off_t(scan.end)) == 0 else {
                    throw JournalError(
                        "cannot cut \(path) after its last whole record: \(errnoDescription(errno))")
                }
            }
        }
        if identity == nil, case .head(let said) = head { identity = said.journal }
        journal = identity ?? Self.newIdentity()
        self.recovery = recovery
        segment = try Self.open(
            directory: directory, journal: journal, number: (numbers.last ?? 0) + 1, recipient: recipient,
            now: now(),
            opening: .init(
                previous: recovery.previous, previousFrames: UInt64(recovery.previousFrames),
                previousCutAt: UInt64(recovery.cutAt), oldestKept: recovery.oldestKept),
            sync: true)
        written.openings += 1
        JournalHead(journal: journal, segment: segment.number, closedWith: nil).write(
            in: directory, sync: true)
    }

    /// A new journal's identity: 16 random bytes.
    private static func newIdentity() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<JournalFormat.journalIDSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Whether ``close()`` closed the segment's descriptor already (closing it twice could close
    /// a descriptor another part of the process was given since).
    private var closed = false

    deinit {
        if !closed { try? segment.descriptor.close() }
    }

    /// Appends a record (a location or NMEA). A full disk loses this record only, and is said
    /// in the error; the journal is left as it was.
    @discardableResult
    public func append(_ record: JournalRecord) throws(JournalError) -> JournalPosition {
        guard !closed else { throw JournalError("the journal in \(directory) was closed") }
        let time = now()
        if Double(segment.bytes) >= Double(limits.segmentBytes) {
            try rotate(.size, at: time)
        } else if time - segment.opened >= limits.segmentSeconds {
            try rotate(.age, at: time)
        }
        if let gap = lost {
            do {
                try write(.gap(lost: gap.count, from: gap.from, to: gap.to))
            } catch {
                lose(at: time)
                throw error
            }
            lost = nil
        }
        let position = JournalPosition(segment: segment.number, counter: segment.counter)
        do {
            try write(record)
        } catch {
            lose(at: time)
            throw error
        }
        return position
    }

    /// Closes the journal with a final record.
    public func close() throws(JournalError) {
        guard !closed else { return }
        let records = segment.counter + 1
        try write(.final(records: records, reason: .stopped))
        _ = fdatasync(segment.descriptor.rawValue)
        closed = true
        try? segment.descriptor.close()
        JournalHead(journal: journal, segment: segment.number, closedWith: records).write(
            in: directory, sync: limits.syncEachRecord)
    }

    /// Records lost since the last one written (a full disk).
    public var lostRecords: UInt64 { lost?.count ?? 0 }

    private func lose(at time: Double) {
        let stamp = Int64(time * 1e9)
        if var gap = lost {
            gap.count += 1
            gap.to = stamp
            lost = gap
        } else {
            lost = (1, stamp, stamp)
        }
    }

    private func write(_ record: JournalRecord) throws(JournalError) {
        let frame = try segment.sealer.frame(record, counter: segment.counter)
        do {
            let written = try segment.descriptor.writeAll(frame)
            precondition(written == frame.count)
            if limits.syncEachRecord { _ = fdatasync(segment.descriptor.rawValue) }
        } catch {
            // A partial frame would be read as a torn write: take it back, so the segment goes on.
            _ = ftruncate(segment.descriptor.rawValue, off_t(segment.bytes))
            _ = lseek(segment.descriptor.rawValue, off_t(segment.bytes), SEEK_SET)
            throw JournalError("cannot write to \(Self.path(directory, segment.number)): \(error)")
        }
        segment.counter += 1
        segment.bytes += frame.count
        written.count(record)
    }

    /// Closes the segment with a final record and begins the next. The next is made first, and
    /// the final record written only once it exists: a full disk at either step leaves the
    /// segment open as it was (it grows past its size until there is room), never a final record
    /// with nothing after it, nor a new segment that counts a final record its predecessor lacks.
    private func rotate(_ reason: JournalRecord.FinalReason, at time: Double) throws(JournalError) {
        let closing = segment
        let oldest = try capped()
        let next = try Self.open(
            directory: directory, journal: journal, number: closing.number + 1, recipient: recipient,
            now: time,
            opening: .init(
                previous: closing.number, previousFrames: closing.counter + 1, previousCutAt: 0,
                oldestKept: oldest),
            sync: limits.syncEachRecord)
        do {
            try write(.final(records: closing.counter + 1, reason: reason))
        } catch {
            try? next.descriptor.close()
            unlink(Self.path(directory, next.number))
            throw error
        }
        _ = fdatasync(closing.descriptor.rawValue)
        segment = next
        written.openings += 1
        try? closing.descriptor.close()
        JournalHead(journal: journal, segment: next.number, closedWith: nil).write(
            in: directory, sync: limits.syncEachRecord)
    }

    /// Removes the oldest segments while the journal is over its cap; returns the oldest kept.
    private func capped() throws(JournalError) -> UInt64 {
        var numbers = try Self.segments(in: directory)
        var sizes = numbers.map { Self.size(Self.path(directory, $0)) }
        while numbers.count > 1, sizes.reduce(0, +) > limits.totalBytes {
            unlink(Self.path(directory, numbers[0]))
            numbers.removeFirst()
            sizes.removeFirst()
            removedSegments += 1
        }
        return numbers.first ?? segment.number
    }

    // MARK: Files

    private static func open(
        directory: String, journal: [UInt8], number: UInt64, recipient: Curve25519.KeyAgreement.PublicKey,
        now: Double, opening: JournalRecord.Opening, sync: Bool
    ) throws(JournalError) -> OpenSegment {
        let sealer = try JournalSealer(
            recipient: recipient, journal: journal, segment: number, created: Int64(now * 1e9))
        let path = Self.path(directory, number)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                permissions: [.ownerReadWrite])
        } catch {
            throw JournalError("cannot make \(path): \(error)")
        }
        var segment = OpenSegment(
            number: number, descriptor: descriptor, sealer: sealer, bytes: 0, opened: now)
        do {
            // The header and the opening record in one write: a process killed between two
            // writes cannot leave a segment without its opening.
            let first = sealer.header.bytes + (try sealer.frame(.opening(opening), counter: 0))
            _ = try descriptor.writeAll(first)
            segment.bytes = first.count
            segment.counter = 1
            _ = fdatasync(descriptor.rawValue)
        } catch {
            try? descriptor.close()
            unlink(path)
            throw JournalError("cannot start \(path): \(error)")
        }
        // The new file's name is durable too.
        if let directoryDescriptor = try? FileDescriptor.open(directory, .readOnly, options: [.directory]) {
            if sync { _ = fsync(directoryDescriptor.rawValue) }
            try? directoryDescriptor.close()
        }
        return segment
    }

    /// The segments' numbers, oldest first.
    static func segments(in directory: String) throws(JournalError) -> [UInt64] {
        guard let handle = opendir(directory) else {
            throw JournalError("cannot read the journal directory \(directory): \(errnoDescription(errno))")
        }
        defer { closedir(handle) }
        var numbers: [UInt64] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if let number = JournalFormat.segmentNumber(fileName: name) { numbers.append(number) }
        }
        return numbers.sorted()
    }

    static func path(_ directory: String, _ number: UInt64) -> String {
        directory + "/" + JournalFormat.fileName(segment: number)
    }

    static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// A file's bytes.
    static func read(_ path: String) throws(JournalError) -> [UInt8] {
        do {
            let descriptor = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
            defer { try? descriptor.close() }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
                if count == 0 { break }
                bytes += chunk[0..<count]
            }
            return bytes
        } catch {
            throw JournalError("cannot read \(path): \(error)")
        }
    }
}
