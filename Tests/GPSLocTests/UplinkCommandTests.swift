// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// `gpsloc uplink`, the built binary, against Debian's mosquitto on a private loopback port, with
/// `mosquitto_sub` as the fleet: every location arrives, in order, through a broker outage; TLS
/// with a CA of the test's own and a password; a wrong password is named.
@Suite(
    "gpsloc uplink to a real broker", .serialized,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto"),
        "mosquitto is not installed (tools/test installs it)"))
struct UplinkCommandTests {
    /// A broker of the test's own, persistent (a subscriber's session outlives a restart); as root it
    /// stays root (`user root`), to read the test's keys.
    final class Broker {
        let directory: String
        let port: Int
        private var process: RunningProcess?
        let extra: String

        init(directory: String, extra: String = "") throws {
            self.directory = directory
            port = Daemons.freePort()
            self.extra = extra
            try FileManager.default.createDirectory(
                atPath: directory + "/db", withIntermediateDirectories: true)
            try """
            listener \(port) 127.0.0.1
            persistence true
            autosave_interval 1
            persistence_location \(directory)/db/
            \(getuid() == 0 ? "user root" : "")
            \(extra.isEmpty ? "allow_anonymous true" : extra)
            """.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        }

        func start() async throws {
            process = try RunningProcess(
                ["-c", directory + "/mosquitto.conf"], executable: URL(fileURLWithPath: "/usr/sbin/mosquitto")
            )
            let port = port
            #expect(await Daemons.waitUntilListening(port: port), "\(process?.errors ?? "")")
        }

        /// Stops it at once (SIGKILL: the test runner's children inherit SIGTERM blocked); what it
        /// held is on disk within a second (`autosave_interval 1`), as an outage leaves it.
        func stop() async {
            process?.signal(SIGKILL)
            _ = await process?.wait(within: 10)
        }
    }

    struct Workspace {
        let directory = NSTemporaryDirectory() + "gpsloc-uplink-\(UUID().uuidString.prefix(8))"
        static let app = "org.example.uplink"

