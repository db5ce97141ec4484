// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where one subscriber's elements wait for its `for try await` loop: a ``DeliveryBuffer`` (the
/// back-pressure policy) behind a lock, with the loop's continuation.
///
/// ``post(_:)`` never waits, so a slow loop never delays the receiver or any other subscriber:
/// when it falls behind, its oldest locations are dropped and counted. A source with no time of
/// its own (a log replayed at maximum speed) instead waits with ``waitForRoom()`` before its next
/// fix, so that nothing of it is lost. When the loop goes away (it ends, breaks or its task is
/// cancelled) the mailbox closes, waiting senders are released and `onTermination` runs once.
///
/// A reader that is told rather than awaited (a daemon's event loop) takes elements with
/// ``poll(waking:)`` instead: no task, no continuation, nothing allocated per element.
@_spi(FrontEnd) public final class Mailbox<Element: Deliverable>: Sendable {
    private struct State {
        var buffer: DeliveryBuffer<Element>
        var finished = false
        var closed = false
        /// The loop's suspension while it waits; resumed exactly once, by `post`, `finish` or
        /// `close`, whichever takes it out of the state (unchecked: checking allocates for every
        /// element, and every path that takes it resumes it).
        var consumer: UnsafeContinuation<Element?, Never>?
        var senders: [CheckedContinuation<Void, Never>] = []
        var onTermination: (@Sendable () -> Void)?
        /// A polling reader's call, kept when ``poll(waking:)`` found nothing; taken and called
        /// once by whatever comes next: an element, the end or the close.
        var waker: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>

    /// - Parameter capacity: how many locations may wait before the oldest is dropped.
    package init(capacity: Int, onTermination: (@Sendable () -> Void)? = nil) {
        state = Mutex(State(buffer: DeliveryBuffer(capacity: capacity), onTermination: onTermination))
    }

    /// Locations dropped because the consumer fell behind.
    package var dropped: Int { state.withLock { $0.buffer.dropped } }

    /// Appends without waiting; returns whether an older location was dropped for it.
    @discardableResult
    package func post(_ element: Element) -> Bool {
        var droppedOne = false
        var waker: (@Sendable () -> Void)?
        let consumer = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            guard !state.finished, !state.closed else { return nil }
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            droppedOne = state.buffer.append(element)
            waker = state.waker.take()
            return nil
        }
        consumer?.resume(returning: element)
        waker?()
        return droppedOne
    }

