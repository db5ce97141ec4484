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

/// A clock reduced to what the service needs, so that any `Clock` can drive it.
struct ServiceClock: Sendable {
    /// Time since the clock was wrapped.
    let elapsed: @Sendable () -> Duration
    /// Sleeps until ``elapsed`` reaches the time given.
    let sleepUntilElapsed: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleepUntilElapsed = { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) }
    }

    func sleep(_ duration: Duration) async throws {
        try await sleepUntilElapsed(elapsed() + duration)
    }
}

/// One receiver shared by every subscriber in the process.
///
/// The source runs while at least one subscriber is attached and is stopped (its task cancelled,
/// its device or file released) when the last one leaves. Subscribers are told when fixes stop
/// arriving for ``staleAfter``, when the source fails (it is then reopened after 1 s, then every
/// ``maximumBackoff``, 2 s by default, so a receiver plugged back or a server restarted is read
/// again within about that), and when a replayed log ends. A failure that retrying cannot heal
/// (`SourceFailure.isPermanent`) ends the source, as a log's end does, and says why.
public final class LocationService: Sendable {
    public enum Event: Sendable {
        case fix(Fix)
        /// No position can be had now; the text says why.
        case unavailable(String)
        /// The source ended for good (a replayed log reached its end).
        case ended
    }

    public let source: any FixSource
    public let staleAfter: Duration
    public let maximumBackoff: Duration
    /// How long a live receiver may stay open and silent before it is closed and opened again (a
    /// receiver that hung, a USB adapter that lost its device, a TCP peer that stopped sending
    /// without closing); `nil` never. Replayed logs are never reopened for silence.
    public let reopenAfterSilence: Duration?
    let clock: ServiceClock
    let log: @Sendable (String) -> Void
    /// How a live source's events reach the subscribers after the first: `nil`, one after another
    /// on the thread that brought them; otherwise each next one is handed to `relay`, called on
    /// the thread that told the one before. gpslocd's relay is its event loop's queue, where the
    /// receiver is read: the first app's clients are written before the next app's engine runs,
    /// rather than after every app's.
    let relay: (@Sendable (@escaping @Sendable () -> Void) -> Void)?

    /// A subscriber: `receive` is called with each event on whatever thread brought it (for a
    /// live receiver, the thread that read the fix), never awaited; `pace`, when a source has no
    /// pace of its own (a log replayed as fast as it can be read), is awaited after each fix, for
    /// the subscriber to make the source wait until it has room.
    private struct Subscriber {
        var id: Int
        var receive: @Sendable (Event) -> Void
        var pace: (@Sendable () async -> Void)?
    }

    private struct State {
        /// In the order they subscribed, which is the order they are told in. An array, for
        /// each fix to take them without sorting or allocating.
        var subscribers: [Subscriber] = []
        var watchers: [Int: AsyncStream<SourceEvent>.Continuation] = [:]
        var nextID = 0
        var task: Task<Void, Never>?
        var generation = 0
        var lastFix: Duration?
        var staleReported = false
        var failure: String?
        /// The run of the source now, for the watchdog to end when it has been silent too long.
        var attempt: Task<Void, any Error>?
        var silenced = false
        /// Stopped for good (``stop()``): a new subscriber does not start it again.
        var stopped = false
        /// The run ended by itself, as a log ends or a source fails for good, while subscribers
        /// (kept ones among them) held it: the next subscriber does not join a run that is over.
        var runOver = false
    }

    private let state = Mutex(State())

    public init<C: Clock>(
        source: any FixSource, clock: C, staleAfter: Duration = .seconds(3),
        maximumBackoff: Duration = .seconds(2), reopenAfterSilence: Duration? = .seconds(10),
        log: @escaping @Sendable (String) -> Void = { _ in },
        relay: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) where C.Duration == Duration {
        self.source = source
        self.clock = ServiceClock(clock)
        self.staleAfter = staleAfter
        self.maximumBackoff = maximumBackoff
        self.reopenAfterSilence = source.origin == .receiver ? reopenAfterSilence : nil
        self.log = log
        self.relay = relay
    }

    public convenience init(source: any FixSource) {
        self.init(source: source, clock: ContinuousClock())
    }

    /// Why the source ended for good, when it failed in a way retrying cannot heal; `nil` while
    /// it works, is retried, or ended as a log ends.
    public var failure: String? { state.withLock { $0.failure } }

