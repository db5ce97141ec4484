import GNSS
import NMEA

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a log could not be read.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Removes `#` comment lines from a log as it streams by, and reads the `# Date: YYYY-MM-DD`
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
        let text = String(decoding: comment, as: UTF8.self)
        let prefix = " Date:"
        guard text.hasPrefix(prefix) else { return }
        let value = text.dropFirst(prefix.count).drop(while: { $0 == " " })
        headerDate = CivilDate(parsing: value.prefix(while: { !$0.isWhitespace }))
    }
}

/// Reads a file or standard input in large chunks with `read(2)`.
public struct ChunkReader: ~Copyable {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    /// What is being read, for messages.
    public let name: String

    /// Opens `path`, or standard input when `path` is `nil` or `"-"`.
    public init(path: String?, chunkSize: Int = 1 << 18) throws(SourceError) {
        if let path, path != "-" {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let code = errno
                var message = "cannot open '\(path)': \(errnoDescription(code))"
                if code == ENOENT { message += " (check the path; use '-' to read standard input)" }
                throw SourceError(message)
            }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw SourceError("cannot read '\(path)': it is a directory, not a log file")
            }
            descriptor = fd
            ownsDescriptor = true
            name = path
        } else {
            descriptor = 0
            ownsDescriptor = false
            name = "standard input"
        }
        // Page-aligned: the kernel copies file pages into a buffer that starts on a page several
        // times faster than into one that starts 16 bytes in (decoding a 100 MB log from the page
        // cache took a fifth longer that way).
        buffer = .allocate(byteCount: chunkSize, alignment: 4096)
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { close(descriptor) }
    }

    /// Reads the next chunk; `nil` at end of input.
    public mutating func next<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count > 0 { return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
            if count == 0 { return nil }
            let code = errno
            if code == EINTR || code == EAGAIN { continue }
            throw SourceError("cannot read \(name): \(errnoDescription(code))")
        }
    }
}
