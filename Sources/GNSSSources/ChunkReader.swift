import GNSS
import NMEA
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a file or standard input in large chunks with `read(2)`.
public struct ChunkReader: ~Copyable {
    private let descriptor: FileDescriptor
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    /// What is being read, for messages.
    public let name: String

    /// Opens `path`, or standard input when `path` is `nil` or `"-"`.
    public init(path: String?, chunkSize: Int = 1 << 18) throws(SourceError) {
        if let path, path != "-" {
            let opened: FileDescriptor
            do { opened = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec]) } catch {
                let code = error as? Errno
                var message = "cannot open '\(path)': \(code.map { "\($0)" } ?? "\(error)")"
                if code == .noSuchFileOrDirectory {
                    message += " (check the path; use '-' to read standard input)"
                }
                throw SourceError(message, errno: code)
            }
            var info = stat()
            if fstat(opened.rawValue, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                try? opened.close()
                throw SourceError(
                    "cannot read '\(path)': it is a directory, not a log file", errno: .isDirectory)
            }
            descriptor = opened
            ownsDescriptor = true
            name = path
        } else {
            descriptor = .standardInput
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
        if ownsDescriptor { try? descriptor.close() }
    }

    /// Reads the next chunk; `nil` at end of input.
    public mutating func next<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        while true {
            let count: Int
            do {
                count = try descriptor.read(into: buffer, retryOnInterrupt: true)
            } catch Errno.wouldBlock {
                // A non-blocking standard input: wait for it rather than spin.
                var wait = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
                _ = poll(&wait, 1, -1)
                continue
            } catch {
                let code = error as? Errno
                throw SourceError("cannot read \(name): \(code.map { "\($0)" } ?? "\(error)")", errno: code)
            }
            if count == 0 { return nil }
            return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