    /// Whether the source is running now.
    public var isRunning: Bool { state.withLock { $0.task != nil } }
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// What happens to the source from now on: connections, disconnections with their reasons,
    /// reconnection delays, stale stretches. Watching does not start the source; the stream ends
    /// when the task iterating it is cancelled.
    public func sourceEvents() -> AsyncStream<SourceEvent> {
        let (stream, continuation) = AsyncStream<SourceEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state in
            state.nextID += 1
            state.watchers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    private func report(_ event: SourceEvent) {
        let watchers = state.withLock { Array($0.watchers.values) }
        for watcher in watchers { watcher.yield(event) }
    }

    /// Attaches a subscriber; starts the source for the first one. `receive` is called on
    /// whatever thread brings an event and must not block; `pace` is awaited after each fix of a
    /// source with no pace of its own, for the subscriber to make it wait until there is room.
    ///
    /// A subscriber that comes after the run ended by itself starts a log again from its start
    /// (for every subscriber), and is told at once of a source that failed for good, rather than
    /// waiting in silence for a run that is over.
    package func subscribe(
        pace: (@Sendable () async -> Void)? = nil, _ receive: @escaping @Sendable (Event) -> Void
    ) -> Int {
        let (id, failedForGood) = state.withLock { state in
            state.nextID += 1
            state.subscribers.append(Subscriber(id: state.nextID, receive: receive, pace: pace))
            let failed = state.runOver && state.failure != nil
            if state.task == nil || (state.runOver && !failed), !state.stopped {
                state.generation += 1
                state.runOver = false
                let generation = state.generation
                state.task = Task { [self] in await self.run(generation: generation) }
            }
            return (state.nextID, failed)
        }
        if failedForGood { receive(.ended) }
        return id
    }

    /// Detaches a subscriber; stops the source after the last one.
    package func unsubscribe(_ id: Int) {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.subscribers.removeAll { $0.id == id }
            guard state.subscribers.isEmpty, let task = state.task else { return nil }
            state.task = nil
            state.runOver = false
            state.lastFix = nil
            state.staleReported = false
            return task
        }
        task?.cancel()
    }

