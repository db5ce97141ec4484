// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The socket types, as `closeOnExecSocket` and `getaddrinfo`'s hints take them. Named here only:
/// CLinux includes <sys/socket.h>, so which module Swift credits with `SOCK_STREAM` depends on
/// the order a compiler process loads its modules in (see CLinux's shim); this file imports both.
public enum SocketType {
    public static let stream = CInt(SOCK_STREAM.rawValue)
    public static let datagram = CInt(SOCK_DGRAM.rawValue)
}

/// `socket(2)` whose descriptor is closed on exec from the call that makes it, so that no other
/// thread's fork and exec inherits it; non-blocking too when `nonBlocking`. `type` is
/// `SocketType.stream` or `SocketType.datagram`. -1 with `errno` set when it fails, as `socket(2)`.
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

/// A Unix socket's address (`sockaddr_un`): a path, or a name in the abstract namespace (the
/// form systemd's `$NOTIFY_SOCKET` takes when it starts with `@`), made once and checked to fit.
public struct UnixSocketAddress: Sendable {
    private var address = sockaddr_un()
    /// The address's length as the system calls take it: the path and its terminating zero, or
    /// the abstract name's leading zero and its bytes (no terminator: every byte is the name's).
    private let length: socklen_t

    /// The address of `path`, nil when it is empty or does not fit: 107 bytes at most, the path
    /// with its terminating zero or the abstract name after its leading zero. The caller names
    /// the setting that made it so long.
    public init?(path: String, abstract: Bool = false) {
        let bytes = (abstract ? [0] : []) + Array(path.utf8)
        let room = MemoryLayout.size(ofValue: address.sun_path) - (abstract ? 0 : 1)
        guard !path.isEmpty, bytes.count <= room else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as `connect(2)`, `bind(2)` and `sendto(2)` take it.
    public func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows
        -> Result
    {
        try withUnsafePointer(to: address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
