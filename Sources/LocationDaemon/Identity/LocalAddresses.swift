// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The addresses of this machine, as the daemon's network namespace sees them: the loopback
/// ranges and every address of every interface (`getifaddrs(3)`). A TCP client at one of them is
/// a program of this machine, whatever the kernel's table of sockets says, and is never taken for
/// a network client.
enum LocalAddresses {
    /// Whether `address` (4 or 16 bytes, network order; an IPv4 address mapped into IPv6 counts
    /// as IPv4) is this machine's. An interface list that cannot be read counts every address as
    /// this machine's: a client is then refused rather than served by its address alone.
    static func contains(_ address: [UInt8]) -> Bool {
        if TCPPeer.Endpoint(address: address, port: 0).isLoopback { return true }
        let candidate = AddressBlock.unmapped(address)
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return true }
        defer { freeifaddrs(first) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ifa_addr, bytes(of: socketAddress) == candidate {
                return true
            }
            entry = current.pointee.ifa_next
        }
        return false
    }

    /// An interface address's bytes, for IPv4 and IPv6.
    private static func bytes(of address: UnsafeMutablePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                AddressBlock.unmapped(withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) })
            }
        default:
            return nil
        }
    }
}
