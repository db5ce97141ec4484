// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import NMEA
import TestSupport
import Testing

@Suite("gpsd's JSON reports")
struct GPSDDecoderTests {
    /// Reports as gpsd 3.22 sent them for the project's drive log.
    let reports = [
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/2","activated":"2026-11-21T09:05:55.220Z","native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"#,
        #"{"class":"SKY","device":"/dev/pts/2","xdop":0.77,"ydop":0.78,"vdop":1.02,"tdop":1.62,"hdop":0.77,"gdop":2.67,"pdop":1.28,"nSat":3,"uSat":2,"satellites":[{"PRN":10,"el":47.0,"az":256.0,"ss":33.0,"used":true,"gnssid":0,"svid":10},{"PRN":68,"el":31.0,"az":48.0,"ss":30.0,"used":true,"gnssid":6,"svid":4,"sigid":0},{"PRN":305,"el":12.0,"az":300.0,"ss":0.0,"used":false,"gnssid":2,"svid":5,"sigid":7}]}"#,
        #"{"class":"GST","device":"/dev/pts/2","time":"2026-03-14T08:00:01.000Z","rms":1.800,"major":2.100,"minor":1.500,"orient":45.300,"lat":1.700,"lon":1.900,"alt":3.200}"#,
        #"{"class":"TPV","device":"/dev/pts/2","mode":3,"time":"2026-03-14T08:00:01.000Z","ept":0.005,"lat":52.373057000,"lon":4.892759000,"altHAE":58.9000,"altMSL":12.0000,"alt":12.0000,"epx":9.123,"epy":8.456,"epv":34.040,"track":87.5000,"magvar":1.5,"speed":4.116,"climb":0.100,"geoidSep":46.900,"eph":17.290,"sep":33.060}"#,
        #"{"class":"TPV","device":"/dev/pts/2","status":2,"mode":2,"time":"2026-03-14T08:00:02.500Z","lat":-33.5,"lon":-70.25}"#,
        #"{"class":"TPV","device":"/dev/pts/2","mode":1}"#,
        #"{"class":"ERROR","message":"Can't open /dev/ttyUSB9."}"#,
    ]

    func decode(_ text: String, device: String? = nil) -> (
        fixes: [Fix], notices: [String], decoder: GPSDDecoder
    ) {
        var decoder = GPSDDecoder(device: device)
        var fixes: [Fix] = []
        var notices: [String] = []
        Array(text.utf8).withUnsafeBytes {
            decoder.decode($0, notice: { notices.append($0) }) { fixes.append($0) }
        }
        return (fixes, notices, decoder)
    }

