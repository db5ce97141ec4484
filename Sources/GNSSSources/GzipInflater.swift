import CZlib

/// Inflates a gzip stream chunk by chunk through zlib, in constant memory: concatenated members
/// (as `cat a.gz b.gz` or `pigz` write them) are read one after another, as `gzip -dc` does.
final class GzipInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    /// Compressed bytes waiting to be inflated.
    private let input: UnsafeMutableRawBufferPointer
    /// Whether the last member ended and nothing follows it yet.
    private(set) var atMemberEnd = false

    init(capacity: Int) throws(SourceError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = .allocate(byteCount: capacity, alignment: 16)
        guard czlib_inflate_init_gzip(stream) == Z_OK else {
            input.deallocate()
            stream.deallocate()
            throw SourceError("zlib cannot start inflating (out of memory?)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        input.deallocate()
    }

    /// Whether compressed input is waiting.
    var hasInput: Bool { stream.pointee.avail_in > 0 }

    /// Lets `fill` put compressed bytes in the input buffer (it returns how many); returns them.
    func refill(_ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        let count = try fill(input)
        stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = uInt(count)
        return count
    }

    /// Inflates what input there is into `output`; returns how many bytes it wrote. `name` is
    /// the log's, for the error that says it is damaged.
    func inflate(into output: UnsafeMutableRawBufferPointer, name: String) throws(SourceError) -> Int {
        if atMemberEnd {
            guard hasInput else { return 0 }
            // Another member follows the one that ended.
            inflateReset(stream)
            atMemberEnd = false
        }
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        let produced = output.count - Int(stream.pointee.avail_out)
        switch status {
        case Z_OK:
            return produced
        case Z_BUF_ERROR where !hasInput:
            // Nothing more can be done until more input comes.
            return produced
        case Z_STREAM_END:
            atMemberEnd = true
            return produced
        default:
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
            throw SourceError("cannot read \(name): its gzip data is damaged (\(reason))")
        }
    }
}
