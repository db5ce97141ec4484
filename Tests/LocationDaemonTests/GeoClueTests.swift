// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// GeoClue2 served by gpslocd on a system bus of the test's own, spoken by GeoClue's own demo
/// client (`where-am-i`, Debian's geoclue-2-demo), by a Gio.DBusProxy client in python that holds
/// the objects to GeoClue's interface descriptions, by gdbus and busctl and by a GeoClue agent, each as a
/// user of its own.
@Suite(
    "gpslocd: GeoClue2 on the system bus", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/libexec/geoclue-2.0/demos/where-am-i"),
        "geoclue-2-demo is not installed (tools/test installs it)")
)
struct GeoClueTests {
    static let whereAmI = "/usr/libexec/geoclue-2.0/demos/where-am-i"
    static let python = "/usr/bin/python3"
    static let interfaces = "/usr/share/dbus-1/interfaces"
    static var scripts: String { Fixtures.packageRoot.appendingPathComponent("Tests/Scripts").path }

    /// where-am-i's locations: each "New location:" block's fields, by their label.
    static func locations(_ output: String) -> [[String: String]] {
        output.components(separatedBy: "New location:").dropFirst().map { block in
            var fields: [String: String] = [:]
            // From a terminal (script), lines end in CRLF: one Character, not "\n".
            for line in block.split(whereSeparator: \.isNewline) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            return fields
        }
    }

    /// The number at the start of a where-am-i field ("52.373094°", "3.0 meters").
    static func number(_ field: String?) -> Double? {
        field.flatMap { Double($0.prefix { $0.isNumber || $0 == "." || $0 == "-" }) }
    }