    @Test("TPV becomes a fix in gpsd's units, with the satellites of the latest SKY")
    func tpv() throws {
        let result = decode(reports.joined(separator: "\r\n") + "\r\n")
        #expect(result.fixes.count == 3)
        let fix = try #require(result.fixes.first)
        #expect(fix.time?.iso8601 == "2026-03-14T08:00:01.000Z")
        #expect(fix.timeOfDay == NMEATime(hour: 8, minute: 0, second: 1, nanoseconds: 0, fractionDigits: 3))
        #expect(fix.mode == .threeDimensional)
        #expect(fix.status == .gps)
        #expect(fix.latitude == 52.373057 && fix.longitude == 4.892759)
        #expect(fix.altitudeMSL == 12 && fix.altitudeHAE == 58.9 && fix.geoidSeparation == 46.9)
        #expect(fix.speed == 4.116 && fix.course == 87.5 && fix.climb == 0.1 && fix.magneticVariation == 1.5)
        #expect(
            fix.errors.horizontal == 17.29 && fix.errors.vertical == 34.04 && fix.errors.spherical == 33.06)
        #expect(fix.errors.longitude == 9.123 && fix.errors.latitude == 8.456 && fix.errors.time == 0.005)
        #expect(fix.dop.hdop == 0.77 && fix.dop.pdop == 1.28 && fix.dop.gdop == 2.67)
        #expect(fix.satellitesUsed == 2)
        #expect(fix.noise?.semiMajor == 2.1)
        #expect(
            fix.satellites == [
                Satellite(
                    constellation: .gps, svid: 10, nmeaID: 10, elevation: 47, azimuth: 256, snr: 33,
                    used: true),
                Satellite(
                    constellation: .glonass, svid: 4, nmeaID: 68, signal: 0, elevation: 31, azimuth: 48,
                    snr: 30,
                    used: true),
                Satellite(
                    constellation: .galileo, svid: 5, nmeaID: 305, signal: 7, elevation: 12, azimuth: 300,
                    snr: 0,
                    used: false),
            ])

        let second = result.fixes[1]
        #expect(second.status == .dgps && second.mode == .twoDimensional)
        #expect(second.latitude == -33.5 && second.longitude == -70.25)
        #expect(second.time?.nanosecondsOfDay == Int64((8 * 3600 + 2) * 1_000_000_000 + 500_000_000))
        // GST statistics belong to their own epoch only.
        #expect(second.noise == nil)

        let noFix = result.fixes[2]
        #expect(noFix.mode == .noFix && noFix.time == nil && !noFix.hasPosition && noFix.status == .unknown)
        #expect(
            result.notices == [
                "gpsd 3.22 (protocol 3.14)", "gpsd reads /dev/pts/2", "gpsd says: Can't open /dev/ttyUSB9.",
            ])
        #expect(result.decoder.statistics.errors == 1 && result.decoder.statistics.reports == reports.count)
    }

    @Test("Reports from other devices are left out when one device is asked for")
    func device() {
        let other = reports[4].replacingOccurrences(of: "/dev/pts/2", with: "/dev/ttyACM0")
        #expect(decode(reports[4] + "\n" + other + "\n", device: "/dev/ttyACM0").fixes.count == 1)
        #expect(decode(reports[4] + "\n" + other + "\n").fixes.count == 2)
    }

    @Test("Garbage and over-long lines are counted and skipped; the reports around them count")
    func garbage() {
        let long = "{" + String(repeating: "x", count: GPSDDecoder.maximumLineLength + 10)
        let result = decode(
            ["not json", reports[4], #"{"no":"class"}"#, long, "\u{1}\u{2}\u{FF}", reports[5]].joined(
                separator: "\n")
                + "\n")
        #expect(result.fixes.count == 2)
        #expect(result.decoder.statistics.unparsable == 3)
        #expect(result.decoder.statistics.overlong == 1)
    }

    @Test("Reports split anywhere decode the same as whole, a last one without its line end too")
    func chunks() async {
        let text = Array(reports.joined(separator: "\n").utf8)
        let fixes = await verifyDripFeed(text, make: { GPSDDecoder() }, into: [Fix]()) { fixes, output in
            if case .fix(let fix) = output { fixes.append(fix) }
        }
        #expect(fixes.count == 3)
    }

    @Test("Addresses name the daemon and, optionally, one of its devices")
    func addresses() throws {
        #expect(try SourceAddress(parsing: "gpsd://") == .gpsd(host: "localhost", port: 2947, device: nil))
        #expect(
            try SourceAddress(parsing: "gpsd://gps.local")
                == .gpsd(host: "gps.local", port: 2947, device: nil))
        #expect(
            try SourceAddress(parsing: "gpsd://localhost:2948/dev/ttyUSB0")
                == .gpsd(host: "localhost", port: 2948, device: "/dev/ttyUSB0"))
        #expect(throws: SourceAddress.ParseError.self) { try SourceAddress(parsing: "gpsd://host:0") }
    }
}

@Suite("A real gpsd", .serialized)
struct GPSDaemonTests {
    /// The first `epochs` epochs of the project's drive, in a file gpsfake can play.
    func driveLog(epochs: Int) throws -> (path: String, fixes: [Fix]) {
        let sample = try driveSample(epochs: epochs, allSentences: true)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gpsd-\(UUID()).nmea").path
        try Data(sample.bytes).write(to: URL(fileURLWithPath: path))
        return (path, sample.fixes)
    }

