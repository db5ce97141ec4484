// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import SystemPackage

/// The bytes of the file at `path`, read until its end: a device or a pipe (`/dev/null`, a shell's
/// `<(…)`), whose size says nothing, reads as well as a regular file. A file longer than `limit`
/// bytes is refused with `EFBIG`, so that a configuration path pointed at `/dev/zero` ends.
public func fileContents(atPath path: String, limit: Int = 16 << 20) throws(Errno) -> [UInt8] {
    let file: FileDescriptor
    do { file = try FileDescriptor.open(path, .readOnly, options: .closeOnExec) } catch {
        throw error as! Errno
    }
    defer { try? file.close() }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count: Int
        do {
            count = try chunk.withUnsafeMutableBytes { try file.read(into: $0, retryOnInterrupt: true) }
        } catch {
            throw error as! Errno
        }
        if count == 0 { return contents }
        guard contents.count + count <= limit else { throw .fileTooLarge }
        contents += chunk[..<count]
    }
}
