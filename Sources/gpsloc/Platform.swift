// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes all of `bytes` to `descriptor` with `write(2)`, retrying after interruptions.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw in
            write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        }
        if written < 0 {
            if errno == EINTR { continue }
            throw SystemError(code: errno)
        }
        offset += written
    }
}

/// A failed system call, described by its `errno`.
struct SystemError: Error, CustomStringConvertible {
    var code: Int32
    var description: String { String(cString: strerror(code)) }
}

/// SIGTERM and SIGINT call `cancel` instead of ending the program (a service stopped, Ctrl-C),
/// until the returned sources are cancelled.
func onTermination(_ cancel: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
    [SIGTERM, SIGINT].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number)
        source.setEventHandler(handler: cancel)
        source.resume()
        return source
    }
}

/// `format` filled in by the C library's `vsnprintf`: what `String(format:)` printed, for the
/// few lines that used it (full Foundation is the Apple-API façade's alone).
func printf(_ format: String, _ arguments: any CVarArg...) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    let needed = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
    if needed >= buffer.count {
        buffer = [CChar](repeating: 0, count: needed + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
    }
    return String(
        decoding: buffer.prefix(max(0, min(needed, buffer.count - 1))).map { UInt8(bitPattern: $0) },
        as: UTF8.self)
}
