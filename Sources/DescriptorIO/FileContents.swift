// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import SystemPackage

/// The bytes of the file at `path`, read until its end: a device, a pipe or a `/proc` file
/// (`/dev/null`, a shell's `<(…)`, `/proc/PID/stat`), whose size says nothing, reads as well as a
/// regular file. A file longer than `limit` bytes is refused with `EFBIG`, so that a path
/// pointed at `/dev/zero` ends. Read through a buffer on the stack: the daemon reads small
/// `/proc` files for every client every second.
public func fileContents(atPath path: String, limit: Int = 16 << 20) throws(Errno) -> [UInt8] {
    let file: FileDescriptor
    do { file = try FileDescriptor.open(path, .readOnly, options: .closeOnExec) } catch {
        throw (error as? Errno) ?? .ioError
    }
    defer { try? file.close() }
    let outcome = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { chunk in
        var contents: [UInt8] = []
        while true {
            let count: Int
            do {
                count = try file.read(into: UnsafeMutableRawBufferPointer(chunk), retryOnInterrupt: true)
            } catch {
                return Result<[UInt8], Errno>.failure((error as? Errno) ?? .ioError)
            }
            if count == 0 { return .success(contents) }
            guard contents.count + count <= limit else { return .failure(.fileTooLarge) }
            contents += chunk[..<count]
        }
    }
    return try outcome.get()
}
