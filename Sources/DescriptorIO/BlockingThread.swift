// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking

/// Runs `body` on a thread of its own and awaits its result, so that a blocking call (a `poll`, a
/// `read`, a name lookup, a C library's wait) never holds one of the few threads Swift's
/// concurrency runs on.
///
/// Cancelling the awaiting task calls `stop`, which should make `body` return soon (a
/// ``PollLoop/stop()``; a call that cannot be interrupted passes nothing); the result is still
/// awaited, so nothing `body` uses is released while it runs.
public func onThread<Value: Sendable, Failure: Error>(
    named name: String, stop: @escaping @Sendable () -> Void = {},
    _ body: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    typealias Outcome = Result<Value, Failure>
    let state = Mutex<(outcome: Outcome?, waiter: CheckedContinuation<Outcome, Never>?)>((nil, nil))
    let thread = Thread {
        let outcome: Outcome
        do throws(Failure) {
            outcome = .success(try body())
        } catch {
            outcome = .failure(error)
        }
        let waiter = state.withLock { state in
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }
    thread.name = name
    thread.start()
    let outcome = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.outcome == nil { state.waiter = continuation }
                return state.outcome
            }
            if let done { continuation.resume(returning: done) }
        }
    } onCancel: {
        stop()
    }
    return try outcome.get()
}

/// Runs `body` on a thread of its own, named `name`, and returns at once: for a loop that lives as
/// long as its owner (a watcher reading a descriptor until its ``PollLoop`` is stopped).
public func detachThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
}
