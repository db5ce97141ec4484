// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import GNSS
import GNSSSources
import Locking
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where network sources listen and connect: UDP on loopback unless told otherwise, IPv6
/// literals in brackets.
@Suite("Network addresses")
struct NetworkAddressTests {
    @Test(
        "addresses with and without a host, IPv6 in brackets",
        arguments: [
            ("udp://:10110", SourceAddress.udp(address: nil, port: 10110)),
            ("udp://0.0.0.0:10110", .udp(address: "0.0.0.0", port: 10110)),
            ("udp://[::]:10110", .udp(address: "::", port: 10110)),
            ("tcp://[::1]:10110", .tcp(host: "::1", port: 10110)),
            ("tcp://:10110", .tcp(host: "localhost", port: 10110)),
            ("gpsd://[fd00::2]", .gpsd(host: "fd00::2", port: 2947, device: nil)),
            ("gpsd://[fd00::2]:2948/dev/ttyACM0", .gpsd(host: "fd00::2", port: 2948, device: "/dev/ttyACM0")),
        ])
    func parsed(_ text: String, _ address: SourceAddress) throws {
        #expect(try SourceAddress(parsing: text) == address)
    }

    @Test("a bracket left open, or junk after it, is refused with the fix")
    func refused() {
        #expect {
            try SourceAddress(parsing: "tcp://[::1:10110")
        } throws: { "\($0)".contains("closing bracket") }
        #expect {
            try SourceAddress(parsing: "tcp://[::1]10110")
        } throws: { "\($0)".contains("after [address] comes :port") }
    }

    /// This machine's first IPv4 address that is not loopback, if it has one.
    static var externalAddress: String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry?.pointee {
            entry = current.ifa_next
            guard let address = current.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            if UInt32(bigEndian: ipv4.s_addr) >> 24 == 127 { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var copy = ipv4
            inet_ntop(AF_INET, &copy, &text, socklen_t(text.count))
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    static func send(_ text: String, to host: String, port: Int) {
        let sender = socket(AF_INET, SocketType.datagram, 0)
        defer { close(sender) }
        var target = Daemons.loopback(port: port)
        inet_pton(AF_INET, host, &target.sin_addr)
        let datagram = Array(text.utf8)
        _ = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(sender, datagram, datagram.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    @Test(
        "udp://:port hears this machine only: a datagram to its network address is not read",
        .enabled(if: externalAddress != nil, "this machine has no IPv4 address besides loopback"))
    func loopbackOnly() async throws {
        let external = try #require(Self.externalAddress)
        let port = Daemons.freePort(datagram: true)
        let received = Mutex<[Fix]>([])
        let source = try SourceAddress(parsing: "udp://:\(port)").open()
        let run = Task { try await source.run { fix in received.withLock { $0.append(fix) } } }
        let sample = try driveSample(epochs: 40)
        let sentences = String(decoding: sample.bytes, as: UTF8.self).split(separator: "\r\n")
        // The first half to the network address, the second to loopback, in rounds until the
        // listener is up and loopback's have come.
        let half = sentences.count / 2
        for _ in 0..<50 where received.withLock({ $0.count }) < 5 {
            for line in sentences[..<half] { Self.send(line + "\r\n", to: external, port: port) }
            for line in sentences[half...] { Self.send(line + "\r\n", to: "127.0.0.1", port: port) }
            try await Task.sleep(for: .milliseconds(50))
        }
        let early = Set(sample.fixes[..<(sample.fixes.count / 2 - 1)].compactMap(\.time))
        let got = received.withLock { $0 }.filter(\.hasPosition)
        #expect(got.count >= 5, "loopback's datagrams are read")
        #expect(!got.contains { $0.time.map(early.contains) == true }, "the network address's are not")
        run.cancel()
        _ = try? await run.value
    }
}
