// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import Synchronization
import TestSupport
import Testing

@testable import OpenCoreLocation

/// The daemon under clients that stall, crash and come back, and a daemon that is killed.
@Suite(
    "gpslocd: many clients, stalls, crashes and restarts", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: ProcessInfo.processInfo.environment["OPENCORELOCATION_ALONE"] == "1",
        "it asserts that 200 clients get every update, which two cores shared with the other suites cannot promise: tools/test runs it alone (OPENCORELOCATION_ALONE=1)"
    ))
struct DaemonRobustnessTests {
    /// One connection of the test's own, reading on the collector's thread.
    final class Connection: @unchecked Sendable {
        let connection: DaemonConnection
        var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        var times: [Double] = []
        /// What is added to the times after the receiver's log wrapped round.
        var wrap = 0.0
        var skipped = 0
        var ended = false

        init(_ socket: String) throws {
            connection = try DaemonConnection.open(path: socket)
        }

        func send(_ request: WireRequest) { _ = connection.send(request.encoded()) }

        /// Reads what is there; `false` at the end of the stream.
        func read() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes {
                Glibc.read(connection.descriptor.rawValue, $0.baseAddress, $0.count)
            }
            guard count > 0 else {
                ended = true
                return false
            }
            for line in (try? splitter.append(buffer[..<count])) ?? [] {
                if case .update(_, let update)? = try? WireEvent.parse(line), let location = update.location {
                    // The first fixes after the daemon opens the receiver mid-sentence can lack
                    // the date (so they are dated by their arrival); they are not compared.
                    skipped += 1
                    if skipped <= 5 { continue }
                    // The receiver plays its log round and round: past the end, the drive's times
                    // start again. Counted on from the last one (epochs are 1 s of the drive apart),
                    // so a slow run that wraps compares the same way as a fast one.
                    if let previous = times.last, location.time + wrap <= previous {
                        wrap += previous - (location.time + wrap) + 1
                    }
                    times.append(location.time + wrap)
                }
            }
            return true
        }
    }

    final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    /// Reads every connection as it becomes readable, until stopped.
    static func collect(_ connections: [Connection], until stop: Flag) async {
        await onAThreadOfItsOwn {
            var live = connections
            while !stop.raised.load(ordering: .relaxed) && !live.isEmpty {
                var fds = live.map {
                    pollfd(fd: $0.connection.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
                }
                guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
                var keep: [Connection] = []
                for (index, entry) in fds.enumerated() {
                    if entry.revents == 0 || live[index].read() { keep.append(live[index]) }
                }
                live = keep
            }
        }
    }

    @Test("200 clients, one of which stops reading and one killed: every other gets every update")
    func manyClients() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        // A bound small enough that the stalled client is cut off within about 20 s, and large enough
        // that readers on a machine busy with the rest of the suite are not.
        let daemon = try DaemonHarness(sources: [receiver.source], extra: ["--client-buffer", "65536"])
        try await daemon.start()

        // The test process is root: an administrator, who grants its own executable Always.
        let first = try Connection(daemon.socket)
        first.send(.hello(version: 1, receiver: nil))
        var splitter = LineSplitter(maximumLength: 65536)
        let helloLine = try #require(try first.connection.readLine(timeout: 5000, splitter: &splitter))
        guard case .hello(_, let identity, _) = try WireEvent.parse(helloLine) else {
            Issue.record("no hello")
            return
        }
        for app in [identity.app, "/usr/bin/socat"] {
            first.send(
                .changeAuthorization(uid: 0, .grant(app: app, always: true, approximate: false, once: false)))
            _ = try first.connection.readLine(timeout: 5000, splitter: &splitter)
        }

        var readers: [Connection] = []
        for _ in 0..<199 {
            let connection = try Connection(daemon.socket)
            connection.send(.hello(version: 1, receiver: nil))
            connection.send(.openSession(session: 1, level: .always, purposeKey: nil))
            connection.send(.subscribeUpdates(subscription: 1, configuration: 0, monitoring: false))
            readers.append(connection)
        }
        // The one that stops reading: it subscribes and never reads again.
        let stalled = try Connection(daemon.socket)
        var small: Int32 = 1024
        setsockopt(
            stalled.connection.descriptor.rawValue, SOL_SOCKET, SO_RCVBUF, &small,
            socklen_t(MemoryLayout<Int32>.size))
        stalled.send(.hello(version: 1, receiver: nil))
        stalled.send(.openSession(session: 1, level: .always, purposeKey: nil))
        stalled.send(.subscribeUpdates(subscription: 1, configuration: 0, monitoring: false))
        // And one that is killed mid-stream.
        let victim = try daemon.client(as: nil)
        await victim.hello()
        victim.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
        victim.send(#"{"op":"updates.subscribe","subscription":1}"#)

        let stop = Flag()
        let collecting = Task { [readers] in await Self.collect(readers, until: stop) }
        #expect(await victim.wait { _ in victim.locations.count >= 5 })
        victim.process.signal(SIGKILL)
        #expect(
            await waitUntil(within: 90) { daemon.log.contains("stopped reading") },
            "the stalled client is cut off: \(daemon.log)")
        try await Task.sleep(for: .seconds(3))
        stop.raised.store(true, ordering: .relaxed)
        await collecting.value
        // It was the stalled one: what it holds ends with the end of the stream.
        // Bounded: were it never cut off, it would be sent updates for ever.
        var drained = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, stalled.read() { drained += 1 }
        #expect(stalled.ended && drained > 0)

        // Every reader saw the same unbroken run of epochs (each 1 s of the drive apart).
        let start = try #require(readers.map { $0.times.first ?? .infinity }.max())
        let end = try #require(readers.map { $0.times.last ?? -.infinity }.min())
        // A reader that got nothing makes the window empty (−∞): stop here rather than count it.
        try #require(end - start >= 30, "at least 3 s of 10 Hz updates reached every client")
        let expected = Int((end - start).rounded()) + 1
        for reader in readers {
            let window = reader.times.filter { $0 >= start && $0 <= end }
            #expect(window.count == expected, "a client missed updates: \(window.count) of \(expected)")
        }
        #expect(!readers.contains { $0.ended }, "no other client was disconnected")
        await daemon.stop()
    }

    @Test(
        "kill -9 of the daemon: the library reports locationUnavailable, reconnects and carries on; decisions stay"
    )
    func daemonKilled() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        let gpsloc = Runner.gpsloc.resolvingSymlinksInPath().path
        try await daemon.grantAlways(uid: alice.uid, app: gpsloc)

        let watch = try RunningProcess(
            alice.setpriv() + [
                "/usr/bin/env", "OPENCORELOCATION_SOCKET=\(daemon.socket)", gpsloc, "watch", "--session",
                "always", "--format", "jsonl",
            ],
            executable: setprivPath)
        let located = { (text: String) in text.split(separator: "\n").count { $0.contains("\"latitude\"") } }
        #expect(await watch.waitForOutput { located($0) >= 5 }, "\(watch.errors)")

        await daemon.kill9()
        #expect(await watch.waitForOutput { $0.contains("\"locationUnavailable\":true") }, "\(watch.errors)")
        let before = located(watch.output)
        try await daemon.start()
        #expect(await watch.waitForOutput { located($0) >= before + 5 }, "\(watch.errors)")
        #expect(watch.errors.contains("reconnected to gpslocd"))

        let show = try await Runner.run(
            ["auth", "show", "--uid", "\(alice.uid)"], environment: ["OPENCORELOCATION_SOCKET": daemon.socket]
        )
        #expect(
            show.standardOutput.contains("\(gpsloc): always, precise"),
            "\(show.standardOutput)\(show.standardError)")
        #expect(show.standardOutput.contains("uid \(alice.uid)"))
        await watch.stop()
        await daemon.stop()
    }
}
