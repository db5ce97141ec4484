// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// A packaged desktop app, unregistered, known by its root-installed desktop entry and asked
/// through its user's GeoClue agent (as gnome-shell asks): Debian's own where-am-i and its
/// `geoclue-where-am-i.desktop`, and a graphical app's entry, which has no terminal to be in use in.
@Suite(
    "gpslocd: desktop apps known by their desktop entries, asked through the desktop's GeoClue agent",
    .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: FileManager.default.fileExists(atPath: "/usr/share/applications/geoclue-where-am-i.desktop"),
        "geoclue-2-demo is not installed (tools/test installs it)")
)
struct GeoClueDesktopEntryTests {
    typealias Setup = GeoClueTests.Setup
    static let whereAmI = GeoClueTests.whereAmI

    @Test(
        "where-am-i, known by Debian's desktop entry, is asked by its desktop id through its user's agent; a python client posing as it is not"
    )
    func debiansWhereAmI() async throws {
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with(extra: ["--applications-dir", "/usr/share/applications"]) { setup in
            let agent = try await setup.agent(alice, authorized: true, level: 8)
            // Its entry says Terminal=true: in use in the foreground of a terminal, as any program there.
            let shown = try await setup.run(
                alice, ["/usr/bin/script", "-qfec", "\(Self.whereAmI) -t 6", "/dev/null"])
            let asked = jsonObjects(inLines: agent.output).first { $0["event"] as? String == "asked" }
            #expect(
                asked?["desktopId"] as? String == "geoclue-where-am-i" && asked?["level"] as? Int == 8,
                "\(agent.output)\n\(setup.daemon.log)")
            let seen = GeoClueTests.locations(shown.standardOutput)
            #expect(!seen.isEmpty, "\(shown.standardOutput)\n\(setup.daemon.log)")
            #expect((GeoClueTests.number(seen.first?["Accuracy"]) ?? 1e9) < 100, "precise: \(seen)")
            #expect(
                setup.daemon.log.contains(
                    "desktop entry /usr/share/applications/geoclue-where-am-i.desktop, whose program \(Self.whereAmI) its user cannot replace"
                ), "\(setup.daemon.log)")
            let alices = try setup.decisions(uid: alice.uid)
            let decision = alices["desktop:geoclue-where-am-i"] as? [String: Any]
            #expect(
                decision?["decision"] as? String == "whenInUse" && decision?["precise"] as? Bool == true,
                "\(alices)")
            // It asked for nothing above when-in-use: the daemon's session for it asks for no more.
            #expect(!setup.daemon.log.contains("asked for Always access"), "\(setup.daemon.log)")

            // A python client declaring where-am-i's DesktopId is python, whatever it declares; and
            // python3.11.desktop, where Debian ships it, proves nothing of an interpreter.
            let posing = try await setup.run(
                alice, setup.client(desktopId: "geoclue-where-am-i", level: 8, seconds: 2))
            let events = jsonObjects(inLines: posing.standardOutput)
            #expect(
                !events.contains { $0["event"] as? String == "location" },
                "\(posing.standardOutput)\(posing.standardError)")
            let refusal = events.first { $0["event"] as? String == "refused" }?["error"] as? String
            #expect(
                refusal?.contains("/usr/bin/python3.11 (uid \(alice.uid)) has no decision") == true,
                "\(posing.standardOutput)\(posing.standardError)")
            try #require(
                FileManager.default.fileExists(atPath: "/usr/share/applications/python3.11.desktop"),
                "python3.11.desktop is Debian 12's python3.11 package's (python3-gi, which tools/test installs, needs it)"
            )
            #expect(
                await setup.daemon.logs("the interpreter python3.11, which runs any app's script"),
                "\(setup.daemon.log)")
            await agent.stop()
        }
    }

    @Test(
        "a graphical app's entry (no terminal): asked while it runs, the agent's yes serves it while it runs, its no is a denial"
    )
    func graphicalApp() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        try await Setup.with { setup in
            try setup.daemon.installDesktopEntry(
                "org.example.WhereAmI",
                """
                [Desktop Entry]
                Type=Application
                Name=Where am I
                Exec=\(Self.whereAmI) -t 30
                X-Geoclue-Reason=Shows you on the map.
                X-Geoclue-Reason[de]=Zeigt Sie auf der Karte.

                """)
            // Alice's agent says yes, approximate (CITY); no terminal anywhere.
            let yes = try await setup.agent(alice, authorized: true, level: 4)
            let served = try await setup.run(alice, [Self.whereAmI, "-t", "6"])
            let seen = GeoClueTests.locations(served.standardOutput)
            #expect(!seen.isEmpty, "\(served.standardOutput)\(served.standardError)\n\(setup.daemon.log)")
            #expect((GeoClueTests.number(seen.first?["Accuracy"]) ?? 0) >= 1000, "approximate: \(seen)")
            let asked = jsonObjects(inLines: yes.output).first { $0["event"] as? String == "asked" }
            #expect(asked?["desktopId"] as? String == "org.example.WhereAmI", "\(yes.output)")
            let alices = try setup.decisions(uid: alice.uid)
            let granted = alices["desktop:org.example.WhereAmI"] as? [String: Any]
            #expect(
                granted?["decision"] as? String == "whenInUse" && granted?["precise"] as? Bool == false,
                "\(alices)")
            await yes.stop()

            // Bob's agent says no: refused at Start, with who refused and how to undo it.
            let no = try await setup.agent(bob, authorized: false, level: 0)
            let refused = try await setup.run(bob, [Self.whereAmI, "-t", "4"])
            #expect(GeoClueTests.locations(refused.standardOutput).isEmpty, "\(refused.standardOutput)")
            let bobs = try setup.decisions(uid: bob.uid)
            let denied = bobs["desktop:org.example.WhereAmI"] as? [String: Any]
            #expect(denied?["decision"] as? String == "denied", "\(bobs)")
            let again = try await setup.run(bob, [Self.whereAmI, "-t", "2"])
            #expect(
                again.standardError.contains(
                    "desktop:org.example.WhereAmI (uid \(bob.uid)) is denied location"),
                "\(again.standardOutput)\(again.standardError)")
            await no.stop()
        }
    }

    @Test("an entry without X-Geoclue-Reason names the app but cannot ask for it, and says so")
    func noReason() async throws {
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with { setup in
            let path = try setup.daemon.installDesktopEntry(
                "org.example.Silent",
                "[Desktop Entry]\nType=Application\nName=Silent\nExec=\(Self.whereAmI)\n")
            let agent = try await setup.agent(alice, authorized: true, level: 8)
            let result = try await setup.run(alice, [Self.whereAmI, "-t", "2"])
            #expect(
                result.standardError.contains(
                    "desktop:org.example.Silent (uid \(alice.uid)) has no decision, and cannot be asked for one: its desktop entry \(path) has no X-Geoclue-Reason"
                ), "\(result.standardOutput)\(result.standardError)")
            #expect(!agent.output.contains("asked"), "\(agent.output)")
            await agent.stop()
        }
    }
}
