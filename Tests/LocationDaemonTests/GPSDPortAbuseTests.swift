// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// gpsd's TCP port under abuse, beside a victim of another uid following the receiver at 10 Hz on
/// gpslocd's own socket: a local user's flood (under 4096 and 512 descriptors, over IPv4 and IPv6),
/// slow and churning connections, and a flood from another host's network namespace whose block
/// is granted, beside a granted host of another block. Each prints its figures (`ABUSE …`) as
/// ``AbuseTests`` does; `tools/abuse` runs both suites alone.
@Suite(
    "gpslocd's gpsd port under abuse", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users and network namespaces"),
    .enabled(
        if: ProcessInfo.processInfo.environment["OPENCORELOCATION_ABUSE"] == "1",
        "its attacks load the whole machine, which other suites' timing would feel: tools/abuse runs it alone"
    ))
struct GPSDPortAbuseTests {
    /// Whether this machine's loopback has an IPv6 address.
    static let hasIPv6Loopback: Bool = {
        let fd = socket(AF_INET6, SocketType.stream, 0)
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return fd >= 0
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            } == 0
    }()

    /// Connections per user the daemon said it allows, from its first lines.
    static func perUser(_ log: String) -> Int? {
        guard let range = log.range(of: "each user may hold ") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }

    @Test(
        "6,000 connections of one user to gpsd's TCP port: refused past its limit; the victim and a newcomer are served within a second",
        arguments: [(4096, "127.0.0.1"), (512, "127.0.0.1"), (4096, "::1")])
    func flood(descriptorLimit: Int, address: String) async throws {
        if address.contains(":") && !Self.hasIPv6Loopback {
            print("ABUSE gpsd port flood over IPv6: not run, this machine has no ::1")
            return
        }
        let port = Daemons.freePort()
        let hostPort = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        var scene = try await Scene(descriptorLimit: descriptorLimit, extra: ["--gpsd-listen", hostPort])
        defer { scene.receiver.stop() }
        try await scene.start()
        try await scene.daemon.grantAlways(uid: scene.bob.uid, app: "/usr/bin/gpspipe")
        let attack = try Attacker.run(
            "tcpflood", count: 6000, seconds: 4, socket: hostPort, as: scene.mallory)
        #expect(await attack.waitForOutput(within: 120) { $0.contains("holding") }, "\(attack.errors)")
        // A newcomer of a third uid, on the same port, during the flood: its first TPV.
        let started = ContinuousClock.now
        let newcomer = try RunningProcess(
            scene.bob.setpriv() + ["/usr/bin/gpspipe", "-w", "-n", "12", hostPort],
            executable: setprivPath)
        let served = await newcomer.waitForOutput(within: 10) { $0.contains(#""class":"TPV""#) }
        let newcomerSeconds = AbuseTests.seconds(since: started)
        _ = await attack.wait(within: 60)
        let result = Attacker.result(attack.output)
        let silence = await scene.victimSilence.stop()
        #expect(
            served && newcomerSeconds < 1,
            "the newcomer's first TPV after \(newcomerSeconds) s: \(newcomer.output)")
        #expect(silence < 1, "the victim went \(silence) s without an update")
        let held = result["opened", default: 0] - result["refused", default: 0]
        let limit = Self.perUser(scene.daemon.log) ?? 128
        #expect(held <= limit, "the flooder held \(held) connections, its limit \(limit): \(attack.output)")
        #expect(scene.daemon.log.contains("reached its connection limit"), "\(scene.daemon.log.suffix(2000))")
        AbuseTests.report(
            "gpsd port flood (\(address), \(descriptorLimit) descriptors)",
            "attacker opened \(result["opened", default: 0]) of 6000, held \(held) (its limit \(limit)); victim's longest "
                + "silence \(AbuseTests.seconds(silence)); newcomer of a third uid's first TPV after "
                + AbuseTests.seconds(newcomerSeconds)
        )
        newcomer.signal(SIGKILL)
        _ = await newcomer.wait(within: 10)
        await scene.stop()
    }

    @Test(
        "a table of sockets grown past 16 MiB by one user's own: neither that user nor another is served as a network client"
    )
    func hugeSocketTable() async throws {
        let started = ContinuousClock.now
        let table = try await GPSDPortIdentityTests.grownSocketTable(pairs: 60_000)
        #expect(table > 16 << 20, "/proc/net/tcp held \(table) bytes")
        let took = started.duration(to: .now).components.seconds
        AbuseTests.report(
            "gpsd port, socket table grown",
            "/proc/net/tcp at \(table / (1 << 20)) MiB (120,000 sockets of one user): neither user served as a "
                + "network client, the other served as itself (\(took) s in all)")
    }

    @Test(
        "a user holding 120,000 sockets connects 100 times: finding its processes costs it, not a newcomer of another uid"
    )
    func costlyTraces() async throws {
        let port = Daemons.freePort()
        var scene = try await Scene(descriptorLimit: 4096, extra: ["--gpsd-listen", "127.0.0.1:\(port)"])
        defer { scene.receiver.stop() }
        try await scene.start()
        try await scene.daemon.grantAlways(uid: scene.bob.uid, app: "/usr/bin/gpspipe")
        // Each of the user's connections is traced to its process among the descriptors of all of
        // the user's processes: 120,000 of them here.
        let growers = try await GPSDPortIdentityTests.growSocketTable(pairs: 60_000, as: scene.mallory)
        defer { for grower in growers { grower.signal(SIGKILL) } }
        let attack = try Attacker.run(
            "tcpflood", count: 100, seconds: 8, socket: "127.0.0.1:\(port)", as: scene.mallory)
        #expect(await attack.waitForOutput(within: 120) { $0.contains("holding") }, "\(attack.errors)")
        let started = ContinuousClock.now
        let newcomer = try RunningProcess(
            scene.bob.setpriv() + ["/usr/bin/gpspipe", "-w", "-n", "12", "127.0.0.1:\(port)"],
            executable: setprivPath)
        let served = await newcomer.waitForOutput(within: 20) { $0.contains(#""class":"TPV""#) }
        let newcomerSeconds = AbuseTests.seconds(since: started)
        _ = await attack.wait(within: 60)
        let silence = await scene.victimSilence.stop()
        #expect(
            served && newcomerSeconds < 1,
            "the newcomer's first TPV after \(newcomerSeconds) s: \(newcomer.output)")
        #expect(silence < 1, "the victim went \(silence) s without an update")
        AbuseTests.report(
            "gpsd port, costly traces",
            "a user of 120,000 sockets connected 100 times; newcomer of another uid's first TPV after "
                + "\(AbuseTests.seconds(newcomerSeconds)); victim's longest silence \(AbuseTests.seconds(silence))"
        )
        newcomer.signal(SIGKILL)
        _ = await newcomer.wait(within: 10)
        await scene.stop()
    }

    @Test("slowloris on gpsd's port: a byte every 100 ms, never a whole command, closed at the deadline")
    func slowloris() async throws {
        let port = Daemons.freePort()
        var scene = try await Scene(extra: ["--gpsd-listen", "127.0.0.1:\(port)", "--hello-timeout", "1"])
        defer { scene.receiver.stop() }
        try await scene.start()
        let attack = try Attacker.run(
            "tcpslowloris", count: 50, seconds: 5, socket: "127.0.0.1:\(port)", as: scene.mallory)
        _ = await attack.wait(within: 30)
        let result = Attacker.result(attack.output)
        let silence = await scene.victimSilence.stop()
        #expect(result["closed", default: 0] == 50, "every slow connection was closed: \(attack.output)")
        #expect(result["latest", default: 99] <= 3, "within the deadline and a second: \(attack.output)")
        #expect(silence < 1, "the victim went \(silence) s without an update")
        AbuseTests.report(
            "gpsd port slowloris",
            "\(result["closed", default: 0]) of 50 slow connections closed, the last after "
                + "\(result["latest", default: -1]) s; victim's longest silence \(AbuseTests.seconds(silence))"
        )
        await scene.stop()
    }

    @Test(
        "connection churn on gpsd's port: 3,000 connects and hangs-up in a few seconds; the victim unaffected"
    )
    func churn() async throws {
        let port = Daemons.freePort()
        var scene = try await Scene(extra: ["--gpsd-listen", "127.0.0.1:\(port)"])
        defer { scene.receiver.stop() }
        try await scene.start()
        try await scene.daemon.grantAlways(uid: scene.bob.uid, app: "/usr/bin/gpspipe")
        let attack = try Attacker.run(
            "tcpchurn", count: 3000, seconds: 0, socket: "127.0.0.1:\(port)", as: scene.mallory)
        _ = await attack.wait(within: 120)
        let result = Attacker.result(attack.output)
        let newcomer = try await Runner.run(
            scene.bob.setpriv() + ["/usr/bin/gpspipe", "-w", "-n", "8", "127.0.0.1:\(port)"],
            executable: setprivPath)
        let silence = await scene.victimSilence.stop()
        let (done, failed) = (result["done", default: 0], result["failed", default: 0])
        #expect(done + failed == 3000 && done >= 1000, "\(attack.output)\(attack.errors)")
        #expect(silence < 1, "the victim went \(silence) s without an update")
        #expect(newcomer.standardOutput.contains(#""class":"TPV""#), "\(newcomer)")
        AbuseTests.report(
            "gpsd port churn",
            "\(done) connections in \(result["seconds", default: -1]) s (\(failed) more timed out in a full accept "
                + "queue); victim's longest silence \(AbuseTests.seconds(silence)); a newcomer served after")
        await scene.stop()
    }

    /// Two hosts of their own (network namespaces, each on a veth pair): the flooder's, with
    /// `addresses` addresses in its /26, and a granted client's in another /26.
    struct Hosts {
        let tag = String(UInt16.random(in: 1000...9999))
        let octet = Int.random(in: 1...250)
        var flooder: String { "ocl-flood-\(tag)" }
        var granted: String { "ocl-grant-\(tag)" }
        /// This machine's ends, which the clients connect to.
        var flooderGateway: String { "10.234.\(octet).1" }
        var grantedGateway: String { "10.234.\(octet).65" }
        var flooderBlock: String { "10.234.\(octet).0/26" }
        var grantedBlock: String { "10.234.\(octet).64/26" }
        var grantedClient: String { "10.234.\(octet).66" }
        func flooderAddresses(_ count: Int) -> [String] { (2..<(2 + count)).map { "10.234.\(octet).\($0)" } }
        static let ip = URL(fileURLWithPath: "/usr/sbin/ip")

        func make(addresses: Int) async throws {
            var commands: [[String]] = []
            for (namespace, side, gateway, first) in [
                (flooder, "f", flooderGateway, flooderAddresses(addresses)),
                (granted, "g", grantedGateway, [grantedClient]),
            ] {
                let (outer, inner) = ("ocl-\(side)o\(tag)", "ocl-\(side)i\(tag)")
                commands += [
                    ["netns", "add", namespace],
                    ["link", "add", outer, "type", "veth", "peer", "name", inner],
                    ["link", "set", inner, "netns", namespace],
                    ["addr", "add", "\(gateway)/26", "dev", outer],
                    ["link", "set", outer, "up"],
                    ["netns", "exec", namespace, "ip", "link", "set", inner, "up"],
                    ["netns", "exec", namespace, "ip", "link", "set", "lo", "up"],
                ]
                commands += first.map {
                    ["netns", "exec", namespace, "ip", "addr", "add", "\($0)/26", "dev", inner]
                }
            }
            for command in commands {
                let result = try await Runner.run(command, executable: Self.ip)
                try #require(
                    result.status == 0, "ip \(command.joined(separator: " ")): \(result.standardError)")
            }
        }

        func remove() async {
            for side in ["f", "g"] {
                _ = try? await Runner.run(["link", "del", "ocl-\(side)o\(tag)"], executable: Self.ip)
            }
            for namespace in [flooder, granted] {
                _ = try? await Runner.run(["netns", "del", namespace], executable: Self.ip)
            }
        }
    }

    @Test(
        "a flood from a granted block's host: each address held to its budget, the block to its own; a granted host of another block is served within a second"
    )
    func networkFlood() async throws {
        let hosts = Hosts()
        try await hosts.make(addresses: 40)
        do {
            try await networkFlood(hosts)
        } catch {
            await hosts.remove()
            throw error
        }
        await hosts.remove()
    }

    private func networkFlood(_ hosts: Hosts) async throws {
        let port = Daemons.freePort()
        var scene = try await Scene(descriptorLimit: 4096, extra: ["--gpsd-listen", "0.0.0.0:\(port)"])
        defer { scene.receiver.stop() }
        try await scene.start()
        let admin = try scene.daemon.client(as: nil)
        await admin.hello()
        for (id, block) in [(1, hosts.flooderBlock), (2, hosts.grantedBlock)] {
            admin.send(
                #"{"op":"auth.grant","id":\#(id),"app":"network:\#(block)","level":"always","approximate":false}"#
            )
            #expect(await admin.wait { $0.contains(.ok(id: id)) }, "\(admin.output)")
        }
        await admin.stop()
        // One address first, then forty: each address's budget, then the block's.
        let single = try Attacker.run(
            "tcpflood", count: 200, seconds: 1, socket: "\(hosts.flooderGateway):\(port)", as: scene.mallory,
            namespace: hosts.flooder, sources: hosts.flooderAddresses(1))
        _ = await single.wait(within: 60)
        let one = Attacker.result(single.output)
        let attack = try Attacker.run(
            "tcpflood", count: 3000, seconds: 4, socket: "\(hosts.flooderGateway):\(port)", as: scene.mallory,
            namespace: hosts.flooder, sources: hosts.flooderAddresses(40))
        #expect(await attack.waitForOutput(within: 120) { $0.contains("holding") }, "\(attack.errors)")
        let started = ContinuousClock.now
        let newcomer = try RunningProcess(
            [
                "netns", "exec", hosts.granted, "/usr/bin/gpspipe", "-w", "-n", "12",
                "\(hosts.grantedGateway):\(port)",
            ],
            executable: Hosts.ip)
        let served = await newcomer.waitForOutput(within: 10) { $0.contains(#""class":"TPV""#) }
        let newcomerSeconds = AbuseTests.seconds(since: started)
        _ = await attack.wait(within: 60)
        let result = Attacker.result(attack.output)
        let silence = await scene.victimSilence.stop()
        let heldByOne = one["opened", default: 0] - one["refused", default: 0]
        let held = result["opened", default: 0] - result["refused", default: 0]
        let perBlock = Self.perUser(scene.daemon.log) ?? 128
        #expect(heldByOne <= 16, "one address held \(heldByOne): \(single.output)")
        #expect(held <= perBlock, "the block held \(held), its budget \(perBlock): \(attack.output)")
        #expect(
            served && newcomerSeconds < 1,
            "the granted host's first TPV after \(newcomerSeconds) s: \(newcomer.output)")
        #expect(silence < 1, "the victim went \(silence) s without an update")
        #expect(
            scene.daemon.log.contains(
                "network client \(hosts.flooderAddresses(1)[0]) reached its connection limit"))
        #expect(
            scene.daemon.log.contains(
                "network block network:\(hosts.flooderBlock) reached its connection limit"))
        AbuseTests.report(
            "gpsd port network flood",
            "one address held \(heldByOne) of 200 (budget 16); forty addresses of one block held \(held) of "
                + "\(result["opened", default: 0]) (budget \(perBlock)); a granted host of another block's first TPV after "
                + "\(AbuseTests.seconds(newcomerSeconds)); victim's longest silence \(AbuseTests.seconds(silence))"
        )
        newcomer.signal(SIGKILL)
        _ = await newcomer.wait(within: 10)
        await scene.stop()
    }
}
