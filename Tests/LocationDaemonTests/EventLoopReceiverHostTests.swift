// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import LocationDaemon
import Locking
import NIOPosix
import TestSupport
import Testing

/// A serial receiver read on the daemon's event loop: the fixes of the thread-read source, on the
/// loop's thread; an unplugged device and a cancelled run end as they do there.
@Suite("A serial receiver read on an event loop")
struct EventLoopReceiverHostTests {
    /// What a hosted run delivered, and whether each fix came on the loop's thread.
    final class Delivered: Sendable {
        private let state = Mutex<(fixes: [Fix], offLoop: Int)>(([], 0))
        func add(_ fix: Fix, onLoop: Bool) {
            state.withLock { state in
                var bare = fix
                bare.arrival = nil
                state.fixes.append(bare)
                if !onLoop { state.offLoop += 1 }
            }
        }
        var fixes: [Fix] { state.withLock { $0.fixes } }
        var offLoop: Int { state.withLock { $0.offLoop } }
    }

    /// How one run's opening of the port went: opened, or why the run ended first.
    final class Opening: Sendable {
        private let state = Mutex<(connected: Bool, failure: String?)>((false, nil))
        func connect() { state.withLock { $0.connected = true } }
        func fail(_ error: any Error) { state.withLock { $0.failure = "\(error)" } }
        var connected: Bool { state.withLock { $0.connected } }
        var failure: String? { state.withLock { $0.failure } }
    }

    /// A source on `pty` read by a loop of `group`, run until it ends; returned once it has
    /// opened the port.
    ///
    /// A run that finds the port locked is started again, for up to 20 s: the suite's other tests
    /// spawn programs, and a child between its fork and its exec holds a copy of every descriptor
    /// of this process, the last run's port and its lock with it. A port a cancelled run never
    /// freed stays locked for good and fails here all the same.
    private func connected(
        _ pty: PseudoTerminal, _ group: MultiThreadedEventLoopGroup, into delivered: Delivered
    )
        async -> Task<Void, any Error>
    {
        let loop = group.next()
        let source = SerialSource(path: pty.slavePath, baud: 115200, host: EventLoopReceiverHost(loop: loop))
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let attempt = Opening()
            let run = Task {
                do {
                    try await source.run(
                        .immediate { delivered.add($0, onLoop: loop.inEventLoop) },
                        connected: { _ in attempt.connect() })
                } catch {
                    attempt.fail(error)
                    throw error
                }
            }
            let left = (deadline - ContinuousClock.now).components
            let remaining = max(Double(left.seconds) + Double(left.attoseconds) * 1e-18, 0)
            _ = await waitUntil(within: remaining) { attempt.connected || attempt.failure != nil }
            let locked = attempt.failure?.contains("another program has this receiver open") == true
            if attempt.connected || !locked || ContinuousClock.now > deadline {
                #expect(attempt.connected, "the port was opened: \(attempt.failure ?? "no answer in 20 s")")
                return run
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("The fixes a thread would read, in order, each on the loop's thread; cancelling frees the port")
    func fixesOnTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let pty = try PseudoTerminal()
        let delivered = Delivered()
        let run = await connected(pty, group, into: delivered)
        let sample = try driveSample(epochs: 20, allSentences: true)
        await pty.send(sample.bytes, baud: 115200)
        #expect(await waitUntil(within: 10) { delivered.fixes.count >= sample.fixes.count - 1 })
        #expect(delivered.fixes == Array(sample.fixes.prefix(delivered.fixes.count)))
        #expect(delivered.offLoop == 0, "every fix is handed over on the loop that read it")
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        // Closed and unlocked: another run opens the port at once.
        let second = await connected(pty, group, into: Delivered())
        second.cancel()
        _ = try? await second.value
        pty.close()
        try await group.shutdownGracefully()
    }

    @Test("Unplugging ends the run with a disconnect naming the port; what came before is kept")
    func unplugged() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let pty = try PseudoTerminal()
        let delivered = Delivered()
        let run = await connected(pty, group, into: delivered)
        let sample = try driveSample(epochs: 4)
        pty.write(sample.bytes + Array("$GPRMC,080004.00,A,5222.3".utf8))
        #expect(await waitUntil(within: 10) { delivered.fixes.count >= 3 })
        pty.close()
        let error = await #expect(throws: DisconnectError.self) { try await run.value }
        #expect(
            error?.description.hasPrefix("serial:\(pty.slavePath): ") == true, "\(String(describing: error))")
        #expect(delivered.fixes == Array(sample.fixes.prefix(delivered.fixes.count)))
        try await group.shutdownGracefully()
    }
}
