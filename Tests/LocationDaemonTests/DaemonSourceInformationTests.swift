// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine
import LocationWire
import TestSupport
import Testing

@testable import OpenCoreLocation

/// What a client of the daemon learns of where its locations come from: the same as a program
/// that reads the source itself.
@Suite(
    "gpslocd: where locations come from",
    .enabled(if: getuid() == 0, "needs root to grant as an administrator"))
struct DaemonSourceInformationTests {
    @Test("a replayed log's locations reach a client marked simulated; a receiver's are not")
    func replayIsSimulated() async throws {
        let replay = try DaemonHarness(sources: ["file:" + Fixtures.url("drive-1hz.nmea").path])
        let receiver = try TenHertzReceiver()
        let live = try DaemonHarness(sources: [receiver.source])
        defer { receiver.stop() }
        for daemon in [replay, live] {
            try await daemon.start()
            try await daemon.grantAlways(uid: 0, app: "/usr/bin/socat")
        }
        var seen: [[WireLocation]] = []
        for daemon in [replay, live] {
            let client = try daemon.client(as: nil)
            await client.hello()
            client.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
            client.send(#"{"op":"updates.subscribe","subscription":1}"#)
            #expect(await client.wait { _ in client.locations.count >= 3 }, "\(client.output)")
            seen.append(client.locations)
            await client.stop()
            await daemon.stop()
        }
        #expect(seen[0].allSatisfy { $0.simulated == true }, "the replay's: \(seen[0])")
        #expect(seen[1].allSatisfy { $0.simulated == nil }, "the receiver's: \(seen[1])")
        // What the library in client mode makes of them.
        #expect(seen[0].map { Location(wire: $0).source?.isSimulatedBySoftware }.allSatisfy { $0 == true })
        #expect(seen[1].map { Location(wire: $0).source?.isSimulatedBySoftware }.allSatisfy { $0 == false })
    }
}

/// `gpsloc watch` as a client of gpslocd, when the daemon's source ends.
@Suite("gpsloc watch through gpslocd", .enabled(if: getuid() == 0, "needs root to grant as an administrator"))
struct WatchThroughDaemonTests {
    /// A daemon replaying the drive as fast as it can be read, gpsloc granted Always, at the
    /// smallest buffer a client may have: the replay waits for a slow client rather than
    /// outrunning it until it is cut off.
    private static func replaying() async throws -> DaemonHarness {
        let daemon = try DaemonHarness(
            sources: ["file:" + Fixtures.url("drive-1hz.nmea").path + "?speed=max"],
            extra: ["--client-buffer", "4096"])
        try await daemon.start()
        try await daemon.grantAlways(uid: 0, app: Runner.gpsloc.resolvingSymlinksInPath().path)
        return daemon
    }

    @Test(
        "when the daemon's replay ends, watch says so and ends with status 3, not a silent 0; the log says the file ended, and the next client replays it"
    )
    func endOfSource() async throws {
        let daemon = try await Self.replaying()
        func watch() async throws -> ProcessResult {
            try await Runner.run(
                ["60", Runner.gpsloc.path, "watch", "--session", "always", "--format", "jsonl"],
                executable: URL(fileURLWithPath: "/usr/bin/timeout"),
                environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        }
        let first = try await watch()
        #expect(first.status == 3, "\(first.standardError)")
        #expect(
            first.standardError.contains(
                "gpslocd ended the updates: its receiver's source ended (a replayed log played to its end, "
                    + "and the next client replays it from the start"), "\(first.standardError)")
        // Not all 300: a program that falls behind its updates loses the oldest, in its own process.
        #expect(first.standardOutput.split(separator: "\n").count > 10, "the log's updates came first")
        #expect(
            await daemon.logs("its source ended (a replayed log played to its end)", within: 10),
            "\(daemon.log)")
        // As it said: the next client gets the log again, from its start.
        let second = try await watch()
        #expect(second.status == 3, "\(second.standardError)")
        let again = jsonObjects(inLines: second.standardOutput).compactMap { $0["latitude"] as? Double }
        #expect(again.count > 10, "\(second.standardError)")
        await daemon.stop()
        #expect(!daemon.log.contains("stopped reading"), "\(daemon.log)")
    }

    @Test(
        "a client that stops reading a replay at maximum speed is cut off after 10 s; watch beside it gets the rest"
    )
    func stalledReaderOfReplay() async throws {
        let daemon = try await Self.replaying()
        // The test's own connection, which subscribes first and then reads nothing: the replay
        // starts for it and waits for it.
        let stalled = try DaemonConnection.open(path: daemon.socket)
        var small: Int32 = 1024
        setsockopt(
            stalled.descriptor.rawValue, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = stalled.send(WireRequest.hello(version: 1, receiver: nil).encoded())
        var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        let helloLine = try #require(try stalled.readLine(timeout: 5000, splitter: &splitter))
        guard case .hello(_, let identity, _) = try WireEvent.parse(helloLine) else {
            Issue.record("no hello: \(helloLine)")
            return
        }
        try await daemon.grantAlways(uid: 0, app: identity.app)
        _ = stalled.send(WireRequest.openSession(session: 1, level: .always, purposeKey: nil).encoded())
        _ = stalled.send(
            WireRequest.subscribeUpdates(subscription: 1, configuration: 0, monitoring: false).encoded())
        let started = ContinuousClock.now
        let watch = try await Runner.run(
            ["60", Runner.gpsloc.path, "watch", "--session", "always", "--format", "jsonl"],
            executable: URL(fileURLWithPath: "/usr/bin/timeout"),
            environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        let took = ContinuousClock.now - started
        await daemon.stop()
        withExtendedLifetime(stalled) {}
        #expect(
            daemon.log.contains("waited 10.0 seconds for it to take a line, and it was cut off"),
            "\(daemon.log)")
        #expect(watch.status == 3, "\(watch.standardError)")
        #expect(watch.standardOutput.split(separator: "\n").count > 10, "the log's updates reached watch")
        #expect(took > .seconds(9), "the replay went on without waiting for the stalled client")
    }
}
