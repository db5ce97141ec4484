// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Waits until `condition` holds, looking every `interval` and for at most `seconds` in all;
/// says whether it held. For the live tests, whose daemons and threads take real time.
public func waitUntil(
    within seconds: Double, every interval: Duration = .milliseconds(10), _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return condition()
}

/// Lets a CPU-bound loop give way to the other tests every couple of milliseconds.
///
/// Swift Testing runs tests in parallel on the concurrency pool, which has a thread per core: a
/// long loop that never suspends holds a thread for seconds, and on a two-core machine two of them
/// stop every task of every other test meanwhile (a location passing through a pipeline of tasks
/// waits behind them at each step). Call ``giveWay()`` once per round.
public struct Yielder {
    private let roundsPerLook: Int
    private var rounds = 0
    private var since = ContinuousClock.now

    /// A loop whose rounds take nanoseconds reads the clock only every `roundsPerLook` rounds,
    /// since reading it would cost more than the round.
    public init(roundsPerLook: Int = 1) {
        self.roundsPerLook = roundsPerLook
    }

    public mutating func giveWay() async {
        rounds &+= 1
        guard rounds % roundsPerLook == 0 else { return }
        let now = ContinuousClock.now
        guard now - since >= .milliseconds(2) else { return }
        await Task.yield()
        since = ContinuousClock.now
    }
}

/// Runs `body` on a thread of its own, and waits for it without holding a thread of the
/// concurrency pool: for work that blocks (a program waited for, a paced write, `accept`) or
/// computes for seconds without a place to give way (one call that decodes a whole log), which
/// on the pool would stop every other test's tasks meanwhile. Expectations belong after it, in
/// the test, where Swift Testing knows which test they are for.
public func onAThreadOfItsOwn<T: Sendable, Failure: Error>(
    _ body: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result = await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread {
            do throws(Failure) {
                continuation.resume(returning: .success(try body()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }.start()
    }
    return try result.get()
}
