// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What went wrong, in the C library's words where there are some: a file operation's
/// `CocoaError` says the reason it wraps ("No such file or directory: /var/lib/x"), not its
/// type's fields; any other error says its own description.
public func errorWords(_ error: any Error) -> String {
    if let cocoa = error as? CocoaError {
        let reason: String
        if let posix = cocoa.underlying as? POSIXError {
            reason = String(cString: strerror(posix.code.rawValue))
        } else if let errno = cocoa.underlying as? Errno {
            reason = errno.description
        } else {
            reason = "file error \(cocoa.code.rawValue)"
        }
        return cocoa.filePath.map { "\(reason): \($0)" } ?? reason
    }
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
    return "\(error)"
}
