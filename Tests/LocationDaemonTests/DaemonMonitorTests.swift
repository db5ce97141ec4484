// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import TestSupport
import Testing

/// `CLMonitor` in client mode: the daemon stores the conditions and evaluates them, whether the
/// app runs or not.
@Suite(
    "gpslocd: monitors the daemon keeps", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"))
struct DaemonMonitorTests {
    /// Where the daemon keeps a user's monitor `name`, whatever app it belongs to.
    static func monitorFiles(_ daemon: DaemonHarness, uid: UInt32, name: String) -> [String] {
        let root = "\(daemon.state)/decisions/\(uid)/monitors"
        let apps = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return apps.map { "\(root)/\($0)/\(name).monitor" }.filter {
            FileManager.default.fileExists(atPath: $0)
        }
    }

    static func events(_ output: String) -> [(identifier: String, state: String)] {
        output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let identifier = object["identifier"] as? String, let state = object["state"] as? String
            else { return nil }
            return (identifier, state)
        }
    }

    @Test(
        "an event that happens while the app is not running waits for it; conditions survive kill -9 of the daemon"
    )
    func eventsWhileAway() async throws {
        let alice = try await Account.ensure("ocl-alice")
        // Silent at first: nothing can be evaluated before the app has gone.
        let receiver = try TenHertzReceiver(silent: true)
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        let gpsloc = Runner.gpsloc.resolvingSymlinksInPath().path
        try await daemon.grantAlways(uid: alice.uid, app: gpsloc)

        let start = try #require(receiver.fixes.first)
        let monitor = { (arguments: [String]) in
            try RunningProcess(
                alice.setpriv() + [
                    "/usr/bin/env", "OPENCORELOCATION_SOCKET=\(daemon.socket)", gpsloc, "monitor", "--name",
                    "trip",
                    "--format", "jsonl",
                ] + arguments, executable: setprivPath)
        }

        // The app adds a circle around where the drive starts, and is killed before any fix.
        let first = try monitor(["--circle", "\(start.latitude),\(start.longitude),20000,start"])
        #expect(
            await waitUntil(within: 20) { !Self.monitorFiles(daemon, uid: alice.uid, name: "trip").isEmpty },
            "the daemon stores the condition: \(first.errors)\(daemon.log)")
        first.signal(SIGKILL)
        _ = await first.wait(within: 10)
        #expect(!Self.events(first.output).contains { $0.state == "satisfied" })

        // The receiver speaks for two seconds while the app is away, then falls silent again.
        let before = receiver.epochsSent
        receiver.silence(false)
        #expect(await waitUntil(within: 20) { receiver.epochsSent >= before + 20 })
        receiver.silence(true)
        try await Task.sleep(for: .milliseconds(500))

        // The app comes back: what happened while it was away is its first event.
        let second = try monitor([])
        #expect(
            await second.waitForOutput { Self.events($0).contains { $0 == ("start", "satisfied") } },
            "\(second.output)\(second.errors)\(daemon.log)")
        try await Task.sleep(for: .milliseconds(500))
        second.signal(SIGKILL)
        _ = await second.wait(within: 10)

        // kill -9 of the daemon: its monitors are evaluated again from their files as it starts.
        await daemon.kill9()
        try await daemon.start()
        // Stored monitors are opened once the daemon answers.
        #expect(
            await waitUntil(within: 20) { daemon.log.contains("evaluating 1 stored monitor (") },
            "\(daemon.log)")
        let file = try #require(Self.monitorFiles(daemon, uid: alice.uid, name: "trip").first)
        let stored = try String(contentsOfFile: file, encoding: .utf8)
        #expect(stored.contains("\"start\"") && stored.contains("\"satisfied\""), "\(stored)")

        // Back once more, adding a circle far away: that one's event comes; "start" was consumed
        // inside the circle and is still inside, so it has nothing new to say.
        receiver.silence(false)
        let third = try monitor(["--circle=\(-start.latitude),\(start.longitude),100,far"])
        #expect(
            await third.waitForOutput { Self.events($0).contains { $0 == ("far", "unsatisfied") } },
            "\(third.output)\(third.errors)\(daemon.log)")
        try await Task.sleep(for: .seconds(1))
        #expect(!Self.events(third.output).contains { $0.identifier == "start" }, "\(third.output)")
        third.signal(SIGKILL)
        _ = await third.wait(within: 10)
        await daemon.stop()
    }

    @Test(
        "over the wire: events unacknowledged when a connection ends are sent again; acknowledged ones are kept"
    )
    func acknowledgements() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        let start = try #require(receiver.fixes.first)
        try await daemon.grantAlways(uid: 0, app: "/usr/bin/socat")

        let monitorEvents = { (client: WireClient) in
            client.events.compactMap { if case .monitorEvent(_, let event) = $0 { event } else { nil } }
        }
        let app = try daemon.client(as: nil)
        await app.hello()
        app.send(
            #"{"op":"monitor.add","id":2,"monitor":"m","identifier":"here","condition":{"circle":{"lat":\#(start.latitude),"lon":\#(start.longitude),"radius":20000}}}"#
        )
        app.send(
            #"{"op":"monitor.add","id":3,"monitor":"m","identifier":"b","condition":{"beacon":{"uuid":"nope"}}}"#
        )
        #expect(await app.wait { $0.contains(.ok(id: 2)) })
        #expect(
            await app.wait {
                $0.contains {
                    if case .error(3, let message) = $0 { message.contains("UUID") } else { false }
                }
            })
        app.send(#"{"op":"monitor.subscribe","subscription":5,"monitor":"m"}"#)
        #expect(
            await app.wait { _ in monitorEvents(app).contains { $0.state == .satisfied } }, "\(app.output)")
        // It goes away without saying it received the event.
        await app.stop()

        let again = try daemon.client(as: nil)
        await again.hello()
        again.send(#"{"op":"monitor.records","id":4,"monitor":"m"}"#)
        #expect(
            await again.wait {
                $0.contains {
                    if case .records(4, let records) = $0 {
                        records.map(\.state) == [.unknown]
                    } else {
                        false
                    }
                }
            }, "nothing was consumed yet: \(again.output)")
        again.send(#"{"op":"monitor.subscribe","subscription":1,"monitor":"m"}"#)
        #expect(
            await again.wait { _ in monitorEvents(again).contains { $0.state == .satisfied } },
            "\(again.output)")
        let event = try #require(monitorEvents(again).first { $0.state == .satisfied })
        again.send(#"{"op":"monitor.consumed","id":6,"sequence":\#(event.sequence)}"#)
        #expect(await again.wait { $0.contains(.ok(id: 6)) })
        again.send(#"{"op":"monitor.consumed","id":7,"sequence":\#(event.sequence)}"#)
        #expect(await again.wait { $0.contains { if case .error(7, _) = $0 { true } else { false } } })
        again.send(#"{"op":"monitor.records","id":8,"monitor":"m"}"#)
        #expect(
            await again.wait {
                $0.contains {
                    if case .records(8, let records) = $0 {
                        records.map(\.state) == [.satisfied]
                    } else {
                        false
                    }
                }
            }, "\(again.output)")
        await again.stop()
        await daemon.stop()
    }
}
