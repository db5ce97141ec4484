// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import LocationWire
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// gpslocd as systemd runs it: the units verify, the socket is passed already listening
/// (`systemd-socket-activate`, from Debian's systemd package), and READY and STOPPING reach the
/// notification socket.
@Suite("gpslocd under systemd", .serialized)
struct DaemonSystemdTests {
    /// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
    final class NotifySocket: Sendable {
        let path: String
        let descriptor: Int32

        /// Why the socket could not be made: the test stops there, rather than wait for
        /// notifications that cannot come.
        struct Unbound: Error, CustomStringConvertible {
            var description: String
        }

        init(directory: String) throws {
            path = directory + "/notify"
            descriptor = closeOnExecSocket(domain: AF_UNIX, type: SocketType.datagram)
            guard descriptor >= 0 else {
                throw Unbound(description: "no socket for \(path): \(String(cString: strerror(errno)))")
            }
            guard let address = UnixSocketAddress(path: path) else {
                close(descriptor)
                throw Unbound(description: "\(path) is too long for a socket's address")
            }
            guard address.withSockAddr({ bind(descriptor, $0, $1) }) == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw Unbound(description: "cannot bind \(path): \(reason)")
            }
        }

        /// The next notification, waiting up to `seconds`.
        func next(within seconds: Int32 = 20) -> String? {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, seconds * 1000) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
        }

        deinit { close(descriptor) }
    }

    @Test("the units in dist/ verify, with ExecStart pointing at the built daemon and gpsloc")
    func unitsVerify() async throws {
        let analyze = try #require(Daemons.path(of: "systemd-analyze"), "install Debian's systemd package")
        let directory = NSTemporaryDirectory() + "gpslocd-units-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dist = Fixtures.packageRoot.appendingPathComponent("dist/systemd")
        let service = try String(contentsOf: dist.appendingPathComponent("gpslocd.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/gpslocd", with: gpslocdBinary.path)
        try service.write(toFile: directory + "/gpslocd.service", atomically: true, encoding: .utf8)
        // The track recorder's and the uplink's units, pointing at the built gpsloc (the uplink's
        // environment file, which the administrator writes, made here).
        for unit in ["gpsloc-record.service", "gpsloc-uplink.service"] {
            let text = try String(contentsOf: dist.appendingPathComponent(unit), encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/gpsloc ", with: Runner.gpsloc.path + " ")
                .replacingOccurrences(of: "/etc/opencorelocation/uplink.env", with: directory + "/uplink.env")
            try text.write(toFile: directory + "/" + unit, atomically: true, encoding: .utf8)
        }
        try "UPLINK_BROKER=mqtt://127.0.0.1\n".write(
            toFile: directory + "/uplink.env", atomically: true, encoding: .utf8)
        for socket in ["gpslocd.socket", "gpslocd-gpsd.socket"] {
            try FileManager.default.copyItem(
                atPath: dist.appendingPathComponent(socket).path, toPath: directory + "/" + socket)
        }
        let result = try await Runner.run(
            [
                "verify", directory + "/gpslocd.socket", directory + "/gpslocd-gpsd.socket",
                directory + "/gpslocd.service", directory + "/gpsloc-record.service",
                directory + "/gpsloc-uplink.service",
            ],
            executable: URL(fileURLWithPath: analyze))
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty && result.standardOutput.isEmpty, "\(result.standardError)")
        for line in [
            "Type=notify", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
            "StateDirectory=opencorelocation", "RuntimeDirectory=opencorelocation", "DevicePolicy=closed",
            "WatchdogSec=",
        ] {
            #expect(service.contains(line), "the service sets \(line)")
        }
    }

    @Test("socket activation: the daemon starts on the first connection and serves it; READY, then STOPPING")
    func socketActivation() async throws {
        let activate = try #require(
            Daemons.path(of: "systemd-socket-activate"), "install Debian's systemd package")
        let daemon = try DaemonHarness(sources: [])
        let notify = try NotifySocket(directory: daemon.root)
        try FileManager.default.createDirectory(
            atPath: daemon.root + "/run", withIntermediateDirectories: true)
        let process = try RunningProcess(
            ["-l", daemon.socket, "-E", "NOTIFY_SOCKET=\(notify.path)", gpslocdBinary.path]
                + daemon.arguments,
            executable: URL(fileURLWithPath: activate))
        #expect(await waitUntil(within: 10) { FileManager.default.fileExists(atPath: daemon.socket) })
        #expect(!process.errors.contains("listening on"), "nothing runs before the first connection")

        let client = try daemon.client(as: nil)
        await client.hello()
        #expect(client.identity?.app == socatPath.path, "\(client.output)\n\(process.errors)")
        #expect(notify.next()?.contains("READY=1") == true)
        #expect(process.errors.contains("serving on the socket systemd passed"), "\(process.errors)")

        await client.stop()
        process.signal(SIGTERM)
        #expect(notify.next()?.contains("STOPPING=1") == true)
        #expect(await process.wait(within: 10) == 0, "\(process.errors)")
        await daemon.stop()
    }
}
