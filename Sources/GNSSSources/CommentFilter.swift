// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NMEA

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Removes `#` comment lines from a log as it streams by, and reads the `# Date: YYYY-MM-DD`
/// (or `# Date = YYYY-MM-DD`)
/// header that names the day the log was recorded.
public struct CommentFilter: IncrementalDecoder, Sendable {
    /// A run of bytes outside comments, with the header date known so far.
    public struct Segment {
        public let bytes: UnsafeRawBufferPointer
        public let headerDate: CivilDate?
    }

    private var atLineStart = true
    private var inComment = false
    private var comment: [UInt8] = []
    /// The date of the first `# Date:` header seen.
    public private(set) var headerDate: CivilDate?
    /// Comment lines removed.
    public private(set) var commentLines = 0

    public init() {}

    /// Calls `output` for each run of non-comment bytes in `chunk`, with the header date known
    /// so far.
    public mutating func append(_ chunk: UnsafeRawBufferPointer, _ output: (Segment) -> Void) {
        func segment(_ bytes: UnsafeRawBufferPointer, _ date: CivilDate?) {
            output(Segment(bytes: bytes, headerDate: date))
        }
        let bytes = chunk.assumingMemoryBound(to: UInt8.self)
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        var index = 0
        var runStart = 0
        while index < count {
            if inComment {
                let byte = bytes[index]
                if byte == 10 || byte == 13 {
                    inComment = false
                    atLineStart = true
                    endComment()
                    runStart = index + 1
                } else if comment.count < 256 {
                    comment.append(byte)
                }
                index += 1
                continue
            }
            // Outside comments only a '#' at the start of a line matters: jump from one to the next.
            guard let found = memchr(base + index, Int32(UInt8(ascii: "#")), count - index) else {
                atLineStart = bytes[count - 1] == 10 || bytes[count - 1] == 13
                break
            }
            let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let startsLine =
                position == 0 ? atLineStart : bytes[position - 1] == 10 || bytes[position - 1] == 13
            index = position + 1
            guard startsLine else { continue }
            if position > runStart {
                segment(UnsafeRawBufferPointer(rebasing: chunk[runStart..<position]), headerDate)
            }
            inComment = true
            comment.removeAll(keepingCapacity: true)
        }
        if !inComment && runStart < count {
            segment(UnsafeRawBufferPointer(rebasing: chunk[runStart..<count]), headerDate)
        }
    }

    /// Ends the input: a last comment without its line end still counts (and may be the header).
    public mutating func finish(_ output: (Segment) -> Void) {
        guard inComment else { return }
        inComment = false
        atLineStart = true
        endComment()
    }

    private mutating func endComment() {
        commentLines += 1
        guard headerDate == nil else { return }
        // Both forms logs use: `# Date: 2015-03-18` and `# Date = 2015-03-18`.
        let text = String(decoding: comment, as: UTF8.self)
        guard text.hasPrefix(" Date") else { return }
        let rest = text.dropFirst(" Date".count).drop(while: { $0 == " " })
        guard let mark = rest.first, mark == ":" || mark == "=" else { return }
        let value = rest.dropFirst().drop(while: { $0 == " " })
        headerDate = CivilDate(parsing: value.prefix(while: { !$0.isWhitespace }))
    }
}
