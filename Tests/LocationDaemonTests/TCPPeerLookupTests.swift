// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import DescriptorIO
import Foundation
import Testing

@testable import LocationDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP client's socket found by one question to the kernel (sock_diag), as the kernel's tables
/// say it: the same owner and inode for a real loopback connection, and none for a connection
/// that does not exist.
@Suite("A TCP client's socket, asked of the kernel")
struct TCPPeerLookupTests {
    /// A listener on the loopback and a connection to it: the client end's and the server end's
    /// addresses, and both descriptors (the caller closes them).
    static func connection() throws -> (
        client: TCPPeer.Endpoint, server: TCPPeer.Endpoint, descriptors: [CInt]
    ) {
        let listener = socket(AF_INET, SocketType.stream, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        try #require(bound == 0 && listen(listener, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let client = socket(AF_INET, SocketType.stream, 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
        }
        try #require(connected == 0)
        let accepted = accept(listener, nil, nil)
        var local = sockaddr_in()
        var localLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &localLength) }
        }
        func endpoint(_ address: sockaddr_in) -> TCPPeer.Endpoint {
            TCPPeer.Endpoint(
                address: withUnsafeBytes(of: address.sin_addr) { Array($0) },
                port: UInt16(bigEndian: address.sin_port))
        }
        return (endpoint(local), endpoint(address), [client, accepted, listener])
    }

    @Test("sock_diag and the kernel's tables name the same owner and socket, and no socket for none")
    func lookupAgreesWithTheTables() throws {
        let (client, server, descriptors) = try Self.connection()
        defer { descriptors.forEach { close($0) } }
        let asked = TCPPeer.owner(client: client, server: server)
        let read = TCPPeer.ownerFromTables(client: client, server: server)
        guard case .socket(let uid, let inode) = asked else {
            Issue.record("no socket found for \(client) → \(server): \(asked)")
            return
        }
        #expect(asked == read, "sock_diag: \(asked), /proc/net/tcp: \(read)")
        // And the kernel answered the question itself (no fallback to the tables).
        var (askedUID, askedInode): (UInt32, UInt64) = (0, 0)
        let answered = client.address.withUnsafeBufferPointer { source in
            server.address.withUnsafeBufferPointer { destination in
                clinux_tcp_socket_owner(
                    AF_INET, source.baseAddress, client.port, destination.baseAddress, server.port, &askedUID,
                    &askedInode)
            }
        }
        #expect(answered == 1 && askedInode == inode, "sock_diag answered \(answered)")
        #expect(uid == geteuid())
        var info = stat()
        #expect(fstat(descriptors[0], &info) == 0 && UInt64(info.st_ino) == inode)
        // The same ends with a port nobody uses: no socket, said as such (a network client's case).
        let nobody = TCPPeer.Endpoint(address: client.address, port: client.port &+ 1)
        #expect(TCPPeer.owner(client: nobody, server: server) == .absent)
    }
}
