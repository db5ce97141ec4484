// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import TestSupport
import Testing

/// gpsd's protocol on gpslocd, spoken by gpsd's own clients from Debian, unmodified, each as a
/// user of its own: a precise grant gets gpsd's reports, an approximate one a reduced TPV only, a
/// denial an ERROR that says what to do.
@Suite(
    "gpslocd: gpsd's protocol for gpsd's clients", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe"), "gpsd-clients is not installed")
)
struct GPSDProtocolTests {
    static let gpspipe = "/usr/bin/gpspipe"

    /// The JSON objects of a client's output, one per line.
    static func reports(_ output: String) -> [[String: Any]] {
        output.split(whereSeparator: \.isNewline).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    static func grant(_ daemon: DaemonHarness, uid: UInt32, app: String, approximate: Bool) async throws {
        let admin = try daemon.client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":1,"uid":\#(uid),"app":"\#(app)","level":"always","approximate":\#(approximate)}"#
        )
        #expect(await admin.wait { $0.contains(.ok(id: 1)) }, "\(admin.output)")
        await admin.stop()
    }

    @Test("gpspipe -w: precise, approximate and denied, each as a user of its own on TCP")
    func gpspipe() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let mallory = try await Account.ensure("ocl-mallory")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let port = Daemons.freePort()
        let daemon = try DaemonHarness(
            sources: [receiver.source], extra: ["--gpsd-listen", "127.0.0.1:\(port)"])
        try await daemon.start()
        #expect(daemon.log.contains("serving gpsd's protocol on 127.0.0.1:\(port)"), "\(daemon.log)")
        try await Self.grant(daemon, uid: alice.uid, app: Self.gpspipe, approximate: false)
        try await Self.grant(daemon, uid: bob.uid, app: Self.gpspipe, approximate: true)

        func run(_ account: Account, seconds: Int) async throws -> ProcessResult {
            try await Runner.run(
                account.setpriv() + [Self.gpspipe, "-w", "-x", "\(seconds)", "127.0.0.1:\(port)"],
                executable: setprivPath)
        }
        async let precise = run(alice, seconds: 3)
        async let approximate = run(bob, seconds: 3)
        async let denied = run(mallory, seconds: 2)
        let (a, b, m) = try await (precise, approximate, denied)

        // Precise: gpsd's reports of every fix, naming the receiver.
        let aliceReports = Self.reports(a.standardOutput)
        #expect(aliceReports.first?["class"] as? String == "VERSION", "\(a.standardOutput)\(a.standardError)")
        #expect(aliceReports.contains { $0["class"] as? String == "DEVICES" })
        let tpvs = aliceReports.filter { $0["class"] as? String == "TPV" && $0["lat"] != nil }
        #expect(tpvs.count >= 15, "10 Hz for 3 s: \(tpvs.count) TPVs\n\(daemon.log)")
        #expect(tpvs.allSatisfy { ($0["device"] as? String) == receiver.terminal.slavePath })
        #expect(
            tpvs.allSatisfy { tpv in
                receiver.fixes.contains {
                    abs($0.latitude - (tpv["lat"] as? Double ?? 0)) < 1e-7
                        && abs($0.longitude - (tpv["lon"] as? Double ?? 0)) < 1e-7
                }
            }, "the receiver's own positions")
        #expect(aliceReports.contains { $0["class"] as? String == "SKY" })

        // Approximate: the app's reduced location alone, no satellites, no speed, nothing precise.
        let bobReports = Self.reports(b.standardOutput)
        let reduced = bobReports.filter { $0["class"] as? String == "TPV" }
        #expect(!reduced.isEmpty, "\(b.standardOutput)\(b.standardError)")
        #expect(reduced.count <= 2, "the reducer's cadence: \(reduced.count) in 3 s")
        for tpv in reduced {
            #expect(Set(tpv.keys) == ["class", "device", "mode", "time", "lat", "lon", "eph"], "\(tpv)")
            #expect((tpv["eph"] as? Double ?? 0) >= 1000)
            for fix in receiver.fixes.prefix(receiver.epochsSent) {
                #expect(abs((tpv["lat"] as? Double ?? 0) - fix.latitude) > 1e-6)
            }
        }
        #expect(!bobReports.contains { $0["class"] as? String == "SKY" })

        // Denied (nobody granted it): the greeting and an ERROR saying what changes it.
        let malloryReports = Self.reports(m.standardOutput)
        #expect(
            !malloryReports.contains { $0["class"] as? String == "TPV" || $0["class"] as? String == "SKY" })
        let error = malloryReports.first { $0["class"] as? String == "ERROR" }?["message"] as? String
        #expect(error?.contains("gpsloc auth grant --uid \(mallory.uid)") == true, "\(m.standardOutput)")
        await daemon.stop()
    }

    @Test("python's gps module reads gpslocd as it reads gpsd")
    func pythonClient() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let port = Daemons.freePort()
        let daemon = try DaemonHarness(
            sources: [receiver.source], extra: ["--gpsd-listen", "127.0.0.1:\(port)"])
        try await daemon.start()
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        try await Self.grant(daemon, uid: alice.uid, app: python, approximate: false)
        let script = """
            import gps
            session = gps.gps(host="127.0.0.1", port=\(port), mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
            seen = 0
            for report in session:
                if report["class"] == "TPV" and "lat" in report:
                    seen += 1
                    if seen == 10:
                        break
            print("tpv", seen, report["device"], report["lat"], report["lon"])
            """
        let result = try await Runner.run(
            alice.setpriv() + ["/usr/bin/timeout", "20", "/usr/bin/python3", "-c", script],
            executable: setprivPath)
        #expect(
            result.standardOutput.hasPrefix("tpv 10 \(receiver.terminal.slavePath)"),
            "\(result.standardOutput)\(result.standardError)")
        await daemon.stop()
    }

    @Test("the same protocol on the Unix socket, and commands gpslocd refuses")
    func unixSocketAndRefusals() async throws {
        let daemon = try DaemonHarness(sources: [])
        try await daemon.start()
        let client = try daemon.client(as: nil)
        client.send(#"?VERSION;?DEVICE={"path":"/dev/ttyUSB0","bps":115200};?FOO;"#)
        #expect(
            await waitUntil(within: 10) { client.output.components(separatedBy: "\r\n").count >= 4 },
            "\(client.output)")
        let reports = Self.reports(client.output)
        #expect(reports.first?["class"] as? String == "VERSION")
        #expect((reports.first?["proto_major"] as? Int) == 3)
        let errors = reports.filter { $0["class"] as? String == "ERROR" }.compactMap {
            $0["message"] as? String
        }
        #expect(errors.contains { $0.contains("does not change a receiver's settings") }, "\(errors)")
        #expect(errors.contains { $0.contains("Unrecognized request 'FOO'") }, "\(errors)")
        #expect(client.output.contains("\r\n"), "gpsd's line ends")
        // A command longer than gpsd takes closes the connection.
        let long = try daemon.client(as: nil)
        long.send("?WATCH=" + String(repeating: "x", count: 2000))
        #expect(await long.process.wait(within: 10) != nil, "closed")
        #expect(long.output.contains("request over 1024 bytes"), "\(long.output)")
        await client.stop()
        await daemon.stop()
    }
}
