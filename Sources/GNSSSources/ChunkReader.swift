// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NMEA
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a file or standard input in large chunks with `read(2)`; a gzip, xz or zstd log (known by
/// its first bytes, whatever its name) is decompressed on the way, in constant memory. A format it
/// cannot read (bzip2, zip, an executable…) is refused at once, with the command that would help.
public struct ChunkReader: ~Copyable {
    private let descriptor: FileDescriptor
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    /// What is being read, for messages.
    public let name: String
    /// What the first bytes showed.
    public let format: LogFormat
    /// Bytes of the first read, still to be handed out (plain text only).
    private var peeked: Int
    private let decompressor: (any Decompressor)?
    /// Whether the compressed file has been read to its end.
    private var inputEnded = false
    /// Damage met in a chunk that also gave bytes: thrown by the next call, once those are read.
    private var damage: SourceError?
    /// The file's size in bytes, when it is a regular file (not a pipe or a terminal).
    public let size: Int?
    /// Bytes read from the file so far, before any decompression: with ``size``, how far along
    /// the reading is.
    public private(set) var bytesConsumed = 0

    /// Opens `path`, or standard input when `path` is `nil` or `"-"`, and reads its first chunk
    /// to know what it is.
    public init(path: String?, chunkSize: Int = 1 << 18) throws(SourceError) {
        let descriptor: FileDescriptor
        let name: String
        if let path, path != "-" {
            do { descriptor = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec]) } catch {
                let code = error as? Errno
                var message = "cannot open '\(path)': \(code.map { "\($0)" } ?? "\(error)")"
                if code == .noSuchFileOrDirectory {
                    message += " (check the path; use '-' to read standard input)"
                }
                throw SourceError(message, errno: code)
            }
            var info = stat()
            if fstat(descriptor.rawValue, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                try? descriptor.close()
                throw SourceError(
                    "cannot read '\(path)': it is a directory, not a log file", errno: .isDirectory)
            }
            name = path
        } else {
            descriptor = .standardInput
            name = "standard input"
        }
        let owns = path != nil && path != "-"
        var info = stat()
        let size =
            fstat(descriptor.rawValue, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
            ? Int(info.st_size) : nil
        // Page-aligned: the kernel copies file pages into a buffer that starts on a page several
        // times faster than into one that starts 16 bytes in (decoding a 100 MB log from the page
        // cache took a fifth longer that way).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        let format: LogFormat
        let first: Int
        var decompressor: (any Decompressor)?
        do throws(SourceError) {
            first = try Self.read(descriptor, into: buffer, name: name)
            format = LogFormat.detect(buffer[0..<first])
            switch format {
            case .text:
                break
            case .gzip: decompressor = try GzipDecompressor(capacity: chunkSize)
            case .xz: decompressor = try XZDecompressor(capacity: chunkSize)
            case .zstd: decompressor = try ZstdDecompressor(capacity: chunkSize)
            case .compressed(let kind, let command):
                let file = owns ? " '\(name)'" : ""
                throw SourceError(
                    "\(name) is \(kind == "a zip archive" ? kind : kind + "-compressed"); this build reads "
                        + "gzip, xz and zstd: \(command)\(file) | gpsloc decode -")
            case .trackJournal:
                throw SourceError(
                    "\(name) is a sealed track journal, not an NMEA log: `gpsloc decode --key FILE` decodes "
                        + "the NMEA it was recorded with, and --source 'file:JOURNAL?key=FILE' replays it")
            case .notALog(let what):
                throw SourceError("\(name) is \(what), not an NMEA log")
            }
        } catch {
            buffer.deallocate()
            if owns { try? descriptor.close() }
            throw error
        }
        self.descriptor = descriptor
        self.ownsDescriptor = owns
        self.name = name
        self.buffer = buffer
        self.format = format
        _ = decompressor?.refill { input in
            input.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<first]))
            return first
        }
        self.decompressor = decompressor
        self.size = size
        bytesConsumed = first
        peeked = decompressor == nil ? first : 0
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { try? descriptor.close() }
    }

    /// Reads what is there into `buffer`; 0 at the end.
    private static func read(
        _ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, name: String
    )
        throws(SourceError) -> Int
    {
        while true {
            do {
                return try descriptor.read(into: buffer, retryOnInterrupt: true)
            } catch Errno.wouldBlock {
                // A non-blocking standard input: wait for it rather than spin.
                var wait = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
                _ = poll(&wait, 1, -1)
            } catch {
                let code = error as? Errno
                throw SourceError("cannot read \(name): \(code.map { "\($0)" } ?? "\(error)")", errno: code)
            }
        }
    }

    /// Reads the next chunk (decompressed, for a compressed log); `nil` at end of input.
    public mutating func next<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        if peeked > 0 {
            defer { peeked = 0 }
            return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<peeked]))
        }
        guard let decompressor else {
            let count = try Self.read(descriptor, into: buffer, name: name)
            bytesConsumed += count
            if count == 0 { return nil }
            return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        if let damage { throw damage }
        while true {
            if !decompressor.hasInput && !inputEnded {
                let (descriptor, name) = (self.descriptor, self.name)
                let count = try decompressor.refill { input throws(SourceError) in
                    try Self.read(descriptor, into: input, name: name)
                }
                inputEnded = count == 0
                bytesConsumed += count
            }
            let step = decompressor.decompress(into: buffer, inputEnded: inputEnded, name: name)
            if let found = step.damage {
                guard step.produced > 0 else { throw found }
                damage = found
            }
            if step.produced > 0 {
                return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced]))
            }
            if inputEnded {
                if step.complete { return nil }
                throw SourceError(
                    "cannot read \(name): its \(decompressor.formatName) data ends early (a truncated file?)")
            }
        }
    }
}
