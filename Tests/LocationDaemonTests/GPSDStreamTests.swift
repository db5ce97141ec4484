// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// What a watcher of gpsd's protocol asks for beyond JSON: NMEA (`gpspipe -r`), and DEVICE
/// reports as the receiver comes and goes.
@Suite(
    "gpslocd: gpsd's NMEA and DEVICE reports", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe"), "gpsd-clients is not installed")
)
struct GPSDStreamTests {
    static let gpspipe = GPSDProtocolTests.gpspipe

    /// Whether a line is one NMEA sentence whose checksum is right.
    static func isSentence(_ line: Substring) -> Bool {
        guard line.hasPrefix("$"), let star = line.lastIndex(of: "*") else { return false }
        let body = line[line.index(after: line.startIndex)..<star]
        let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return UInt8(line[line.index(after: star)...].prefix(2), radix: 16) == sum
    }

    @Test("gpspipe -r: NMEA rebuilt from each fix for a precise grant, none for an approximate one")
    func nmea() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let mallory = try await Account.ensure("ocl-mallory")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let (daemon, port) = try await GPSDProtocolTests.daemon(source: receiver.source)
        try await GPSDProtocolTests.grant(daemon, uid: alice.uid, app: Self.gpspipe, approximate: false)
        try await GPSDProtocolTests.grant(daemon, uid: bob.uid, app: Self.gpspipe, approximate: true)
        func run(_ account: Account) async throws -> ProcessResult {
            try await Runner.run(
                account.setpriv() + [Self.gpspipe, "-r", "-x", "3", "127.0.0.1:\(port)"],
                executable: setprivPath)
        }
        async let precise = run(alice)
        async let approximate = run(bob)
        async let denied = run(mallory)
        let (a, b, m) = try await (precise, approximate, denied)

        let sentences = a.standardOutput.split(separator: "\r\n").filter { $0.hasPrefix("$") }
        #expect(sentences.count >= 30, "\(a.standardOutput.prefix(800))\(a.standardError)")
        #expect(
            sentences.allSatisfy(Self.isSentence), "\(sentences.filter { !Self.isSentence($0) }.prefix(3))")
        let rmc = sentences.filter { $0.hasPrefix("$GPRMC") }
        #expect(rmc.count >= 15)
        // Each RMC's position is one of the receiver's fixes, to the sentence's 6 decimals of minutes.
        for sentence in rmc {
            let fields = sentence.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count > 6, let lat = Double(fields[3]), let lon = Double(fields[5]) else {
                Issue.record("an RMC without a position: \(sentence)")
                continue
            }
            let latitude = (lat / 100).rounded(.down) + lat.truncatingRemainder(dividingBy: 100) / 60
            let longitude = (lon / 100).rounded(.down) + lon.truncatingRemainder(dividingBy: 100) / 60
            let signed = (fields[4] == "S" ? -latitude : latitude, fields[6] == "W" ? -longitude : longitude)
            #expect(
                receiver.fixes.contains {
                    abs($0.latitude - signed.0) < 1e-7 && abs($0.longitude - signed.1) < 1e-7
                },
                "\(sentence)")
        }
        #expect(
            sentences.contains { $0.hasPrefix("$GPGGA") } && sentences.contains { $0.hasPrefix("$GPGSA") })

        // Approximate: no sentence at all, and an ERROR saying why.
        #expect(!b.standardOutput.contains("$G"), "\(b.standardOutput.prefix(400))")
        #expect(
            b.standardOutput.contains("has approximate location only"),
            "\(b.standardOutput)\(b.standardError)")
        // Denied: no sentence either.
        #expect(!m.standardOutput.contains("$G"), "\(m.standardOutput.prefix(400))")
        await daemon.stop()
    }

    @Test(
        "gpsloc watch --format gpsd, as gpslocd's client, prints what gpslocd serves it, each report as it comes"
    )
    func watchThroughTheDaemon() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        try await daemon.grantAlways(uid: 0, app: Runner.gpsloc.resolvingSymlinksInPath().path)
        let watch = try RunningProcess(
            ["watch", "--format", "gpsd"], environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        #expect(
            await watch.waitForOutput(within: 10) {
                $0.components(separatedBy: #"{"class":"TPV""#).count > 10
            },
            "\(watch.output.prefix(600))\(watch.errors)")
        let lines = watch.output.split(separator: "\r\n")
        #expect(lines.first?.hasPrefix(#"{"class":"VERSION""#) == true)
        let tpvs = GPSDProtocolTests.reports(watch.output).filter { $0["class"] as? String == "TPV" }
        #expect(tpvs.allSatisfy { ($0["device"] as? String) == receiver.terminal.slavePath })
        _ = await watch.stop()
        await daemon.stop()
    }

    @Test("DEVICE reports follow the receiver: activated once reached, without activated once it is gone")
    func deviceReports() async throws {
        let receiver = try TenHertzReceiver()
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        let client = try daemon.client(as: nil)
        client.send(#"?WATCH={"enable":true,"json":true};"#)
        func devices() -> [[String: Any]] {
            GPSDProtocolTests.reports(client.output).filter { $0["class"] as? String == "DEVICE" }
        }
        #expect(
            await waitUntil(within: 10) { devices().contains { $0["activated"] is String } },
            "\(client.output)")
        #expect(
            devices().first { $0["activated"] is String }?["path"] as? String == receiver.terminal.slavePath)
        // A slave held open keeps the pty's number taken: another test's new pty cannot appear at
        // this path (and be reached by the daemon) while this one checks that it is gone.
        let held = open(receiver.terminal.slavePath, O_RDWR | O_NOCTTY)
        defer { if held >= 0 { close(held) } }
        receiver.stop()
        receiver.terminal.close()
        #expect(
            await waitUntil(within: 10) {
                devices().contains {
                    $0["activated"] == nil && $0["path"] as? String == receiver.terminal.slavePath
                }
            }, "\(client.output)\n\(daemon.log)")
        // ?DEVICES says so too.
        client.send("?DEVICES;")
        #expect(
            await waitUntil(within: 10) {
                GPSDProtocolTests.reports(client.output).last { $0["class"] as? String == "DEVICES" }.map {
                    (($0["devices"] as? [[String: Any]])?.first?["activated"]) == nil
                } ?? false
            }, "\(client.output)")
        await client.stop()
        await daemon.stop()
    }
}
