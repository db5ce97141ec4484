// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// A segment's frames as far as they are whole, found without the key: each frame's length is
/// sane, its bytes are all there and its CRC-32 matches. Past bytes that are not a whole frame the
/// scan resynchronises on the next offset where a whole frame begins, so that damage costs the
/// frames it hit, not the rest of the segment.
///
/// What follows the last whole frame (``tail``) is a torn write when nothing damaged comes before
/// it (a power cut while the recorder wrote); bytes between whole frames (``gaps``) are damage
/// whatever else is true, since a torn write is followed by nothing.
public struct JournalSegmentScan: Sendable {
    public var header: JournalHeader?
    /// Each whole frame's sealed bytes, by their range in the file, in file order.
    public var frames: [Range<Int>] = []
    /// Byte ranges between whole frames that are not whole frames themselves: damage.
    public var gaps: [Range<Int>] = []
    /// Where the last whole frame ends: the length a torn segment is cut to.
    public var end: Int
    /// Bytes after `end` (0 when the file ends with a whole frame).
    public var tail: Int

    /// Whether the segment is whole but for a torn end: no damage before its last whole frame.
    public var isTornAtMost: Bool { gaps.isEmpty }

    public init(_ bytes: [UInt8]) {
        guard let header = JournalHeader(bytes) else {
            self.header = nil
            end = 0
            tail = bytes.count
            return
        }
        self.header = header
        var offset = header.size
        var end = offset
        while bytes.count - offset >= JournalFormat.frameSize {
            if let frame = Self.frame(in: bytes, at: offset) {
                frames.append(frame)
                offset = frame.upperBound
                end = offset
                continue
            }
            guard let next = Self.nextFrame(in: bytes, after: offset) else { break }
            gaps.append(offset..<next)
            offset = next
        }
        self.end = end
        tail = bytes.count - end
    }

    /// The sealed bytes of the whole frame at `offset`, if one is there.
    static func frame(in bytes: [UInt8], at offset: Int) -> Range<Int>? {
        guard bytes.count - offset >= JournalFormat.frameSize else { return nil }
        let length = Int(bytes.littleEndian(UInt32.self, at: offset))
        let start = offset + JournalFormat.frameSize
        guard length >= JournalFormat.tagSize + 1, length <= JournalFormat.maximumSealed,
            bytes.count - start >= length,
            JournalFormat.crc32(bytes[start..<(start + length)])
                == bytes.littleEndian(UInt32.self, at: offset + 4)
        else { return nil }
        return start..<(start + length)
    }

    /// The first offset after `offset` where a whole frame begins, `nil` when none does.
    static func nextFrame(in bytes: [UInt8], after offset: Int) -> Int? {
        var candidate = offset + 1
        while bytes.count - candidate >= JournalFormat.minimumFrame {
            if frame(in: bytes, at: candidate) != nil { return candidate }
            candidate += 1
        }
        return nil
    }
}
