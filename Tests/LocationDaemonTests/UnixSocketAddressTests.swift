// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The Unix socket addresses the daemon sends to (chronyd's sockets, systemd's `$NOTIFY_SOCKET`)
/// and gpsloc connects to: a datagram sent to one reaches the socket bound to it, in a directory
/// and in the abstract namespace, and a path too long for one is refused, never cut short.
@Suite("Unix socket addresses")
struct UnixSocketAddressTests {
    /// A socket call that failed, and its errno.
    private struct CallFailed: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: errno \(code)" }
    }

    /// A datagram socket bound to `address`, and one that sends `text` to it: what the bound one
    /// reads, and the length of the address the kernel bound it to.
    private static func roundTrip(_ address: UnixSocketAddress, _ text: String) throws -> (String?, Int) {
        let receiver = closeOnExecSocket(domain: AF_UNIX, type: SocketType.datagram)
        let sender = closeOnExecSocket(domain: AF_UNIX, type: SocketType.datagram)
        defer {
            close(receiver)
            close(sender)
        }
        guard receiver >= 0 && sender >= 0 else { throw CallFailed(call: "socket", code: errno) }
        guard address.withSockAddr({ bind(receiver, $0, $1) }) == 0 else {
            throw CallFailed(call: "bind", code: errno)
        }
        let sent = text.withCString { bytes in
            address.withSockAddr { sendto(sender, bytes, strlen(bytes), Int32(MSG_DONTWAIT), $0, $1) }
        }
        guard sent == text.utf8.count else { throw CallFailed(call: "sendto", code: errno) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = recv(receiver, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        var bound = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(receiver, $0, &length) }
        }
        guard named == 0 else { throw CallFailed(call: "getsockname", code: errno) }
        return (count >= 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil, Int(length))
    }

    /// sun_family's bytes, before the path.
    private static let family = MemoryLayout<sa_family_t>.size

    @Test("a path in a directory, the longest that fits")
    func path() throws {
        let directory = NSTemporaryDirectory() + "ocl-address-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // sun_path holds 108 bytes: 107 and the terminating zero.
        let name = String(repeating: "s", count: 107 - directory.utf8.count - 1)
        let path = directory + "/" + name
        let address = try #require(UnixSocketAddress(path: path))
        let (read, length) = try Self.roundTrip(address, "READY=1")
        #expect(read == "READY=1")
        #expect(length == Self.family + path.utf8.count + 1, "the path and its terminating zero")
        #expect(FileManager.default.fileExists(atPath: path), "bound elsewhere than at the path")
        #expect(UnixSocketAddress(path: path + "s") == nil)
        #expect(UnixSocketAddress(path: "") == nil)
    }

    @Test("a name in the abstract namespace: every byte of it, and no terminator")
    func abstract() throws {
        let name = "ocl-address-\(UUID().uuidString)"
        let address = try #require(UnixSocketAddress(path: name, abstract: true))
        let (read, length) = try Self.roundTrip(address, "WATCHDOG=1")
        #expect(read == "WATCHDOG=1")
        // A zero after the name would be a byte of another name, one nobody listens on.
        #expect(length == Self.family + 1 + name.utf8.count, "the leading zero and the name, nothing after")
        let longest = String((name + String(repeating: "a", count: 107)).prefix(107))
        let (longRead, longLength) = try Self.roundTrip(
            try #require(UnixSocketAddress(path: longest, abstract: true)), "1")
        #expect(longRead == "1" && longLength == MemoryLayout<sockaddr_un>.size)
        #expect(UnixSocketAddress(path: longest + "a", abstract: true) == nil)
    }
}
