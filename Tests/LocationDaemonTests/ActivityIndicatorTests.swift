// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// The live indicator on a private system bus, read by `gdbus monitor` as the users who run the
/// programs: one program on each front-end (`gpsloc watch`, `gpspipe -w`, where-am-i), its start
/// and its stop told within 100 ms; another user told nothing; GeoClue's `InUse` lit by all three.
@Suite(
    "gpslocd: the activity indicator on D-Bus", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: FileManager.default.fileExists(atPath: "/usr/share/applications/geoclue-where-am-i.desktop"),
        "geoclue-2-demo is not installed (tools/test installs it)"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe"),
        "gpsd-clients is not installed (tools/test installs it)")
)
struct ActivityIndicatorTests {
    typealias Setup = GeoClueTests.Setup
    static let gpsloc = Runner.gpsloc.resolvingSymlinksInPath().path

    /// A program as one `PropertiesChanged` named it, and when the monitor heard it.
    struct Heard {
        var at: Double
        var programs: [(uid: Int, app: String, proof: String, via: String, precise: Bool, since: Double)]
        var inUse: Bool
    }

    /// `gdbus monitor` of the indicator as `account`, each line it prints stamped with when it came.
    static func monitor(_ setup: Setup, as account: Account) throws -> RunningProcess {
        let stamp =
            "import sys, time\nfor line in sys.stdin:\n    print('%.6f %s' % (time.time(), line), end='', flush=True)"
        return try setup.start(
            account,
            [
                "/bin/sh", "-c",
                "stdbuf -oL gdbus monitor --system --dest org.opencorelocation.Activity | /usr/bin/python3 -u -c \"$0\"",
                stamp,
            ])
    }

