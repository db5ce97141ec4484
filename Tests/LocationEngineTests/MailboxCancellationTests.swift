// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking
import Testing

@_spi(FrontEnd) @testable import LocationEngine

/// A `for await` loop over a subscription cancelled while the engine posts to it. The engine posts
/// under its own lock, and resuming the loop's task takes the runtime's lock of that task; the
/// cancellation runs inside that same lock and unsubscribes, which takes the engine's. Neither may
/// wait for the other, or the app's engine stops for good (seen once in a suite under
/// ThreadSanitizer: `stopMonitoringVisits` against a fix being delivered).
@Suite("A mailbox's reader cancelled while a post is under way")
struct MailboxCancellationTests {
    /// Threads let go at the same moment, and how many have finished.
    private final class Race: Sendable {
        private let started = Atomic<Bool>(false)
        private let finished = Atomic<Int>(0)

        var done: Int { finished.load(ordering: .acquiring) }

        /// Runs `body` on a thread of its own once ``go()`` is called.
        func thread(_ body: @escaping @Sendable () -> Void) {
            Thread {
                while !self.started.load(ordering: .acquiring) {}
                body()
                self.finished.add(1, ordering: .releasing)
            }.start()
        }

        func go() { started.store(true, ordering: .releasing) }
    }

    /// The engine's lock, as `AppEngine` posts and unsubscribes under it.
    private final class Engine: Sendable {
        private let lock = Mutex(0)

        func withLock(_ body: () -> Void) { lock.withLock { _ in body() } }
    }

    @Test(
        "the loop cancelled as the engine posts under its lock: both go on, and the unsubscription runs once")
    func cancelledWhilePosting() async throws {
        let engine = Engine()
        var flags = AuthorizationFlags()
        flags.authorizationDenied = true
        let element = flags
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let terminations = Atomic<Int>(0)
            // The engine's unsubscription: its lock, as `AppEngine.unsubscribeUpdates` takes it.
            let mailbox = Mailbox<AuthorizationFlags>(capacity: 8) {
                engine.withLock {}
                terminations.add(1, ordering: .relaxed)
            }
            let reading = Task { await mailbox.next() }
            // Sometimes before the loop waits, mostly while it does.
            let settle = UInt64.random(in: 0..<200, using: &generator)
            try await Task.sleep(nanoseconds: settle * 1_000)
            let race = Race()
            race.thread { engine.withLock { mailbox.post(element) } }
            race.thread { reading.cancel() }
            race.go()
            let deadline = ContinuousClock.now + .seconds(10)
            while race.done < 2 && ContinuousClock.now < deadline {
                try await Task.sleep(nanoseconds: 200_000)
            }
            guard race.done == 2 else {
                Issue.record("round \(round): the post and the cancellation waited for each other for 10 s")
                return
            }
            _ = await reading.value
            // What a loop's lease does when it goes away; the unsubscription must have run once.
            mailbox.close()
            #expect(terminations.load(ordering: .relaxed) == 1, "round \(round)")
        }
    }
}
