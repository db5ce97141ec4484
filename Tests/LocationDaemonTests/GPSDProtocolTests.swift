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

    /// A daemon on `source` serving gpsd's protocol on `host` and a free port, started.
    static func daemon(source: String, host: String = "127.0.0.1") async throws -> (DaemonHarness, port: Int)
    {
        let port = Daemons.freePort()
        let daemon = try DaemonHarness(sources: [source], extra: ["--gpsd-listen", "\(host):\(port)"])
        try await daemon.start()
        return (daemon, port)
    }

    static func grant(_ daemon: DaemonHarness, uid: UInt32, app: String, approximate: Bool) async throws {
        try await daemon.grant(uid: uid, app: app, level: "always", approximate: approximate)
    }

    @Test("gpspipe -w: precise, approximate and denied, each as a user of its own on TCP")
    func gpspipe() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let mallory = try await Account.ensure("ocl-mallory")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let (daemon, port) = try await Self.daemon(source: receiver.source)
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
        // What the client was told is in the daemon's log too.
        #expect(await daemon.logs("gpsd: /usr/bin/gpspipe (uid \(mallory.uid), pid"), "\(daemon.log)")
        #expect(error.map { daemon.log.contains("gets no location: \($0)") } == true, "\(daemon.log)")
        await daemon.stop()
    }

    @Test("a receiver's GST and true heading reach a precise client as gpsd's GST and ATT")
    func noiseAndHeading() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let terminal = try PseudoTerminal()
        var text = ""
        for second in 0..<60 {
            let time = String(format: "0800%02d.00", second)
            text += SentenceBuilder.sentence("GPRMC,\(time),A,5222.3820,N,00453.5640,E,12.0,114.5,140326,,,A")
            text += SentenceBuilder.sentence(
                "GPGGA,\(time),5222.3820,N,00453.5640,E,1,09,0.9,12.0,M,46.9,M,,")
            text += SentenceBuilder.sentence("GPGST,\(time),1.5,1.6,1.1,69.0,1.2,1.3,3.0")
            text += SentenceBuilder.sentence("GPHDT,187.3,T")
        }
        let transmitter = terminal.transmitContinuously(Array(text.utf8), baud: 115_200)
        defer { Task { await transmitter.stop() } }
        let (daemon, port) = try await Self.daemon(source: "serial:\(terminal.slavePath)?baud=115200")
        try await Self.grant(daemon, uid: alice.uid, app: Self.gpspipe, approximate: false)
        let result = try await Runner.run(
            alice.setpriv() + [Self.gpspipe, "-w", "-n", "40", "127.0.0.1:\(port)"], executable: setprivPath)
        let reports = Self.reports(result.standardOutput)
        let gst = reports.first { $0["class"] as? String == "GST" }
        #expect(
            gst?["rms"] as? Double == 1.5 && gst?["orient"] as? Double == 69.0, "\(result.standardOutput)")
        #expect(gst?["device"] as? String == terminal.slavePath)
        let att = reports.first { $0["class"] as? String == "ATT" }
        #expect(att?["heading"] as? Double == 187.3, "\(result.standardOutput)")
        await daemon.stop()
    }

    @Test(
        "gpxlogger's track: the receiver's fixes when precise, reduced points when approximate, none when denied"
    )
    func gpxlogger() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let mallory = try await Account.ensure("ocl-mallory")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let (daemon, port) = try await Self.daemon(source: receiver.source)
        try await Self.grant(daemon, uid: alice.uid, app: "/usr/bin/gpxlogger", approximate: false)
        try await Self.grant(daemon, uid: bob.uid, app: "/usr/bin/gpxlogger", approximate: true)
        func isFix(_ latitude: Double, _ longitude: Double, tolerance: Double = 1e-6) -> Bool {
            receiver.fixes.contains {
                abs($0.latitude - latitude) < tolerance && abs($0.longitude - longitude) < tolerance
            }
        }

        // gpxlogger: a GPX track of what it was served. The test runner's children inherit SIGINT
        // blocked: gpxlogger, which ends its track on SIGINT, gets it unblocked first.
        let unblocked =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
            + "os.execv(sys.argv[1], sys.argv[1:])"
        func track(_ account: Account) async throws -> (points: [(Double, Double)], output: String) {
            let gpx = try await Runner.run(
                account.setpriv() + [
                    "/usr/bin/timeout", "-s", "INT", "6", "/usr/bin/python3", "-c", unblocked,
                    "/usr/bin/gpxlogger",
                    "127.0.0.1:\(port)",
                ], executable: setprivPath)
            let points = gpx.standardOutput.components(separatedBy: "<trkpt ").dropFirst().compactMap {
                point -> (Double, Double)? in
                func value(_ name: String) -> Double? {
                    guard let start = point.range(of: name + "=\"") else { return nil }
                    return Double(point[start.upperBound...].prefix { $0 != "\"" })
                }
                return value("lat").flatMap { lat in value("lon").map { (lat, $0) } }
            }
            return (points, gpx.standardOutput.prefix(600) + gpx.standardError)
        }
        async let precise = track(alice)
        async let approximate = track(bob)
        async let denied = track(mallory)
        let (a, b, m) = try await (precise, approximate, denied)
        #expect(a.points.count >= 10, "\(a.output)")
        #expect(a.points.allSatisfy { isFix($0.0, $0.1) }, "\(a.points.prefix(3))")
        #expect(b.points.count <= 2, "the reducer's cadence: \(b.output)")
        #expect(b.points.allSatisfy { !isFix($0.0, $0.1, tolerance: 1e-4) }, "\(b.points)")
        #expect(m.points.isEmpty, "\(m.output)")
        await daemon.stop()
    }

    @Test("python's gps module reads gpslocd as it reads gpsd: precise, approximate and denied")
    func pythonClient() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let mallory = try await Account.ensure("ocl-mallory")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let (daemon, port) = try await Self.daemon(source: receiver.source)
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        try await Self.grant(daemon, uid: alice.uid, app: python, approximate: false)
        try await Self.grant(daemon, uid: bob.uid, app: python, approximate: true)
        // Each report as the module parsed it, one line each, until 10 TPVs with a position came
        // or the client is ended (SIGKILL: the test runner's children inherit SIGTERM blocked).
        let script = """
            import gps, json
            session = gps.gps(host="127.0.0.1", port=\(port), mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
            seen = 0
            for report in session:
                print(json.dumps(dict(report)), flush=True)
                if report["class"] == "TPV" and "lat" in report:
                    seen += 1
                    if seen == 10:
                        break
            """
        // The precise client ends by itself after 10 TPVs; the others are ended after 6 s.
        func run(_ account: Account, seconds: Int) async throws -> [[String: Any]] {
            let result = try await Runner.run(
                account.setpriv() + [
                    "/usr/bin/timeout", "-s", "KILL", "\(seconds)", "/usr/bin/python3", "-c", script,
                ], executable: setprivPath)
            return Self.reports(result.standardOutput)
        }
        async let precise = run(alice, seconds: 30)
        async let approximate = run(bob, seconds: 6)
        async let denied = run(mallory, seconds: 6)
        let (a, b, m) = try await (precise, approximate, denied)
        let tpvs = a.filter { $0["class"] as? String == "TPV" && $0["lat"] != nil }
        #expect(tpvs.count == 10, "\(a)")
        #expect(tpvs.allSatisfy { ($0["device"] as? String) == receiver.terminal.slavePath })
        #expect(
            tpvs.allSatisfy { tpv in
                receiver.fixes.contains {
                    abs($0.latitude - (tpv["lat"] as? Double ?? 0)) < 1e-7
                        && abs($0.longitude - (tpv["lon"] as? Double ?? 0)) < 1e-7
                }
            })
        let reduced = b.filter { $0["class"] as? String == "TPV" }
        #expect(!reduced.isEmpty && reduced.count <= 2, "the reducer's cadence: \(b)")
        #expect(
            reduced.allSatisfy { Set($0.keys) == ["class", "device", "mode", "time", "lat", "lon", "eph"] })
        #expect(!m.contains { $0["class"] as? String == "TPV" }, "\(m)")
        #expect(
            m.contains {
                ($0["message"] as? String)?.contains("gpsloc auth grant --uid \(mallory.uid)") == true
            },
            "\(m)")
        await daemon.stop()
    }

    @Test("the same protocol on the Unix socket, and commands gpslocd refuses")
    func unixSocketAndRefusals() async throws {
        let daemon = try DaemonHarness(sources: [])
        try await daemon.start()
        let client = try daemon.client(as: nil)
        client.send(#"?VERSION;?DEVICE={"path":"/dev/ttyUSB0","bps":115200};?FOO;"#)
        // The greeting, the reply to ?VERSION, then an ERROR for each of the others, in order.
        #expect(
            await waitUntil(within: 10) { client.output.contains("Unrecognized request") }, "\(client.output)"
        )
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
