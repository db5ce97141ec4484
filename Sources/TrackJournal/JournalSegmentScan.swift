// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// A segment's frames as far as they are whole, found without the key: each frame's length is
/// sane, its bytes are all there and its CRC-32 matches. What follows the last whole frame is a
/// torn write (a power cut), or damage that the key would show.
public struct JournalSegmentScan: Sendable {
    public var header: JournalHeader?
    /// Each whole frame's sealed bytes, by their range in the file.
    public var frames: [Range<Int>] = []
    /// Where the whole frames end: the length the file is cut to after a power cut.
    public var end: Int
    /// Bytes after `end` (0 when the file ends with a whole frame).
    public var trailing: Int

    public init(_ bytes: [UInt8]) {
        guard let header = JournalHeader(bytes) else {
            self.header = nil
            end = 0
            trailing = bytes.count
            return
        }
        self.header = header
        var offset = JournalFormat.headerSize
        while bytes.count - offset >= JournalFormat.frameSize {
            let length = Int(bytes.littleEndian(UInt32.self, at: offset))
            let crc = bytes.littleEndian(UInt32.self, at: offset + 4)
            let start = offset + JournalFormat.frameSize
            guard length >= JournalFormat.tagSize + 1, length <= JournalFormat.maximumSealed,
                bytes.count - start >= length, JournalFormat.crc32(bytes[start..<(start + length)]) == crc
            else { break }
            frames.append(start..<(start + length))
            offset = start + length
        }
        end = offset
        trailing = bytes.count - offset
    }
}
