// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import LocationWire
import TestSupport
import Testing

/// The daemon as a privacy boundary, with real processes under real uids: what each client may
/// know is decided from the kernel's word about it, and nothing it says changes that.
@Suite(
    "gpslocd: privacy across a process boundary", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"))
struct DaemonPrivacyTests {
    static let socat = "/usr/bin/socat"

    static func isUpdate(_ event: WireEvent) -> Bool { if case .update = event { true } else { false } }

    @Test(
        "another uid gets nothing until an administrator grants; approximate means reduced only, precise never crosses"
    )
    func grantsAndReducedAccuracy() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let receiver = try TenHertzReceiver()
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        defer { receiver.stop() }

        let aliceClient = try daemon.client(as: alice)
        // Claiming another app's identity in the hello changes nothing: the kernel's word does.
        aliceClient.send(#"{"op":"hello","version":1,"app":"com.trusted.navigator","uid":0}"#)
        #expect(await aliceClient.wait { $0.contains { if case .hello = $0 { true } else { false } } })
        let identity = try #require(aliceClient.identity)
        #expect(identity.app == Self.socat && identity.uid == Int(alice.uid) && !identity.registered)

        // She cannot grant herself, nor anyone.
        aliceClient.send(#"{"op":"auth.grant","id":5,"app":"/usr/bin/socat","level":"always"}"#)
        #expect(
            await aliceClient.wait {
                $0.contains { if case .error(5, let m) = $0 { m.contains("administrators") } else { false } }
            })

        aliceClient.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
        aliceClient.send(#"{"op":"updates.subscribe","subscription":1}"#)
        #expect(await aliceClient.wait { $0.filter(Self.isUpdate).count >= 1 })
        try await Task.sleep(for: .seconds(1))
        #expect(aliceClient.locations.isEmpty, "undecided: no location at all")

        // An administrator (root) grants her approximate, and Bob precise, both Always.
        let admin = try daemon.client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":1,"uid":\#(alice.uid),"app":"/usr/bin/socat","level":"always","approximate":true}"#
        )
        admin.send(#"{"op":"auth.grant","id":2,"uid":\#(bob.uid),"app":"/usr/bin/socat","level":"always"}"#)
        #expect(
            await admin.wait { events in [1, 2].allSatisfy { id in events.contains { $0 == .ok(id: id) } } },
            "\(admin.output)")

        let bobClient = try daemon.client(as: bob)
        await bobClient.hello()
        bobClient.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
        bobClient.send(#"{"op":"updates.subscribe","subscription":1}"#)
        #expect(await aliceClient.wait { _ in !aliceClient.locations.isEmpty }, "\(aliceClient.output)")
        #expect(await bobClient.wait { _ in bobClient.locations.count >= 20 }, "\(bobClient.output)")
        try await Task.sleep(for: .seconds(2))

        // One receiver, two decisions: Bob's positions are the receiver's; Alice's never are.
        #expect(bobClient.locations.allSatisfy(receiver.isPrecise))
        let reduced = aliceClient.locations
        #expect(!reduced.isEmpty)
        #expect(reduced.allSatisfy { !receiver.isPrecise($0) && $0.horizontalAccuracy >= 1000 })
        #expect(reduced.allSatisfy { $0.speed == -1 && $0.course == -1 }, "speed and course withheld")
        // Nothing in her traffic carries a precise coordinate, in any member.
        for fix in receiver.fixes.prefix(receiver.epochsSent) {
            #expect(!aliceClient.output.contains(String(format: "%.6f", fix.latitude)))
        }

        await aliceClient.stop()
        await bobClient.stop()
        await admin.stop()
        await daemon.stop()
    }

    @Test(
        "one device under two names is one receiver: an approximate app meets one reduced state, one offset")
    func oneDeviceTwoNames() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let link = NSTemporaryDirectory() + "ocl-gnss-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: receiver.terminal.slavePath)
        defer { unlink(link) }
        let aliased = "serial:\(link)?baud=115200"
        let daemon = try DaemonHarness(sources: [receiver.source, aliased])
        try await daemon.start()
        #expect(daemon.log.contains("under another name"), "\(daemon.log)")
        let admin = try daemon.client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":1,"uid":\#(alice.uid),"app":"/usr/bin/socat","level":"always","approximate":true}"#
        )
        #expect(await admin.wait { $0.contains(.ok(id: 1)) })
        await admin.stop()

        var clients: [WireClient] = []
        for name in [receiver.source, aliased] {
            let client = try daemon.client(as: alice)
            client.send(#"{"op":"hello","version":1,"receiver":"\#(name)"}"#)
            client.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
            client.send(#"{"op":"updates.subscribe","subscription":1}"#)
            #expect(await client.wait { _ in !client.locations.isEmpty }, "\(client.output)")
            clients.append(client)
        }
        let told = clients.map { $0.locations.first.map { "\($0.latitude) \($0.longitude) \($0.time)" } }
        #expect(told[0] == told[1], "both names told the one state's output: \(told)")
        let reduced =
            (try? FileManager.default.contentsOfDirectory(
                atPath: "\(daemon.state)/decisions/\(alice.uid)/reduced")) ?? []
        #expect(reduced.count == 1, "one reduced state: \(reduced)")
        for client in clients { await client.stop() }
        await daemon.stop()
    }

    @Test("a registered app is known by its executable, with the manifest the administrator installed")
    func registeredApp() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let daemon = try DaemonHarness(sources: [])
        try daemon.register(
            "tracker",
            [
                "CFBundleIdentifier": "com.example.tracker", "OpenCoreLocationExecutables": [Self.socat],
                "NSLocationWhenInUseUsageDescription": "To show where you are",
            ])
        try await daemon.start()
        let client = try daemon.client(as: alice)
        await client.hello()
        #expect(client.identity?.app == "com.example.tracker")
        #expect(client.identity?.registered == true)
        #expect(client.identity?.uid == Int(alice.uid))
        // Its decisions are kept for (uid, app): Alice sees hers, not root's, and may not see root's.
        client.send(#"{"op":"auth.show","id":3}"#)
        client.send(#"{"op":"auth.show","id":4,"uid":0}"#)
        #expect(
            await client.wait { events in
                events.contains {
                    if case .decisions(3, let d) = $0 { d.uid == Int(alice.uid) } else { false }
                }
                    && events.contains { if case .error(4, _) = $0 { true } else { false } }
            }, "\(client.output)")
        await client.stop()
        await daemon.stop()
    }

    @Test("the receiver belongs to the daemon's group: a client outside it cannot open the device")
    func deviceGroup() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let service = try await Account.ensure("ocl-gpslocd", groups: ["ocl-gnss"])
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let group = try #require(UserDatabase.groupID(named: "ocl-gnss"))
        #expect(chown(receiver.terminal.slavePath, 0, group) == 0)
        #expect(chmod(receiver.terminal.slavePath, 0o660) == 0)

        let direct = try await Runner.run(
            alice.setpriv() + ["/bin/cat", receiver.terminal.slavePath], executable: setprivPath)
        #expect(direct.status != 0)
        #expect(direct.standardError.contains("Permission denied"))

        // The daemon runs as its own user, in the group, and serves Alice what she is granted.
        let daemon = try DaemonHarness(sources: [receiver.source], account: service, groups: ["ocl-gnss"])
        try await daemon.start()
        try await daemon.grantAlways(uid: alice.uid, app: "/usr/bin/socat")
        let client = try daemon.client(as: alice)
        await client.hello()
        #expect(
            client.identity?.app == Self.socat,
            "the daemon's user reads a client's executable: \(client.output)")
        client.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
        client.send(#"{"op":"updates.subscribe","subscription":1}"#)
        #expect(await client.wait { _ in client.locations.count >= 5 }, "\(client.output)\n\(daemon.log)")
        #expect(client.locations.allSatisfy(receiver.isPrecise))

        // Its state is its own: 0700 directories, 0600 files.
        var info = stat()
        #expect(stat(daemon.state, &info) == 0 && info.st_uid == service.uid && info.st_mode & 0o077 == 0)
        #expect(stat(daemon.state + "/decisions/\(alice.uid)/authorization.json", &info) == 0)
        #expect(info.st_uid == service.uid && info.st_mode & 0o077 == 0)

        await client.stop()
        await daemon.stop()
    }
}
