// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLzma
import CZlib
import CZstd

/// Decompresses a log chunk by chunk, in constant memory, through the format's own library. Each
/// reads concatenated streams one after another, as `gzip -dc`, `xz -dc` and `zstd -dc` do.
///
/// The reader fills ``refill(_:)`` with compressed bytes whenever ``hasInput`` is false and calls
/// ``decompress(into:inputEnded:name:)`` until it produces nothing; once the file has ended,
/// `complete` tells a whole stream from a truncated one. Damage ends the log: the reader is told it
/// with the bytes decompressed before it, and calls no more.
protocol Decompressor: AnyObject {
    /// The format's name for messages: "gzip", "xz", "zstd".
    var formatName: String { get }
    /// Whether compressed input is waiting.
    var hasInput: Bool { get }
    /// Lets `fill` put compressed bytes in the input buffer (it returns how many); returns them.
    func refill(_ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int
    /// Decompresses what input there is into `output`; `name` is the log's, for the error that
    /// says it is damaged.
    func decompress(into output: UnsafeMutableRawBufferPointer, inputEnded: Bool, name: String)
        -> DecompressionStep
}

/// What one call of ``Decompressor/decompress(into:inputEnded:name:)`` did.
struct DecompressionStep {
    /// Bytes written to the output.
    var produced: Int
    /// Every stream seen has ended and nothing is pending.
    var complete = false
    /// Why decompression cannot go on, when the data is damaged; `produced` bytes before it are
    /// good.
    var damage: SourceError? = nil
}

/// The buffer a decompressor reads its compressed bytes from.
private struct InputBuffer {
    let bytes: UnsafeMutableRawBufferPointer
    init(capacity: Int) { bytes = .allocate(byteCount: capacity, alignment: 16) }
    func deallocate() { bytes.deallocate() }
}

/// gzip, through zlib.
final class GzipDecompressor: Decompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: InputBuffer
    /// Whether the last member ended and nothing follows it yet.
    private var atMemberEnd = false
    let formatName = "gzip"

    init(capacity: Int) throws(SourceError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = InputBuffer(capacity: capacity)
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

    var hasInput: Bool { stream.pointee.avail_in > 0 }

    func refill(_ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        let count = try fill(input.bytes)
        stream.pointee.next_in = input.bytes.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = uInt(count)
        return count
    }

    func decompress(into output: UnsafeMutableRawBufferPointer, inputEnded: Bool, name: String)
        -> DecompressionStep
    {
        if atMemberEnd {
            guard hasInput else { return DecompressionStep(produced: 0, complete: true) }
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
            return DecompressionStep(produced: produced)
        case Z_BUF_ERROR where !hasInput:
            // Nothing more can be done until more input comes.
            return DecompressionStep(produced: produced)
        case Z_STREAM_END:
            atMemberEnd = true
            return DecompressionStep(produced: produced, complete: !hasInput)
        default:
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
            return DecompressionStep(
                produced: produced,
                damage: SourceError("cannot read \(name): its gzip data is damaged (\(reason))"))
        }
    }
}

/// xz, through liblzma.
final class XZDecompressor: Decompressor {
    private let stream: UnsafeMutablePointer<lzma_stream>
    private let input: InputBuffer
    let formatName = "xz"
    /// The most memory the decoder may take: `xz -9` needs 65 MiB; a file that asks for more
    /// is refused rather than allowed to exhaust the machine.
    static let memoryLimit: UInt64 = 256 << 20

    init(capacity: Int) throws(SourceError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: clzma_stream_init())
        input = InputBuffer(capacity: capacity)
        guard lzma_stream_decoder(stream, Self.memoryLimit, clzma_concatenated) == LZMA_OK else {
            input.deallocate()
            stream.deallocate()
            throw SourceError("liblzma cannot start decoding (out of memory?)")
        }
    }

    deinit {
        lzma_end(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        input.deallocate()
    }

    var hasInput: Bool { stream.pointee.avail_in > 0 }

    func refill(_ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        let count = try fill(input.bytes)
        stream.pointee.next_in = UnsafePointer(input.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = count
        return count
    }

    func decompress(into output: UnsafeMutableRawBufferPointer, inputEnded: Bool, name: String)
        -> DecompressionStep
    {
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = output.count
        // With concatenated streams, only LZMA_FINISH lets the decoder say the last one ended.
        let status = lzma_code(stream, inputEnded ? LZMA_FINISH : LZMA_RUN)
        let produced = output.count - stream.pointee.avail_out
        let damage: SourceError
        switch status {
        case LZMA_OK: return DecompressionStep(produced: produced)
        case LZMA_STREAM_END: return DecompressionStep(produced: produced, complete: true)
        case LZMA_BUF_ERROR: return DecompressionStep(produced: produced)
        case LZMA_MEMLIMIT_ERROR:
            damage = SourceError(
                "cannot read \(name): its xz data needs more than \(Self.memoryLimit >> 20) MiB to "
                    + "decompress; xz -dc it yourself if you trust it")
        case LZMA_FORMAT_ERROR, LZMA_DATA_ERROR, LZMA_OPTIONS_ERROR:
            damage = SourceError(
                "cannot read \(name): its xz data is damaged (\(Self.describe(status)))")
        default:
            damage = SourceError("cannot read \(name): liblzma failed (\(Self.describe(status)))")
        }
        return DecompressionStep(produced: produced, damage: damage)
    }

    /// liblzma's codes in words (it has no function for them).
    static func describe(_ status: lzma_ret) -> String {
        switch status {
        case LZMA_FORMAT_ERROR: "not in the xz format"
        case LZMA_OPTIONS_ERROR: "unsupported options"
        case LZMA_DATA_ERROR: "corrupt data"
        case LZMA_MEM_ERROR: "out of memory"
        default: "error \(status.rawValue)"
        }
    }
}

/// zstd, through libzstd.
final class ZstdDecompressor: Decompressor {
    private let context: OpaquePointer
    private let input: InputBuffer
    private var buffer = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
    /// Whether the last frame ended and was flushed whole.
    private var atFrameEnd = true
    let formatName = "zstd"

    init(capacity: Int) throws(SourceError) {
        guard let context = ZSTD_createDCtx() else {
            throw SourceError("libzstd cannot start decoding (out of memory?)")
        }
        self.context = context
        input = InputBuffer(capacity: capacity)
    }

    deinit {
        ZSTD_freeDCtx(context)
        input.deallocate()
    }

    var hasInput: Bool { buffer.pos < buffer.size }

    func refill(_ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        let count = try fill(input.bytes)
        buffer = ZSTD_inBuffer(src: UnsafeRawPointer(input.bytes.baseAddress), size: count, pos: 0)
        return count
    }

    func decompress(into output: UnsafeMutableRawBufferPointer, inputEnded: Bool, name: String)
        -> DecompressionStep
    {
        if !hasInput && atFrameEnd { return DecompressionStep(produced: 0, complete: true) }
        var out = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        // A window beyond the library's default limit (128 MiB) is an error, not an allocation.
        let hint = ZSTD_decompressStream(context, &out, &buffer)
        if ZSTD_isError(hint) != 0 {
            let reason = String(cString: ZSTD_getErrorName(hint))
            return DecompressionStep(
                produced: out.pos,
                damage: SourceError("cannot read \(name): its zstd data is damaged (\(reason))"))
        }
        atFrameEnd = hint == 0
        return DecompressionStep(produced: out.pos, complete: atFrameEnd && !hasInput)
    }
}