    /// The `PropertiesChanged` signals a monitor printed.
    static func heard(_ output: String) -> [Heard] {
        let program = try! NSRegularExpression(
            pattern: #"\(uint32 (\d+), '([^']*)', '([^']*)', '([^']*)', (true|false), uint64 (\d+)\)"#)
        return output.split(separator: "\n").compactMap { line -> Heard? in
            guard line.contains("PropertiesChanged"), let at = Double(line.prefix { $0 != " " }) else {
                return nil
            }
            let text = String(line)
            let matches = program.matches(in: text, range: NSRange(text.startIndex..., in: text))
            let programs = matches.map { match in
                let group = { (index: Int) in String(text[Range(match.range(at: index), in: text)!]) }
                return (
                    uid: Int(group(1))!, app: group(2), proof: group(3), via: group(4),
                    precise: group(5) == "true",
                    since: Double(group(6))! / 1e6
                )
            }
            return Heard(at: at, programs: programs, inUse: text.contains("'InUse': <true>"))
        }
    }

    /// GeoClue's `Manager.InUse`, as `gdbus call` reads it.
    static func geoClueInUse(_ setup: Setup) async throws -> Bool {
        let result = try await Runner.run(
            [
                "call", "--system", "--dest", "org.freedesktop.GeoClue2", "--object-path",
                "/org/freedesktop/GeoClue2/Manager", "--method", "org.freedesktop.DBus.Properties.Get",
                "org.freedesktop.GeoClue2.Manager", "InUse",
            ], executable: URL(fileURLWithPath: "/usr/bin/gdbus"),
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": setup.bus.address])
        return result.standardOutput.contains("<true>")
    }

    @Test(
        "each front-end's program is named, with its proof and protocol, within 100 ms of its start and its stop; another user hears nothing; InUse follows all three"
    )
    func indicator() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let port = Daemons.freePort()
        try await Setup.with(
            extra: ["--gpsd-listen", "127.0.0.1:\(port)", "--applications-dir", "/usr/share/applications"]
        ) { setup in
            #expect(
                await setup.daemon.logs("serving the activity indicator (org.opencorelocation.Activity)"),
                "\(setup.daemon.log)")
            try await setup.decide(uid: alice.uid, app: Self.gpsloc, "always")
            try await setup.decide(uid: alice.uid, app: "/usr/bin/gpspipe", "always")
            try await setup.decide(
                uid: alice.uid, app: "desktop:geoclue-where-am-i", "always", approximate: true)
            let alices = try Self.monitor(setup, as: alice)
            let bobs = try Self.monitor(setup, as: bob)
            let alicesReady = await alices.waitForOutput(within: 10) { $0.contains("is owned by") }
            let bobsReady = await bobs.waitForOutput(within: 10) { $0.contains("is owned by") }
            #expect(alicesReady && bobsReady, "\(alices.output)\(alices.errors)\(bobs.errors)")
            // gdbus has subscribed once it says who owns the name; a moment more for bob's.
            try await Task.sleep(for: .milliseconds(300))

            let programs: [(app: String, via: String, precise: Bool, command: [String])] = [
                (
                    Self.gpsloc, "native", true,
                    ["/usr/bin/timeout", "-s", "KILL", "3", Self.gpsloc, "watch", "--session", "always"]
                ),
                (
                    "/usr/bin/gpspipe", "gpsd", true,
                    ["/usr/bin/timeout", "-s", "KILL", "3", "/usr/bin/gpspipe", "-w", "127.0.0.1:\(port)"]
                ),
                ("desktop:geoclue-where-am-i", "GeoClue2", false, [GeoClueTests.whereAmI, "-t", "3"]),
            ]
            for program in programs {
                let running = try setup.start(
                    alice,
                    ["/usr/bin/env", "OPENCORELOCATION_SOCKET=\(setup.daemon.socket)"] + program.command)
                let named = await alices.waitForOutput(within: 15) { output in
                    Self.heard(output).contains { $0.programs.contains { $0.app == program.app } }
                }
                #expect(named, "\(program.app): \(alices.output)\n\(setup.daemon.log)")
                #expect(try await Self.geoClueInUse(setup), "GeoClue's InUse while \(program.app) is served")
                _ = await running.wait(within: 20)
                let gone = await alices.waitForOutput(within: 10) { output in
                    let heard = Self.heard(output)
                    guard
                        let last = heard.lastIndex(where: { $0.programs.contains { $0.app == program.app } })
                    else {
                        return false
                    }
                    return heard[(last + 1)...].contains { !$0.programs.contains { $0.app == program.app } }
                }
                #expect(gone, "\(program.app) stopped: \(alices.output)")
                let heard = Self.heard(alices.output)
                let start = try #require(heard.first { $0.programs.contains { $0.app == program.app } })
                let shown = try #require(start.programs.first { $0.app == program.app })
                #expect(
                    shown.uid == Int(alice.uid) && shown.via == program.via
                        && shown.precise == program.precise)
                #expect(!shown.proof.isEmpty && start.inUse)
                #expect(
                    start.at - shown.since < 0.1,
                    "\(program.app)'s start heard \(Int((start.at - shown.since) * 1000)) ms after it")
                // Its stop: the history's end of that period, against when the monitor heard it.
                let json = try await ActivityHistoryTests.activity(
                    setup.daemon, as: alice, ["--json", "--app", program.app])
                let end = try #require(
                    jsonObjects(inLines: json.standardOutput).last { $0["kind"] as? String == "intervalEnd" },
                    "\(json.standardOutput)\(json.standardError)")
                let ended = try #require(Self.seconds(ofTimeStamp: end["timeStamp"] as? String ?? ""))
                let stop = try #require(
                    heard.first { $0.at >= start.at && !$0.programs.contains { $0.app == program.app } })
                #expect(
                    stop.at - ended < 0.1,
                    "\(program.app)'s stop heard \(Int((stop.at - ended) * 1000)) ms after it")
                print(
                    "INDICATOR \(program.via) \(program.app): its start heard \(Int((start.at - shown.since) * 1000)) ms "
                        + "after it, its stop \(Int((stop.at - ended) * 1000)) ms after it")
                var lit = true
                for _ in 0..<50 where lit {
                    lit = try await Self.geoClueInUse(setup)
                    if lit { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(!lit, "GeoClue's InUse after \(program.app) stopped")
            }
            // Bob ran nothing: the bus told him nothing of Alice's programs, not even that they changed.
            #expect(Self.heard(bobs.output).isEmpty, "\(bobs.output)")
            let bobsView = try await setup.run(
                bob,
                [
                    "/usr/bin/gdbus", "call", "--system", "--dest", "org.opencorelocation.Activity",
                    "--object-path",
                    "/org/opencorelocation/Activity", "--method", "org.freedesktop.DBus.Properties.Get",
                    "org.opencorelocation.Activity1", "Programs",
                ])
            #expect(
                bobsView.standardOutput.contains("@a(usssbt) []"),
                "\(bobsView.standardOutput)\(bobsView.standardError)")

            // A reader already on the bus when the daemon starts (an indicator started with the
            // session): the daemon lists it as it opens the bus, and tells it too.
            _ = try await setup.daemon.restart()
            #expect(await setup.daemon.logs("serving the activity indicator"), "\(setup.daemon.log)")
            let before = Self.heard(alices.output).count
            let again = try setup.start(
                alice, ["/usr/bin/timeout", "-s", "KILL", "3", "/usr/bin/gpspipe", "-w", "127.0.0.1:\(port)"])
            let heardAgain = await alices.waitForOutput(within: 15) { output in
                Self.heard(output).dropFirst(before).contains {
                    $0.programs.contains { $0.app == "/usr/bin/gpspipe" }
                }
            }
            #expect(heardAgain, "after the daemon's restart: \(alices.output)\n\(setup.daemon.log)")
            _ = await again.wait(within: 20)
            await alices.stop()
            await bobs.stop()
        }
    }

    /// Seconds since 1970 of an App Privacy Report time stamp (`2026-12-07T10:31:02.123+01:00`).
    static func seconds(ofTimeStamp text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
