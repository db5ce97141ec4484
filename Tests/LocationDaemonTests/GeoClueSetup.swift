// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

extension GeoClueTests {
    /// A receiver, a private system bus and gpslocd serving GeoClue2 on it.
    struct Setup {
        let receiver: TenHertzReceiver
        let bus: PrivateSystemBus
        let daemon: DaemonHarness

        static func start(extra: [String] = []) async throws -> Setup {
            let receiver = try TenHertzReceiver()
            let bus = try await PrivateSystemBus()
            let daemon = try DaemonHarness(
                sources: [receiver.source], extra: ["--geoclue"] + extra,
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
            try await daemon.start()
            #expect(
                daemon.log.contains("serving GeoClue2 (org.freedesktop.GeoClue2) on the system bus"),
                "\(daemon.log)")
            return Setup(receiver: receiver, bus: bus, daemon: daemon)
        }

        func stop() async {
            await daemon.stop()
            await bus.stop()
            receiver.stop()
        }

        /// Runs `body` on a new setup, stopped afterwards whatever happened.
        static func with(extra: [String] = [], _ body: (Setup) async throws -> Void) async throws {
            let setup = try await start(extra: extra)
            do {
                try await body(setup)
            } catch {
                await setup.stop()
                throw error
            }
            await setup.stop()
        }

        /// An administrator's decision for `app` of `uid`: `always` (precise or approximate) or denied.
        func decide(uid: UInt32, app: String, _ decision: String, approximate: Bool = false) async throws {
            let admin = try daemon.client(as: nil)
            await admin.hello()
            if decision == "denied" {
                admin.send(#"{"op":"auth.deny","id":1,"uid":\#(uid),"app":"\#(app)"}"#)
            } else {
                admin.send(
                    #"{"op":"auth.grant","id":1,"uid":\#(uid),"app":"\#(app)","level":"\#(decision)","approximate":\#(approximate)}"#
                )
            }
            #expect(await admin.wait { $0.contains(.ok(id: 1)) }, "\(admin.output)")
            await admin.stop()
        }

        /// Runs `command` as `account` with the bus's address.
        func run(_ account: Account, _ command: [String]) async throws -> ProcessResult {
            try await Runner.run(
                account.setpriv() + command, executable: setprivPath,
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        }

        /// Starts `command` as `account` with the bus's address.
        func start(_ account: Account, _ command: [String]) throws -> RunningProcess {
            try RunningProcess(
                account.setpriv() + command, executable: setprivPath,
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        }

        /// A GeoClue agent (`Tests/Scripts/geoclue-agent.py`) of `account`'s, registered, answering
        /// every question with `authorized` and `level` (EXACT 8, CITY 4).
        func agent(_ account: Account, authorized: Bool, level: Int) async throws -> RunningProcess {
            let agent = try start(
                account,
                [
                    GeoClueTests.python, GeoClueTests.scripts + "/geoclue-agent.py", bus.address,
                    GeoClueTests.interfaces, authorized ? "true" : "false", "\(level)", "60",
                ])
            #expect(
                await agent.waitForOutput(within: 10) { $0.contains("registered") },
                "\(agent.output)\(agent.errors)")
            return agent
        }

        /// `uid`'s decisions as the daemon stored them, by app.
        func decisions(uid: UInt32) throws -> [String: Any] {
            let stored = try String(
                contentsOfFile: daemon.state + "/decisions/\(uid)/authorization.json", encoding: .utf8)
            return try #require(
                (try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [String: Any])?["clients"]
                    as? [String: Any], "\(stored)")
        }

        /// The python client's command line.
        func client(desktopId: String, level: Int, seconds: Double, checkInterfaces: Bool = false) -> [String]
        {
            [
                GeoClueTests.python, GeoClueTests.scripts + "/geoclue-client.py", bus.address, desktopId,
                "\(level)", "\(seconds)",
            ]
                + (checkInterfaces ? ["--check-interfaces", GeoClueTests.interfaces] : [])
        }
    }
}