    @Test("Fixes read through gpsd:// agree with decoding the same log (mode and position)")
    func agreesWithDecode() async throws {
        let log = try driveLog(epochs: 40)
        defer { try? FileManager.default.removeItem(atPath: log.path) }
        let port = Daemons.freePort()
        let gpsfake = try Daemons.gpsfake(log: log.path, port: port, cycle: 0.02)
        #expect(await Daemons.waitUntilListening(port: port))
        let received = Received()
        let run = Task { try await GPSDSource(port: port, logger: received.logger).run { received.add($0) } }
        func same(_ a: Fix, _ b: Fix) -> Bool {
            guard let a1 = a.latitude, let a2 = a.longitude, let b1 = b.latitude, let b2 = b.longitude else {
                return false
            }
            return abs(a1 - b1) < 1e-6 && abs(a2 - b2) < 1e-6
        }
        // gpsfake plays the log once but keeps gpsd up while a client is connected: wait (bounded)
        // for the second-to-last epoch's position, then hang up.
        let awaited = log.fixes[log.fixes.count - 2]
        await eventually(60) { received.all.contains { same($0, awaited) } }
        if !received.all.contains(where: { same($0, awaited) }) {
            Issue.record("gpsfake said: \(gpsfake.errors) \(gpsfake.output)\nsource logged: \(received.log)")
        }
        run.cancel()
        _ = try? await run.value
        await gpsfake.stop()
        await Daemons.stopGPSD(port: port)

        // gpsd reports an epoch several times as its sentences arrive (2D after RMC, 3D once GGA
        // and GSA are in); while it is still learning the receiver's cycle, its reports carry no
        // time. Every position it reports must be one of ours; its fullest timed report of each
        // epoch must have our time and mode.
        var reported = 0
        var timed = 0
        for ours in log.fixes {
            let theirs = received.all.filter { same($0, ours) }
            if !theirs.isEmpty { reported += 1 }
            guard let fullest = theirs.filter({ $0.time != nil }).map({ $0.mode }).max() else { continue }
            timed += 1
            #expect(fullest == ours.mode, "mode at \(ours.time?.iso8601 ?? "?")")
            for time in theirs.compactMap({ $0.time }) { #expect(time == ours.time) }
        }
        let strangers = received.all.filter { fix in fix.hasPosition && !log.fixes.contains { same($0, fix) }
        }
        #expect(strangers.isEmpty, "positions gpsd reported that the log does not have: \(strangers)")
        // gpsd reports once per read of its device: epochs that reach it in one burst (gpsfake
        // is fast, the machine may be loaded) come out as one report, so not all 40 appear.
        #expect(reported >= 10, "only \(reported) of \(log.fixes.count) epochs came through gpsd")
        #expect(timed >= 5, "only \(timed) epochs came with gpsd's time")
        #expect(received.log.contains { $0.contains("gpsd 3.") })
    }

    @Test("gpsd stopped and started again: the connection ends with a disconnect and works again")
    func restart() async throws {
        let pty = try PseudoTerminal()
        let receiver = pty.transmitContinuously(
            try driveSample(epochs: 300, allSentences: true).bytes, baud: 115200)
        defer { pty.close() }
        let port = Daemons.freePort()
        var gpsd = try Daemons.gpsd(device: pty.slavePath, port: port)
        #expect(await Daemons.waitUntilListening(port: port))
        let received = Received()
        let source = GPSDSource(port: port, logger: received.logger)
        let first = Task { try await source.run { received.add($0) } }
        await eventually(20) { received.all.filter { $0.hasPosition }.count >= 3 }
        await gpsd.stop()
        let error = await #expect(throws: DisconnectError.self) { try await first.value }
        #expect(error?.description.contains("gpsd://localhost:\(port)") == true)
        let before = received.all.count

        gpsd = try Daemons.gpsd(device: pty.slavePath, port: port)
        #expect(await Daemons.waitUntilListening(port: port))
        let second = Task { try await source.run { received.add($0) } }
        await eventually(20) { received.all.dropFirst(before).filter { $0.hasPosition }.count >= 3 }
        second.cancel()
        _ = try? await second.value
        await gpsd.stop()
        await receiver.stop()
    }
}
