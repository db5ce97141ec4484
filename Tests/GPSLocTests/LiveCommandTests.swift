// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// `gpsloc watch` and `gpsloc devices` on live sources: serial ports made by socat and by a
/// pseudo-terminal, and a real gpsd.
@Suite("gpsloc on live receivers, the built binary")
struct LiveCommandTests {
    let app = "com.example.tracker"

    /// A granted app's store and manifest, and a directory for devices.
    func setUp() async throws -> (store: String, manifest: String, directory: String) {
        let store = WatchAuthCommandTests.temporaryStore()
        #expect(try await Runner.run(["auth", "grant", app, "--store", store]).status == 0)
        let directory = store + "-dev"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (store, try WatchAuthCommandTests.manifest(), directory)
    }

    func watch(_ source: String, _ setup: (store: String, manifest: String, directory: String)) throws
        -> RunningProcess
    {
        try RunningProcess([
            "watch", "--source", source, "--app", app, "--store", setup.store, "--manifest", setup.manifest,
            "--prompt", "pending",
        ])
    }

    /// Lines that carry a location from the drive.
    static func located(_ output: String) -> Int {
        output.split(separator: "\n").count { $0.hasPrefix("2026-03-14T") }
    }

    @Test("A serial receiver unplugged and plugged back: locations, locationUnavailable, locations")
    func serialUnplugAndReplug() async throws {
        let setup = try await setUp()
        var pair = try await Daemons.socatPair(in: setup.directory)
        let feeder = LineFeeder(
            path: pair.feed, bytes: try driveSample(epochs: 300).bytes, interval: .milliseconds(20))
        let watch = try watch("serial:\(pair.device)?baud=9600", setup)
        #expect(await watch.waitForOutput { Self.located($0) >= 3 }, "\(watch.errors)")

        await pair.socat.stop()  // unplugged: both links go away
        #expect(await watch.waitForOutput { $0.contains("[locationUnavailable]") }, "\(watch.errors)")
        let before = Self.located(watch.output)
        pair = try await Daemons.socatPair(in: setup.directory)
        #expect(await watch.waitForOutput { Self.located($0) >= before + 3 }, "\(watch.errors)")

        await watch.stop()
        await pair.socat.stop()
        await feeder.stop()
        let lines = watch.output.split(separator: "\n")
        let gap = try #require(lines.firstIndex { $0.contains("locationUnavailable") })
        #expect(lines[..<gap].contains { $0.hasPrefix("2026-03-14T") })
        #expect(lines[gap...].contains { $0.hasPrefix("2026-03-14T") })
        #expect(
            watch.errors.components(separatedBy: "connected to serial:\(pair.device) at 9600 baud").count == 3
        )
        #expect(watch.errors.contains("serial:\(pair.device): the device hung up (unplugged?); reopening in"))
    }

    /// A program started at a nice value reads its receiver at it: the reading thread is made by
    /// one of the runtime's threads, which run at values of their own (0 or -4).
    @Test(
        "watch started with nice -n reads its receiver at that nice value",
        arguments: [6, -6])  // lowering it: as root, as the tests run
    func readerNice(_ nice: Int) async throws {
        let setup = try await setUp()
        let pty = try PseudoTerminal()
        let receiver = pty.transmitContinuously(try driveSample(epochs: 300).bytes, baud: 115200)
        let watch = try RunningProcess(
            [
                "-n", "\(nice)", Runner.gpsloc.path, "watch", "--source",
                "serial:\(pty.slavePath)?baud=115200",
                "--app", app, "--store", setup.store, "--manifest", setup.manifest, "--prompt", "pending",
            ], executable: URL(fileURLWithPath: "/usr/bin/nice"))
        #expect(await watch.waitForOutput { Self.located($0) >= 3 }, "\(watch.errors)")
        let threads = try ProcessThreads.niceValues(of: watch.processIdentifier)
        await watch.stop()
        await receiver.stop()
        pty.close()
        let reader = try #require(threads.first { $0.name == "gnss-reader" }, "\(threads)")
        #expect(reader.nice == nice, "\(threads)")
    }

    @Test(
        "A source that cannot work ends watch with the reason and status 1, not retries forever",
        arguments: [
            ("serial:/dev/null?baud=9600", "not a serial port"),
            ("file:/", "it is a directory"),
        ])
    func permanentFailure(_ source: String, _ says: String) async throws {
        let watch = try watch(source, try await setUp())
        let status = await watch.wait(within: 20)
        #expect(status == 1, "\(watch.errors)")
        #expect(watch.errors.contains(says) && watch.errors.contains("opening it again would not help"))
        #expect(!watch.errors.contains("reopening in"))
    }

    @Test("gpsd stopped mid-stream and started again: watch reconnects by itself")
    func gpsdRestart() async throws {
        let setup = try await setUp()
        let pty = try PseudoTerminal()
        let receiver = pty.transmitContinuously(
            try driveSample(epochs: 300, allSentences: true).bytes, baud: 115200)
        let port = Daemons.freePort()
        var gpsd = try Daemons.gpsd(device: pty.slavePath, port: port)
        #expect(await Daemons.waitUntilListening(port: port))
        let watch = try watch("gpsd://localhost:\(port)", setup)
        #expect(await watch.waitForOutput { Self.located($0) >= 3 }, "\(watch.errors)")

        await gpsd.stop()
        #expect(await watch.waitForOutput { $0.contains("[locationUnavailable]") }, "\(watch.errors)")
        let before = Self.located(watch.output)
        gpsd = try Daemons.gpsd(device: pty.slavePath, port: port)
        #expect(await watch.waitForOutput(within: 45) { Self.located($0) >= before + 3 }, "\(watch.errors)")

        await watch.stop()
        await gpsd.stop()
        await receiver.stop()
        pty.close()
        #expect(watch.errors.components(separatedBy: "connected to gpsd://localhost:\(port)").count == 3)
    }

    @Test("NMEA from a TCP server and from UDP datagrams")
    func network() async throws {
        let setup = try await setUp()
        let sample = try driveSample(epochs: 60, allSentences: true).bytes
        let log = setup.directory + "/drive.nmea"
        try Data(sample).write(to: URL(fileURLWithPath: log))
        guard let socat = Daemons.path(of: "socat") else {
            throw Daemons.Missing(program: "socat", package: "socat")
        }

        // The port is free when picked, but a daemon of a test running alongside may take it
        // first; then socat cannot listen and exits, and the listener found is not ours.
        var server: RunningProcess?
        var port = 0
        for _ in 0..<5 where server == nil {
            port = Daemons.freePort()
            let candidate = try RunningProcess(
                // The file is opened by each connection's child (-U, the file second), so every
                // connection reads the log from its start, the readiness probe's included.
                ["-U", "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork", "OPEN:\(log)"],
                executable: URL(fileURLWithPath: socat))
            if await Daemons.waitUntilListening(port: port), candidate.isRunning {
                server = candidate
            } else {
                await candidate.stop()
            }
        }
        let tcpServer = try #require(server, "socat could not listen on any of five free ports")
        let tcp = try watch("tcp://127.0.0.1:\(port)", setup)
        #expect(await tcp.waitForOutput { Self.located($0) >= 3 }, "\(tcp.errors)")
        await tcp.stop()
        await tcpServer.stop()

        let udpPort = Daemons.freePort(datagram: true)
        let udp = try watch("udp://:\(udpPort)", setup)
        // Datagrams sent before the listener is up are lost, as on a real network: send until seen.
        for _ in 0..<100 where Self.located(udp.output) < 3 {
            _ = try await Runner.run(
                ["-u", "OPEN:\(log)", "UDP-SENDTO:127.0.0.1:\(udpPort)"],
                executable: URL(fileURLWithPath: socat))
            try await Task.sleep(for: .milliseconds(100))
        }
        await udp.stop()
        #expect(Self.located(udp.output) >= 3, "\(udp.errors)")
    }

    @Test("devices names the rate each receiver speaks at, and why the others are not receivers")
    func devices() async throws {
        let pty = try PseudoTerminal()
        let receiver = pty.transmitContinuously(try driveSample(epochs: 5).bytes, baud: 9600)
        let missing = "/dev/ttyUSB-not-there"
        let result = try await Runner.run(["devices", pty.slavePath, missing, "--probe-time", "0.6"])
        await receiver.stop()
        pty.close()
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first == "\(pty.slavePath)  nmea 9600  serial:\(pty.slavePath)?baud=9600")
        #expect(lines.last?.hasPrefix("\(missing)  -  serial:\(missing): cannot open") == true)
        #expect(lines.last?.contains("is the receiver plugged in?") == true)

        let none = try await Runner.run(["devices", missing])
        #expect(none.status == 1)
        let bad = try await Runner.run(["devices", "--probe-time", "0"])
        #expect(bad.standardError.contains("--probe-time must be between 0.1 and 60 seconds"))
    }
}
