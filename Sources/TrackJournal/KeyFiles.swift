// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension JournalKeys {
    /// Makes the key file `path` holding `text`, with `mode`; never replaces one (`O_EXCL`). The
    /// file is on disk (`fsync`) when this returns.
    public static func createKeyFile(_ path: String, _ text: String, mode: mode_t) throws(KeyFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw KeyFileError(code: errno) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw KeyFileError(code: errno)
            }
            offset += written
        }
        guard fsync(descriptor) == 0 else { throw KeyFileError(code: errno) }
    }
}

/// Why a key file could not be made: the failed system call's `errno`.
public struct KeyFileError: Error, CustomStringConvertible {
    public var code: Int32
    public var description: String { String(cString: strerror(code)) }
}