    /// Waits until a location can be posted without dropping one (or the consumer is gone).
    package func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state -> Bool in
                guard !state.buffer.hasRoom, !state.closed, !state.finished else { return false }
                state.senders.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
    }

    /// No more elements: the consumer sees the end after the waiting ones.
    package func finish() {
        let (consumer, senders, waker) = state.withLock { state in
            state.finished = true
            defer {
                state.consumer = nil
                state.senders = []
            }
            return (state.buffer.isEmpty ? state.consumer : nil, state.senders, state.waker.take())
        }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume() }
        waker?()
    }

    /// The consumer has gone: drop everything and release the senders. Returns what was
    /// waiting, oldest first.
    @discardableResult
    package func close() -> [Element] { close(terminating: true) }

    /// Closes; runs `onTermination` too when `terminating` (else it waits for
    /// ``runTermination()``).
    @discardableResult
    private func close(terminating: Bool) -> [Element] {
        let (consumer, senders, termination, waiting, waker) = state.withLock { state in
            state.closed = true
            defer {
                state.consumer = nil
                state.senders = []
            }
            let termination = terminating ? state.onTermination.take() : nil
            return (state.consumer, state.senders, termination, state.buffer.removeAll(), state.waker.take())
        }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume() }
        termination?()
        waker?()
        return waiting
    }

    /// `onTermination`, if the mailbox closed and it has not run yet.
    private func runTermination() {
        state.withLock { $0.closed ? $0.onTermination.take() : nil }?()
    }

    /// The oldest waiting element, without suspending, for a reader that is told rather than
    /// awaited. When none waits, `wake` is kept and called once, on the thread of whatever comes
    /// next (an element, the end, the close) and outside the lock; the reader then polls again.
    /// One reader: `next()` and `poll` are not mixed on one mailbox.
    public func poll(waking wake: @escaping @Sendable () -> Void) -> MailboxPoll<Element> {
        poll(waking: wake, keepingAtLast: false).polled
    }

    /// ``poll(waking:)`` for a reader that reads until it is told nothing is left: when the
    /// element taken is the last that waits, `wake` is kept then and there, as the next poll
    /// would keep it on finding none, and `last` says so. The reader stops at `last` and saves
    /// that poll, which was half of what the mailbox cost per update in the daemon.
    /// One reader, as for ``poll(waking:)``.
    public func pollUntilLast(
        waking wake: @escaping @Sendable () -> Void
    ) -> (polled: MailboxPoll<Element>, last: Bool) {
        poll(waking: wake, keepingAtLast: true)
    }

    /// Both polls: `keepingAtLast` keeps `wake` when the element taken was the last that waits
    /// (and says so), not only when none waits.
    private func poll(
        waking wake: @escaping @Sendable () -> Void, keepingAtLast: Bool
    ) -> (polled: MailboxPoll<Element>, last: Bool) {
        var polled = MailboxPoll<Element>.empty
        switch read(waking: wake, keepingAtLast: keepingAtLast, { polled = .element($0) }) {
        case .read(let last): return (polled, last)
        case .empty: return (.empty, true)
        case .end: return (.end, true)
        }
    }

    /// The polls' work, the element taken handed to `body` on the calling thread once the lock
    /// is let go: taken out of the buffer into the caller's frame once, where returning it
    /// through the lock's closure, a tuple and the poll's result copied it, a few hundred bytes
    /// for a location, at each step (`BENCHMARKS.md`, round 2, twenty-third part).
    private func read(
        waking wake: @escaping @Sendable () -> Void, keepingAtLast: Bool, _ body: (Element) -> Void
    ) -> MailboxRead {
        var element: Element?
        var senders: [CheckedContinuation<Void, Never>] = []
        let outcome = state.withLock { state -> MailboxRead in
            if state.closed { return .end }
            guard !state.buffer.isEmpty else {
                if state.finished { return .end }
                state.waker = wake
                return .empty
            }
            element = state.buffer.popFirst()
            senders = Self.released(&state)
            // After the last element of a finished mailbox, the next poll tells the end.
            guard keepingAtLast, state.buffer.isEmpty, !state.finished else { return .read(last: false) }
            state.waker = wake
            return .read(last: true)
        }
        for sender in senders { sender.resume() }
        if let element { body(element) }
        return outcome
    }

    package func next() async -> Element? {
        // An element already waiting is taken without suspending.
        if let (value, senders) = state.withLock({ Self.take(&$0) }) {
            for sender in senders { sender.resume() }
            if value == nil { runTermination() }
            return value
        }
        let value = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let (value, ready, senders) = state.withLock {
                    state -> (Element?, Bool, [CheckedContinuation<Void, Never>]) in
                    if let (value, released) = Self.take(&state) { return (value, true, released) }
                    if state.finished || Task.isCancelled { return (nil, true, []) }
                    state.consumer = continuation
                    return (nil, false, [])
                }
                for sender in senders { sender.resume() }
                if ready { continuation.resume(returning: value) }
            }
        } onCancel: {
            // Run inside the runtime's lock of the cancelled task, which a thread that resumes the
            // task needs: the engine's, posting under its own lock. So nothing here may wait for
            // that lock, and `onTermination` (which takes it, to unsubscribe) runs once `next`
            // has returned from its wait, below.
            close(terminating: false)
        }
        // Closed by the cancellation, whether the wait ended with the close or with an element
        // posted just before it.
        if value == nil || Task.isCancelled { runTermination() }
        return value
    }

    /// What `next` returns at once, if anything: the oldest element (with the senders its room
    /// releases), or the end of a closed mailbox.
    private static func take(_ state: inout State) -> (Element?, [CheckedContinuation<Void, Never>])? {
        if state.closed { return (nil, []) }
        guard let value = state.buffer.popFirst() else { return nil }
        return (value, released(&state))
    }

    /// The senders waiting for room, taken out of the state when an element taken made room.
    private static func released(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard state.buffer.hasRoom, !state.senders.isEmpty else { return [] }
        defer { state.senders = [] }
        return state.senders
    }
}