        init() async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>NSLocationWhenInUseUsageDescription</key><string>Sends the vehicle's position to its fleet.</string>
            <key>NSLocationAlwaysAndWhenInUseUsageDescription</key><string>Sends the vehicle's position to its fleet.</string>
            </dict></plist>
            """.write(toFile: directory + "/Info.plist", atomically: true, encoding: .utf8)
        }

        func grant(approximate: Bool = false) async throws {
            let result = try await Runner.run(
                ["auth", "grant", Self.app, "always", "--store", directory + "/store"]
                    + (approximate ? ["--approximate"] : []))
            #expect(result.status == 0, "\(result.standardError)")
        }

        func uplink(_ source: String, broker: String, extra: [String] = []) -> [String] {
            [
                "uplink", "--source", source, "--app", Self.app, "--store", directory + "/store",
                "--manifest",
                directory + "/Info.plist", "--broker", broker, "--outbox", directory + "/outbox", "--topic",
                "owntracks/fleet/van1", "--tid", "V1",
            ] + extra
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A subscriber with a persistent session, printing each message.
    static func subscriber(port: Int, extra: [String] = []) throws -> RunningProcess {
        try RunningProcess(
            ["-h", "127.0.0.1", "-p", "\(port)", "-t", "owntracks/#", "-q", "1", "-c", "-i", "fleet-\(port)"]
                + extra, executable: URL(fileURLWithPath: "/usr/bin/mosquitto_sub"))
    }

    @Test(
        "a broker that refuses the connection, or a TLS handshake that fails, is said at once, with the address and the reason"
    )
    func unreachableBrokerIsSaid() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        try await workspace.grant()
        let log = Fixtures.url("drive-1hz.nmea").path
        // Nobody listens on the port: the connection is refused.
        let closed = Daemons.freePort()
        let refused = try RunningProcess(
            workspace.uplink("file:\(log)?speed=10", broker: "mqtt://127.0.0.1:\(closed)"))
        let said = "the broker is unreachable (cannot reach 127.0.0.1:\(closed): Connection refused)"
        #expect(await waitUntil(within: 5) { refused.errors.contains(said) }, "\(refused.errors)")
        refused.signal(SIGTERM)
        _ = await refused.wait(within: 20)
        // A broker that speaks no TLS, asked for it with a CA of the test's own: the handshake fails.
        let ca = workspace.directory + "/ca"
        let made = try await Runner.run(
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
                "-keyout",
                ca + ".key", "-out", ca + ".pem",
            ], executable: URL(fileURLWithPath: "/usr/bin/openssl"))
        try #require(made.status == 0, "\(made.standardError)")
        let broker = try Broker(directory: workspace.directory + "/broker")
        try await broker.start()
        let tls = try RunningProcess(
            workspace.uplink(
                "file:\(log)?speed=10", broker: "mqtts://127.0.0.1:\(broker.port)",
                extra: ["--cafile", ca + ".pem"]))
        #expect(
            await waitUntil(within: 5) {
                tls.errors.contains(
                    "the broker is unreachable (cannot reach 127.0.0.1:\(broker.port): A TLS error")
            }, "\(tls.errors)")
        try await Task.sleep(for: .seconds(3))
        #expect(tls.errors.components(separatedBy: "A TLS error").count == 2, "said once: \(tls.errors)")
        tls.signal(SIGTERM)
        _ = await tls.wait(within: 20)
        await broker.stop()
    }

    @Test("a drive through a broker outage: every location arrives, in order, as OwnTracks JSON")
    func outage() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        try await workspace.grant()
        let broker = try Broker(directory: workspace.directory + "/broker")
        try await broker.start()
        let fleet = try Self.subscriber(port: broker.port)
        try await Task.sleep(for: .milliseconds(500))
        let log = Fixtures.url("drive-1hz.nmea").path
        let uplink = try RunningProcess(
            workspace.uplink("file:\(log)?speed=10", broker: "mqtt://127.0.0.1:\(broker.port)"))
        #expect(
            await fleet.waitForOutput(within: 15) { jsonObjects(inLines: $0).count >= 40 }, "\(uplink.errors)"
        )
        await broker.stop()
        #expect(
            await uplink.waitForOutput(within: 10) { _ in uplink.errors.contains("the broker is unreachable")
            })
        try await Task.sleep(for: .seconds(6))
        try await broker.start()
        #expect(await uplink.wait(within: 60) == 0, "\(uplink.errors)")
        try await Task.sleep(for: .seconds(1))
        fleet.signal(SIGKILL)
        _ = await fleet.wait(within: 10)

        await broker.stop()
        let received = jsonObjects(inLines: fleet.output)
        let stamps = received.compactMap { $0["tst"] as? Int }
        var seen = Set<Int>()
        let unique = stamps.filter { seen.insert($0).inserted }
        // The drive's 300 fixes, one a second: every one arrived, in order once duplicates are dropped.
        #expect(unique.count == 300, "\(unique.count) of 300 arrived; \(uplink.errors)")
        #expect(unique == unique.sorted())
        #expect(
            stamps.count - unique.count <= 100, "duplicates beyond one window: \(stamps.count - unique.count)"
        )
        let first = try #require(received.first)
        #expect(first["_type"] as? String == "location" && first["tid"] as? String == "V1")
        for key in ["lat", "lon", "acc", "alt", "vel", "cog"] {
            #expect(first[key] != nil, "\(key) in \(first)")
        }
        #expect(uplink.errors.contains("keeping messages until it is back"))
    }

    @Test("a damaged outbox: the damaged message is counted lost, never sent, and every other one arrives")
    func damagedOutbox() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        try await workspace.grant()
        // The broker away: the drive's 300 messages wait in the outbox.
        let broker = try Broker(directory: workspace.directory + "/broker")
        let drive = Fixtures.url("drive-1hz.nmea").path
        let away = try await Runner.run(
            workspace.uplink("file:\(drive)?speed=max", broker: "mqtt://127.0.0.1:\(broker.port)"))
        #expect(away.standardError.contains("300 messages kept in the outbox"), "\(away.standardError)")
        // One byte flipped two thirds into the outbox's messages: one message hit.
        let messages = workspace.directory + "/outbox/messages"
        let segment = try #require(
            try FileManager.default.contentsOfDirectory(atPath: messages).sorted().first {
                $0.hasSuffix(".ocj")
            })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: messages + "/" + segment))
        bytes[bytes.count * 2 / 3] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: messages + "/" + segment))
        // Back, with a short drive of its own (its first twenty seconds): the outbox goes out first.
        try await broker.start()
        let fleet = try Self.subscriber(port: broker.port)
        try await Task.sleep(for: .milliseconds(500))
        let short = Fixtures.url("drive-10hz.nmea").path
        let back = try await Runner.run(
            workspace.uplink("file:\(short)?speed=max", broker: "mqtt://127.0.0.1:\(broker.port)"))
        #expect(back.status == 0, "\(back.standardError)")
        #expect(
            back.standardError.contains(
                "the outbox is damaged: 1 record lost, never sent; the 299 messages around it are sent"),
            "\(back.standardError)")
        try await Task.sleep(for: .seconds(1))
        fleet.signal(SIGKILL)
        _ = await fleet.wait(within: 10)
        await broker.stop()
        let stamps = Set(jsonObjects(inLines: fleet.output).compactMap { $0["tst"] as? Int })
        // The short drive's seconds are the long one's first twenty: 299 of the 300 seconds arrive.
        #expect(stamps.count == 299, "\(stamps.count) distinct seconds arrived; \(back.standardError)")
    }

    @Test("approximate: positions of the app's reduced locations only, without alt, vac, vel or cog")
    func approximate() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        try await workspace.grant(approximate: true)
        let broker = try Broker(directory: workspace.directory + "/broker")
        try await broker.start()
        let fleet = try Self.subscriber(port: broker.port)
        try await Task.sleep(for: .milliseconds(500))
        let log = Fixtures.url("drive-1hz.nmea").path
        let result = try await Runner.run(
            workspace.uplink("file:\(log)?speed=max", broker: "mqtt://127.0.0.1:\(broker.port)"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(await fleet.waitForOutput(within: 10) { !jsonObjects(inLines: $0).isEmpty })
        try await Task.sleep(for: .milliseconds(500))
        fleet.signal(SIGKILL)
        _ = await fleet.wait(within: 10)
        let received = jsonObjects(inLines: fleet.output)
        #expect(!received.isEmpty && received.count <= 2, "\(received)")
        for message in received {
            #expect(Set(message.keys) == ["_type", "tid", "tst", "lat", "lon", "acc"], "\(message)")
            #expect((message["acc"] as? Int ?? 0) >= 1000)
        }
        await broker.stop()
    }

    @Test("TLS with a CA of the test's own and a password; a wrong password is named, and nothing is lost")
    func tlsAndPassword() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        try await workspace.grant()
        let pki = workspace.directory + "/pki"
        try FileManager.default.createDirectory(atPath: pki, withIntermediateDirectories: true)
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        for arguments in [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test fleet CA",
                "-keyout",
                pki + "/ca.key", "-out", pki + "/ca.pem",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout",
                pki + "/broker.key", "-out",
                pki + "/broker.csr",
            ],
        ] {
            let result = try await Runner.run(arguments, executable: openssl)
            try #require(result.status == 0, "\(result.standardError)")
        }
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: pki + "/san.ext", atomically: true, encoding: .utf8)
        let signed = try await Runner.run(
            [
                "x509", "-req", "-in", pki + "/broker.csr", "-CA", pki + "/ca.pem", "-CAkey", pki + "/ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", pki + "/san.ext", "-out", pki + "/broker.pem",
            ], executable: openssl)
        try #require(signed.status == 0, "\(signed.standardError)")
        let passwords = workspace.directory + "/passwords"
        let made = try await Runner.run(
            ["-c", "-b", passwords, "van1", "correct horse"],
            executable: URL(fileURLWithPath: "/usr/bin/mosquitto_passwd"))
        try #require(made.status == 0, "\(made.standardError)")
        let broker = try Broker(
            directory: workspace.directory + "/broker",
            extra: """
                allow_anonymous false
                password_file \(passwords)
                cafile \(pki)/ca.pem
                certfile \(pki)/broker.pem
                keyfile \(pki)/broker.key
                """)
        try await broker.start()
        let url = "mqtts://127.0.0.1:\(broker.port)"
        try "wrong\n".write(toFile: workspace.directory + "/bad", atomically: true, encoding: .utf8)
        try "correct horse\n".write(toFile: workspace.directory + "/good", atomically: true, encoding: .utf8)
        let log = Fixtures.url("drive-1hz.nmea").path

        // A wrong password: said, and the messages stay in the outbox.
        let refused = try RunningProcess(
            workspace.uplink(
                "file:\(log)?speed=max", broker: url,
                extra: [
                    "--cafile", pki + "/ca.pem", "--username", "van1", "--password-file",
                    workspace.directory + "/bad",
                ]))
        #expect(
            await refused.waitForOutput(within: 15) { _ in refused.errors.contains("not authorised") },
            "\(refused.errors)")
        #expect(await refused.wait(within: 30) == 0)
        #expect(refused.errors.contains("messages kept in the outbox for the next run"), "\(refused.errors)")

        // The right one: what was kept goes out first, then the new run's.
        let fleet = try Self.subscriber(
            port: broker.port,
            extra: ["--cafile", pki + "/ca.pem", "-u", "van1", "-P", "correct horse"])
        try await Task.sleep(for: .milliseconds(500))
        let good = try await Runner.run(
            workspace.uplink(
                "file:\(log)?speed=max", broker: url,
                extra: [
                    "--cafile", pki + "/ca.pem", "--username", "van1", "--password-file",
                    workspace.directory + "/good",
                ]))
        #expect(
            good.status == 0 && good.standardError.contains("300 messages from the outbox first"),
            "\(good.standardError)")
        #expect(
            await fleet.waitForOutput(within: 15) { jsonObjects(inLines: $0).count >= 600 }, "\(fleet.errors)"
        )
        fleet.signal(SIGKILL)
        _ = await fleet.wait(within: 10)
        await broker.stop()
    }
}
