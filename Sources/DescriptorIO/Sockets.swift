// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux

/// `socket(2)` whose descriptor is closed on exec from the call that makes it, so that no other
/// thread's fork and exec inherits it; non-blocking too when `nonBlocking`. `type` is
/// `SOCK_STREAM` or `SOCK_DGRAM`. -1 with `errno` set when it fails, as `socket(2)`.
///
/// Every socket of the project is made here or by `accept4` in CLinux: Swift finds
/// `SOCK_CLOEXEC` in Glibc in one build and not in the next (see CLinux's shim); `tools/check-layers`
/// holds every other Swift file to it.
public func closeOnExecSocket(domain: CInt, type: CInt, nonBlocking: Bool = false) -> CInt {
    clinux_socket(domain, type, nonBlocking ? 1 : 0)
}

/// `socketpair(2)` of two descriptors closed on exec. Nil with `errno` set when it fails.
public func closeOnExecSocketPair(domain: CInt, type: CInt) -> (CInt, CInt)? {
    var pair: [CInt] = [-1, -1]
    guard clinux_socketpair(domain, type, &pair) == 0 else { return nil }
    return (pair[0], pair[1])
}