    @Test(
        "where-am-i prints the receiver's position when precise, a reduced one at the reduced cadence when approximate, and is refused when denied"
    )
    func whereAmI() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let mallory = try await Account.ensure("ocl-mallory")
        try await Setup.with { setup in
            try await setup.decide(uid: alice.uid, app: Self.whereAmI, "always")
            try await setup.decide(uid: bob.uid, app: Self.whereAmI, "always", approximate: true)
            try await setup.decide(uid: mallory.uid, app: Self.whereAmI, "denied")

            async let precise = setup.run(alice, [Self.whereAmI, "-t", "5"])
            async let approximate = setup.run(bob, [Self.whereAmI, "-t", "5"])
            async let denied = setup.run(mallory, [Self.whereAmI, "-t", "5"])
            let (a, b, m) = try await (precise, approximate, denied)
            let log = setup.daemon.log

            // Precise: the receiver's own fixes, with altitude, speed and heading, about ten a second.
            let aliceSees = Self.locations(a.standardOutput)
            #expect(aliceSees.count >= 10, "\(a.standardOutput)\(a.standardError)\n\(log)")
            for location in aliceSees {
                let latitude = try #require(Self.number(location["Latitude"]))
                let longitude = try #require(Self.number(location["Longitude"]))
                #expect(
                    setup.receiver.fixes.contains {
                        abs($0.latitude - latitude) < 2e-6 && abs($0.longitude - longitude) < 2e-6
                    }, "\(location) is not a fix the receiver sent")
                #expect((Self.number(location["Accuracy"]) ?? 1e9) < 100)
            }
            // The receiver's altitude, speed and course come along (an epoch the daemon caught
            // halfway through, as it opened the receiver, may lack some).
            let whole = aliceSees.filter {
                $0["Altitude"] != nil && $0["Speed"] != nil && $0["Heading"] != nil
            }
            #expect(whole.count >= aliceSees.count - 1, "\(aliceSees)")
            // Approximate: one reduced location (the reducer says something new at most every 15
            // minutes), kilometres wide, with no altitude, speed or heading.
            let bobSees = Self.locations(b.standardOutput)
            #expect(bobSees.count == 1, "\(b.standardOutput)\(b.standardError)\n\(log)")
            if let location = bobSees.first {
                #expect((Self.number(location["Accuracy"]) ?? 0) >= 1000, "\(location)")
                #expect(
                    location["Altitude"] == nil && location["Speed"] == nil && location["Heading"] == nil,
                    "\(location)")
                let latitude = try #require(Self.number(location["Latitude"]))
                #expect(
                    !setup.receiver.fixes.contains { abs($0.latitude - latitude) < 2e-6 },
                    "a reduced location is a cell's, not the receiver's")
            }
            // Denied: GeoClue's demo says it could not have the service, in gpslocd's words.
            #expect(Self.locations(m.standardOutput).isEmpty)
            #expect(
                m.standardError.contains("Failed to connect to GeoClue2 service")
                    && m.standardError.contains("is denied location"),
                "\(m.standardOutput)\(m.standardError)")
            #expect(log.contains("GeoClue2: \(Self.whereAmI) (uid \(alice.uid)"), "\(log)")
        }
    }

    @Test(
        "the objects hold to GeoClue's interface descriptions; AvailableAccuracyLevel and the values follow each decision"
    )
    func interfaces() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        try await Setup.with { setup in
            let python = "/usr/bin/python3.11"
            try await setup.decide(uid: alice.uid, app: python, "always")
            try await setup.decide(uid: bob.uid, app: python, "always", approximate: true)
            async let precise = setup.run(
                alice,
                setup.client(desktopId: "org.example.Probe", level: 8, seconds: 2, checkInterfaces: true))
            async let approximate = setup.run(
                bob, setup.client(desktopId: "org.example.Probe", level: 8, seconds: 3))
            let (a, b) = try await (precise, approximate)

            let aliceEvents = jsonObjects(inLines: a.standardOutput)
            #expect(aliceEvents.first?["available"] as? Int == 8, "\(a.standardOutput)\(a.standardError)")
            let problems =
                aliceEvents.first { $0["event"] as? String == "interfaces" }?["problems"] as? [String]
            #expect(problems == [], "\(a.standardOutput)\(a.standardError)\n\(setup.daemon.log)")
            let fixes = aliceEvents.filter { $0["event"] as? String == "location" }
            #expect(fixes.count >= 5, "\(a.standardOutput)")
            if let first = fixes.first {
                #expect(first["old"] as? String == "/")
                #expect((first["Speed"] as? Double ?? -1) >= 0 && (first["Heading"] as? Double ?? -1) >= 0)
                #expect((first["Altitude"] as? Double ?? -Double.greatestFiniteMagnitude) > -1e6)
                // The fix's own time (the receiver's), in seconds and microseconds.
                let stamp = first["Timestamp"] as? [Double]
                #expect(
                    stamp?.count == 2 && (stamp?.first ?? 0) > 1e9 && (stamp?.last ?? 1e6) < 1e6, "\(first)")
            }
            // Each update names the one before.
            for (earlier, later) in zip(fixes, fixes.dropFirst()) {
                #expect(later["old"] as? String == earlier["new"] as? String)
            }

            let bobEvents = jsonObjects(inLines: b.standardOutput)
            #expect(
                bobEvents.first?["available"] as? Int == 4,
                "CITY for an approximate decision: \(b.standardOutput)")
            let reduced = bobEvents.filter { $0["event"] as? String == "location" }
            #expect(reduced.count == 1, "\(b.standardOutput)\(b.standardError)")
            if let location = reduced.first {
                #expect(location["Speed"] as? Double == -1 && location["Heading"] as? Double == -1)
                #expect(location["Altitude"] as? Double == -Double.greatestFiniteMagnitude)
                #expect((location["Accuracy"] as? Double ?? 0) >= 1000)
            }
        }
    }

    @Test(
        "a client that declares another app's DesktopId gets its own decision, and nobody but its owner may touch a client"
    )
    func desktopIdIsALabel() async throws {
        let bob = try await Account.ensure("ocl-bob")
        let mallory = try await Account.ensure("ocl-mallory")
        try await Setup.with { setup in
            // Bob's where-am-i may have his location; his python may not.
            try await setup.decide(uid: bob.uid, app: Self.whereAmI, "always")
            try await setup.decide(uid: bob.uid, app: "/usr/bin/python3.11", "denied")
            let posing = try await setup.run(
                bob, setup.client(desktopId: "geoclue-where-am-i", level: 8, seconds: 1))
            let refusal = jsonObjects(inLines: posing.standardOutput).first {
                $0["event"] as? String == "refused"
            }
            #expect(
                (refusal?["error"] as? String)?.contains(
                    "/usr/bin/python3.11 (uid \(bob.uid)) is denied location") == true,
                "\(posing.standardOutput)\(posing.standardError)")

            // Bob's where-am-i runs; Mallory reads, starts and deletes his client, and is refused each time.
            let running = try setup.start(bob, [Self.whereAmI, "-t", "20"])
            #expect(
                await running.waitForOutput(within: 10) { $0.contains("New location:") }, "\(running.errors)")
            let path = try #require(
                running.output.split(separator: "\n").first { $0.hasPrefix("Client object: ") }?.dropFirst(15)
            )
            let gdbus = [
                "/usr/bin/gdbus", "call", "--address", setup.bus.address, "--dest",
                "org.freedesktop.GeoClue2",
            ]
            let client = "org.freedesktop.GeoClue2.Client"
            for attempt in [
                [
                    "--object-path", String(path), "--method", "org.freedesktop.DBus.Properties.Get", client,
                    "Location",
                ],
                ["--object-path", String(path), "--method", client + ".Stop"],
                [
                    "--object-path", "/org/freedesktop/GeoClue2/Manager", "--method",
                    "org.freedesktop.GeoClue2.Manager.DeleteClient", String(path),
                ],
                [
                    "--object-path", String(path), "--method", "org.freedesktop.DBus.Properties.Set", client,
                    "DistanceThreshold", "<uint32 100000>",
                ],
            ] {
                let result = try await setup.run(mallory, gdbus + attempt)
                #expect(
                    result.status != 0 && result.standardError.contains("AccessDenied")
                        && result.standardError.contains("\(path) is not"),
                    "\(attempt): \(result.standardError)")
            }
            // Bob's client still runs: more locations come.
            let before = Self.locations(running.output).count
            #expect(await running.waitForOutput(within: 5) { Self.locations($0).count > before + 5 })

            // It leaves the bus: its client goes, and nothing is in use.
            running.signal(SIGKILL)
            _ = await running.wait(within: 10)
            let busctl = ["/usr/bin/busctl", "--address=\(setup.bus.address)"]
            let tree = ["tree", "org.freedesktop.GeoClue2"]
            var left = ""
            let gone = await waitUntilAsync(within: 10) {
                left = (try? await setup.run(bob, busctl + tree).standardOutput) ?? ""
                return !left.contains("/Client/")
            }
            #expect(gone, "\(left)")
            let inUse = try await setup.run(
                bob,
                busctl + [
                    "get-property", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
                    "org.freedesktop.GeoClue2.Manager", "InUse",
                ])
            #expect(
                inUse.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "b false", "\(inUse)")
        }
    }

    @Test("an undecided app in use asks its user's GeoClue agent, whose answer becomes the user's decision")
    func agentAnswers() async throws {
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with { setup in
            // An administrator registered where-am-i: its desktop id is then certain.
            try setup.daemon.register(
                "where-am-i",
                [
                    "CFBundleIdentifier": "geoclue-where-am-i",
                    "NSLocationWhenInUseUsageDescription": "Shows where you are.",
                    "OpenCoreLocationExecutables": [Self.whereAmI],
                ])
            let agent = try await setup.agent(alice, authorized: true, level: 4)

            // where-am-i in the foreground of a terminal: in use, undecided.
            let shown = try await setup.run(
                alice, ["/usr/bin/script", "-qfec", "\(Self.whereAmI) -t 6", "/dev/null"])
            let asked = jsonObjects(inLines: agent.output).first { $0["event"] as? String == "asked" }
            #expect(
                asked?["desktopId"] as? String == "geoclue-where-am-i" && asked?["level"] as? Int == 8,
                "\(agent.output)")
            // CITY from the agent: approximate.
            let seen = Self.locations(shown.standardOutput)
            #expect(seen.count == 1, "\(shown.standardOutput)\n\(setup.daemon.log)")
            #expect((Self.number(seen.first?["Accuracy"]) ?? 0) >= 1000)
            let decisions = try setup.decisions(uid: alice.uid)
            let decision = decisions["geoclue-where-am-i"] as? [String: Any]
            #expect(
                decision?["decision"] as? String == "whenInUse" && decision?["precise"] as? Bool == false,
                "\(decisions)")
            await agent.stop()
        }
    }

    @Test(
        "an undecided app in use asks its user's gpsloc agent, which is shown the verified program, not its DesktopId"
    )
    func gpslocAgentAnswers() async throws {
        let bob = try await Account.ensure("ocl-bob")
        try await Setup.with { setup in
            // Unregistered, it cannot be asked, and says so.
            let unasked = try await setup.run(bob, [Self.whereAmI, "-t", "2"])
            #expect(
                unasked.standardError.contains("has no decision, and cannot be asked for one"),
                "\(unasked.standardOutput)\(unasked.standardError)")
            // Registered under an identifier of the administrator's choosing.
            try setup.daemon.register(
                "where-am-i",
                [
                    "CFBundleIdentifier": "org.example.WhereAmI",
                    "NSLocationWhenInUseUsageDescription": "Shows where you are.",
                    "OpenCoreLocationExecutables": [Self.whereAmI],
                ])
            let agent = try setup.daemon.client(as: bob)
            await agent.hello()
            agent.send(#"{"op":"agent.register","id":1}"#)
            #expect(await agent.wait { $0.contains(.ok(id: 1)) })
            let shown = try setup.start(
                bob, ["/usr/bin/script", "-qfec", "\(Self.whereAmI) -t 8", "/dev/null"])
            let asked = await agent.wait { events in
                events.contains { if case .prompt = $0 { true } else { false } }
            }
            #expect(asked, "\(agent.output)\n\(setup.daemon.log)")
            let question = agent.events.compactMap {
                if case .prompt(let n, let p) = $0 { (n, p) } else { nil }
            }.first
            let (number, prompt) = try #require(question)
            #expect(
                prompt.identity.app == "org.example.WhereAmI" && prompt.identity.executable == Self.whereAmI
                    && prompt.identity.uid == Int(bob.uid) && prompt.reason == "Shows where you are.",
                "\(prompt)")
            agent.send(#"{"op":"agent.answer","prompt":\#(number),"answer":"allowWhileUsing"}"#)
            #expect(
                await shown.waitForOutput(within: 10) { Self.locations($0).count >= 5 },
                "\(shown.output)\n\(setup.daemon.log)")
            let fix = try #require(Self.locations(shown.output).first)
            #expect((Self.number(fix["Accuracy"]) ?? 1e9) < 100, "precise: \(fix)")
            shown.signal(SIGKILL)
            _ = await shown.wait(within: 10)
            await agent.stop()
        }
    }

    @Test(
        "a when-in-use app that is not in use is served nothing on the bus, and the daemon's log says why, once"
    )
    func notInUseIsLogged() async throws {
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with { setup in
            try await setup.decide(uid: alice.uid, app: Self.whereAmI, "whenInUse")
            // No terminal: not in use. GeoClue has no words for "running, and getting nothing".
            let result = try await setup.run(alice, [Self.whereAmI, "-t", "3"])
            #expect(Self.locations(result.standardOutput).isEmpty, "\(result.standardOutput)")
            let reason =
                "\(Self.whereAmI) (uid \(alice.uid)) may have location while in use only, and is not in use"
            #expect(await setup.daemon.logs(reason), "\(setup.daemon.log)")
            let lines = setup.daemon.log.split(separator: "\n").filter {
                $0.contains("GeoClue2: \(Self.whereAmI) (uid \(alice.uid), pid")
                    && $0.contains("gets no location: \(reason)")
            }
            #expect(lines.count == 1, "once for the client, not once an update: \(lines)")
        }
    }

    @Test(
        "a decision denied while a client runs ends it; a connection holds 16 clients; a lost bus is served again"
    )
    func robustness() async throws {
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with { setup in
            try await setup.decide(uid: alice.uid, app: Self.whereAmI, "always")
            let running = try setup.start(alice, [Self.whereAmI, "-t", "30"])
            #expect(
                await running.waitForOutput(within: 10) { $0.contains("New location:") }, "\(running.errors)")
            try await setup.decide(uid: alice.uid, app: Self.whereAmI, "denied")
            #expect(
                await running.waitForOutput(within: 10) { $0.contains("Geolocation disabled. Quitting..") },
                "\(running.output)")
            #expect(await running.wait(within: 10) != nil)

            // One connection asks for clients until it is refused.
            let flood = """
                import sys
                from gi.repository import Gio, GLib
                flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
                bus = Gio.DBusConnection.new_for_address_sync(sys.argv[1], flags, None, None)
                made = 0
                try:
                    for _ in range(100):
                        bus.call_sync("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
                                      "org.freedesktop.GeoClue2.Manager", "CreateClient", None, None, 0, -1, None)
                        made += 1
                except GLib.Error as error:
                    print(made, error.message)
                """
            let flooded = try await setup.run(alice, [Self.python, "-c", flood, setup.bus.address])
            #expect(
                flooded.standardOutput.hasPrefix("16 ") && flooded.standardOutput.contains("16 clients"),
                "\(flooded.standardOutput)\(flooded.standardError)")

            // The bus daemon goes away and comes back: gpslocd owns the name again and serves.
            try await setup.bus.restart()
            #expect(
                await waitUntil(within: 15) {
                    setup.daemon.log.contains("GeoClue2: serving on the system bus again")
                },
                "\(setup.daemon.log)")
            try await setup.decide(uid: alice.uid, app: Self.whereAmI, "always")
            let again = try await setup.run(alice, [Self.whereAmI, "-t", "3"])
            #expect(
                !Self.locations(again.standardOutput).isEmpty, "\(again.standardOutput)\(again.standardError)"
            )
        }
    }
}

/// Waits, up to `seconds`, until an asynchronous `condition` holds.
func waitUntilAsync(within seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return await condition()
}
