// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking
import Testing

@_spi(FrontEnd) @testable import LocationEngine

/// A mailbox read by polling, as the daemon's event loop reads its clients' feeds: every element
/// in order, a call when something arrives after an empty poll (once, never lost), and the end.
@Suite("A mailbox read by polling")
struct MailboxPollTests {
    /// Distinct flags (transitions: never dropped, never merged).
    static func flags(_ number: Int) -> AuthorizationFlags {
        var flags = AuthorizationFlags()
        flags.authorizationDenied = number & 1 != 0
        flags.authorizationRestricted = number & 2 != 0
        flags.insufficientlyInUse = number & 4 != 0
        return flags
    }

    /// How a reader polls: until a poll finds nothing, or until it is told it took the last.
    enum Reading: CaseIterable, Sendable {
        case untilEmpty, untilLast
    }

    /// Takes what waits: the elements, and whether the end came after them (else `wake` is kept).
    static func drain(
        _ mailbox: Mailbox<AuthorizationFlags>, _ reading: Reading = .untilEmpty,
        wake: @escaping @Sendable () -> Void
    ) -> (taken: [AuthorizationFlags], ended: Bool) {
        var taken: [AuthorizationFlags] = []
        while true {
            let (polled, last) =
                switch reading {
                case .untilEmpty: (mailbox.poll(waking: wake), false)
                case .untilLast: mailbox.pollUntilLast(waking: wake)
                }
            switch polled {
            case .element(let element):
                taken.append(element)
                if last { return (taken, false) }
            case .empty: return (taken, false)
            case .end: return (taken, true)
            }
        }
    }

    @Test(
        "elements come in order; an empty poll is called back once by the next post, not by later ones",
        arguments: Reading.allCases)
    func wakesOnce(_ reading: Reading) {
        let mailbox = Mailbox<AuthorizationFlags>(capacity: 8)
        let wakes = Atomic<Int>(0)
        let wake: @Sendable () -> Void = { wakes.add(1, ordering: .relaxed) }
        #expect(Self.drain(mailbox, reading, wake: wake).taken.isEmpty)
        mailbox.post(Self.flags(1))
        mailbox.post(Self.flags(2))
        #expect(wakes.load(ordering: .relaxed) == 1)
        let first = Self.drain(mailbox, reading, wake: wake)
        #expect(first.taken == [Self.flags(1), Self.flags(2)] && !first.ended)
        mailbox.post(Self.flags(3))
        #expect(wakes.load(ordering: .relaxed) == 2)
        #expect(Self.drain(mailbox, reading, wake: wake).taken == [Self.flags(3)])
        // Taken as the last, the element leaves the call kept: the next post is told.
        mailbox.post(Self.flags(4))
        #expect(wakes.load(ordering: .relaxed) == 3)
    }

    @Test(
        "finish: what waits first, then the end; close: the end at once, and the waiting reader is called",
        arguments: Reading.allCases)
    func endings(_ reading: Reading) {
        let finished = Mailbox<AuthorizationFlags>(capacity: 8)
        finished.post(Self.flags(1))
        finished.finish()
        let taken = Self.drain(finished, reading) {}
        #expect(taken.taken == [Self.flags(1)] && taken.ended)

        // Finished after the reader took the last element: the call it kept is made.
        let finishedLater = Mailbox<AuthorizationFlags>(capacity: 8)
        let laterWakes = Atomic<Int>(0)
        finishedLater.post(Self.flags(1))
        let before = Self.drain(finishedLater, reading) { laterWakes.add(1, ordering: .relaxed) }
        #expect(before.taken == [Self.flags(1)] && !before.ended)
        finishedLater.finish()
        #expect(laterWakes.load(ordering: .relaxed) == 1)
        #expect(Self.drain(finishedLater, reading) {} == ([], true))

        let closed = Mailbox<AuthorizationFlags>(capacity: 8)
        let wakes = Atomic<Int>(0)
        let wake: @Sendable () -> Void = { wakes.add(1, ordering: .relaxed) }
        #expect(!Self.drain(closed, reading, wake: wake).ended)
        closed.close()
        #expect(wakes.load(ordering: .relaxed) == 1)
        #expect(Self.drain(closed, reading, wake: wake) == ([], true))
        closed.post(Self.flags(2))
        #expect(wakes.load(ordering: .relaxed) == 1)
    }

    @Test(
        "a poster on one thread, a reader called back on another: 10,000 elements, in order, then the end",
        .timeLimit(.minutes(1)), arguments: Reading.allCases)
    func concurrentPosts(_ reading: Reading) async {
        let mailbox = Mailbox<AuthorizationFlags>(capacity: 20_000)
        let queue = DispatchQueue(label: "reader")
        let received = Mutex<(elements: [AuthorizationFlags], ended: Bool)>(([], false))
        let done = AsyncStream.makeStream(of: Void.self)
        let reader = Mutex<(@Sendable () -> Void)?>(nil)
        let wake: @Sendable () -> Void = { queue.async { reader.withLock { $0 }?() } }
        reader.withLock {
            $0 = {
                let (taken, ended) = Self.drain(mailbox, reading, wake: wake)
                received.withLock {
                    $0.elements += taken
                    $0.ended = $0.ended || ended
                }
                if ended { done.continuation.finish() }
            }
        }
        queue.async { reader.withLock { $0 }?() }
        let sent = (0..<10_000).map { Self.flags($0 % 8) }
        Thread.detachNewThread {
            for flags in sent { mailbox.post(flags) }
            mailbox.finish()
        }
        for await _ in done.stream {}
        let result = received.withLock { $0 }
        #expect(result.ended && result.elements == sent)
        reader.withLock { $0 = nil }
    }
}
