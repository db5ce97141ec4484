// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// What the race harnesses (nmea-parse, fix-decode) share: their input, read the way the
// product's log reader reads a log.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls `body` with each chunk of the harness's input: the file named by the first argument,
/// or standard input without one (or with `-`), read in 1 MiB chunks into a page-aligned buffer,
/// as the product's log reader does (the kernel copies into it fastest). Exits with `program`'s
/// message when the input cannot be read. Inlinable, and the chunk handed to a closure rather
/// than to a generic decoder, so that each harness calls its decoder directly, as it would alone.
@inlinable
public func forEachInputChunk(program: String, _ body: (UnsafeRawBufferPointer) -> Void) {
    var descriptor: Int32 = 0
    if let path = CommandLine.arguments.dropFirst().first, path != "-" {
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            fail(program, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
    }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
    defer { buffer.deallocate() }
    while true {
        let count = read(descriptor, buffer.baseAddress, buffer.count)
        if count < 0 {
            if errno == EINTR { continue }
            fail(program, "cannot read: \(String(cString: strerror(errno)))")
        }
        if count == 0 { break }
        body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
}

/// Writes `program: message` to standard error and exits with status 1.
public func fail(_ program: String, _ message: String) -> Never {
    let text = Array("\(program): \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}