    /// Stops the source for good, for a program that is ending: the source is closed, and no
    /// subscriber is told anything more (not even that it ended), so that nothing reaches a relay
    /// or an event loop that is about to go. Returns once the source's run has ended.
    public func stop() async {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.generation += 1
            let task = state.task
            state.task = nil
            return task
        }
        task?.cancel()
        await task?.value
    }

    /// Tells every subscriber of `generation`, through ``relay`` when there is one and the source
    /// goes at the pace of time (every event of such a source, so that each subscriber's events keep
    /// their order); returns them, for a paced source to await.
    /// `endingTheRun` marks the run over in the same step, so that a subscriber is either told
    /// the end or starts the next run.
    @discardableResult
    private func broadcast(_ event: Event, generation: Int, endingTheRun: Bool = false) -> [Subscriber] {
        let subscribers = state.withLock { state -> [Subscriber] in
            guard state.generation == generation, state.task != nil else { return [] }
            if endingTheRun { state.runOver = true }
            if case .fix = event {
                state.lastFix = clock.elapsed()
                state.staleReported = false
            }
            return state.subscribers
        }
        if let relay, subscribers.count > 1, source.isRealTime {
            Self.tell(subscribers, from: 0, Told(event), relay)
        } else {
            for subscriber in subscribers { subscriber.receive(event) }
        }
        return subscribers
    }

    /// An event handed from subscriber to subscriber through a relay: held once, as each step's
    /// call copied a fix of several hundred bytes into itself (`BENCHMARKS.md`, round 2,
    /// twenty-second part).
    private final class Told: Sendable {
        let event: Event
        init(_ event: Event) { self.event = event }
    }

    /// Tells `subscribers[index]`, then hands the rest to `relay`. Each subscriber's events keep
    /// their order: a relay takes what it is given in order, and each step is handed on only
    /// after the one before it was told.
    private static func tell(
        _ subscribers: [Subscriber], from index: Int, _ told: Told,
        _ relay: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) {
        subscribers[index].receive(told.event)
        let next = index + 1
        guard next < subscribers.count else { return }
        relay { tell(subscribers, from: next, told, relay) }
    }

    private func run(generation: Int) async {
        let watchdog = Task { [self] in await self.watch(generation: generation) }
        defer { watchdog.cancel() }
        var backoff = Duration.seconds(1)
        let delivered = DeliveredFlag()
        while !Task.isCancelled {
            state.withLock { $0.lastFix = clock.elapsed() }
            delivered.value.store(false, ordering: .relaxed)
            let source = source
            let attempt = Task { [self] in
                // A source at the pace of time never waits for its subscribers: it tells them on
                // the thread that read each fix. One without a pace waits for the slowest.
                let delivery: FixDelivery =
                    source.isRealTime
                    ? .immediate { [self] fix in
                        delivered.value.store(true, ordering: .relaxed)
                        self.broadcast(.fix(fix), generation: generation)
                    }
                    : .awaited { [self] fix in
                        delivered.value.store(true, ordering: .relaxed)
                        for subscriber in self.broadcast(.fix(fix), generation: generation) {
                            await subscriber.pace?()
                        }
                    }
                try await source.run(delivery, connected: { [self] in self.report(.connected($0)) })
            }
            state.withLock {
                $0.attempt = attempt
                $0.silenced = false
            }
            do {
                try await withTaskCancellationHandler {
                    try await attempt.value
                } onCancel: {
                    attempt.cancel()
                }
                if Task.isCancelled { return }
                if reopenedForSilence() { continue }
                report(.ended)
                broadcast(.ended, generation: generation, endingTheRun: true)
                return
            } catch {
                if Task.isCancelled { return }
                if reopenedForSilence() { continue }
                if error is CancellationError { return }
                // A source that worked before failing is retried soon, as if for the first time.
                if delivered.value.load(ordering: .relaxed) { backoff = .seconds(1) }
                // A source's own errors name it first already.
                let text = "\(error)"
                let said = text.hasPrefix(source.name) ? text : "\(source.name) failed: \(text)"
                if (error as? any SourceFailure)?.isPermanent == true {
                    let message = "\(said); opening it again would not help"
                    log(message)
                    state.withLock { $0.failure = message }
                    report(.failed(message))
                    broadcast(.ended, generation: generation, endingTheRun: true)
                    return
                }
                let message = "\(said); reopening in \(backoff)"
                log(message)
                report(.disconnected("\(error)"))
                report(.reconnecting(after: backoff))
                broadcast(.unavailable(message), generation: generation)
                do { try await sleepUntilReopening(backoff) } catch { return }
                backoff = min(backoff * 2, maximumBackoff)
            }
        }
    }

    /// Waits `backoff` before the source is opened again, or less, when the device it reads
    /// appears again meanwhile (a receiver plugged back in).
    private func sleepUntilReopening(_ backoff: Duration) async throws {
        guard let path = source.devicePath, let watcher = DeviceWatcher(path: path) else {
            try await clock.sleep(backoff)
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.clock.sleep(backoff) }
            group.addTask { await watcher.waitForAppearance() }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Whether the source delivered a fix in its current run.
    private final class DeliveredFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Whether the run that just ended was ended by the watchdog for silence; says so.
    private func reopenedForSilence() -> Bool {
        guard state.withLock({ $0.silenced }), let reopenAfterSilence else { return false }
        let message = "\(source.name): no fixes for \(reopenAfterSilence) although it is open; reopening it"
        log(message)
        report(.disconnected(message))
        return true
    }

    /// Reports `unavailable` once whenever no fix has arrived for `staleAfter`, and ends the run
    /// of a live receiver silent for ``reopenAfterSilence``, for it to be opened again.
    private func watch(generation: Int) async {
        // When to look next, on the clock's elapsed time: counted from the last fix, so that a
        // watchdog that goes back to sleep late (a loaded machine) looks no later for it.
        var due = clock.elapsed() + staleAfter
        while !Task.isCancelled {
            do { try await clock.sleepUntilElapsed(due) } catch { return }
            let now = clock.elapsed()
            let reopenAfter = reopenAfterSilence
            let (stale, silent) = state.withLock { state -> (Bool, Task<Void, any Error>?) in
                due = now + staleAfter
                guard let last = state.lastFix else { return (false, nil) }
                if let reopenAfter, now - last >= reopenAfter {
                    // Ended once already: the run opens it again (and starts counting) soon.
                    guard !state.silenced, let attempt = state.attempt else { return (false, nil) }
                    state.silenced = true
                    return (false, attempt)
                }
                if let reopenAfter, state.staleReported {
                    due = last + reopenAfter  // wake when it is due
                    return (false, nil)
                }
                guard now - last >= staleAfter else {
                    due = last + staleAfter  // wake when this fix goes stale
                    return (false, nil)
                }
                state.staleReported = true
                if let reopenAfter { due = last + reopenAfter }
                return (true, nil)
            }
            silent?.cancel()
            if stale {
                report(.stale(staleAfter))
                broadcast(
                    .unavailable("no fixes from \(source.name) for \(staleAfter)"), generation: generation)
            }
        }
    }
}