/// What a read of a mailbox found, its element handed over apart.
@_spi(FrontEnd) public enum MailboxRead: Sendable {
    /// An element, which was the last that waits when `last` (for a reader that stops there).
    case read(last: Bool)
    /// Nothing yet: the reader is called when there is.
    case empty
    /// The mailbox finished (after its last element) or closed.
    case end
}

/// What ``Mailbox/poll(waking:)`` found.
@_spi(FrontEnd) public enum MailboxPoll<Element> {
    case element(Element)
    /// Nothing yet: the reader is called when there is.
    case empty
    /// The mailbox finished (after its last element) or closed.
    case end

    /// The element converted; the rest as they are.
    public func map<Other>(_ transform: (Element) -> Other) -> MailboxPoll<Other> {
        switch self {
        case .element(let element): .element(transform(element))
        case .empty: .empty
        case .end: .end
        }
    }
}

/// Closes its mailbox when the last iterator holding it goes away (a loop that ended by `break`).
@_spi(FrontEnd) public final class MailboxLease<Element: Deliverable>: Sendable {
    public let mailbox: Mailbox<Element>
    public init(_ mailbox: Mailbox<Element>) { self.mailbox = mailbox }
    deinit { mailbox.close() }
}

// The mailboxes' readers live in other modules (the façade's loops, the daemon's feeds), where
// `Mailbox`'s generic code would run unspecialized, copying each element through its value
// witnesses: a few percent of the daemon's CPU with 1,000 clients. These entry points, one per
// element the engine hands out, are compiled here for their concrete element.

@_spi(FrontEnd) extension Mailbox where Element == LocationUpdate {
    /// ``pollUntilLast(waking:)``, for this element, handed to `body` rather than returned (on
    /// the calling thread, before this returns, outside the mailbox's lock): `.read(last:)`
    /// when there was one.
    public func readUpdateUntilLast(
        waking wake: @escaping @Sendable () -> Void, _ body: (LocationUpdate) -> Void
    ) -> MailboxRead {
        read(waking: wake, keepingAtLast: true, body)
    }
}

@_spi(FrontEnd) extension MailboxLease where Element == LocationUpdate {
    /// The next update, or `nil` when the subscription is over.
    package func next() async -> LocationUpdate? { await mailbox.next() }

    /// ``Mailbox/poll(waking:)``, for this element.
    public func poll(waking wake: @escaping @Sendable () -> Void) -> MailboxPoll<LocationUpdate> {
        mailbox.poll(waking: wake)
    }
}

extension MailboxLease where Element == Fix {
    /// ``Mailbox/poll(waking:)``, for this element.
    package func poll(waking wake: @escaping @Sendable () -> Void) -> MailboxPoll<Fix> {
        mailbox.poll(waking: wake)
    }
}

extension MailboxLease where Element == AuthorizationFlags {
    /// The next flags, or `nil` when the subscription is over.
    package func next() async -> AuthorizationFlags? { await mailbox.next() }

    /// ``Mailbox/poll(waking:)``, for this element.
    package func poll(waking wake: @escaping @Sendable () -> Void) -> MailboxPoll<AuthorizationFlags> {
        mailbox.poll(waking: wake)
    }
}

extension MailboxLease where Element == MonitorEvent {
    /// The next event, or `nil` when the subscription is over.
    package func next() async -> MonitorEvent? { await mailbox.next() }
}
