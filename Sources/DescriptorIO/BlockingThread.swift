import Foundation
import Synchronization

/// Runs `body` on a thread of its own and awaits its result, so that a blocking call (a `poll`, a
/// `read`, a C library's wait) never holds one of the few threads Swift's concurrency runs on.
///
/// Cancelling the awaiting task calls `stop`, which must make `body` return soon (a
/// ``PollLoop/stop()``); the result is still awaited, so nothing `body` uses is released while it
/// runs.
public func onThread<Result: Sendable>(
    named name: String, stop: @escaping @Sendable () -> Void,
    _ body: @escaping @Sendable () throws -> Result
) async throws -> Result {
    let state = Mutex<
        (
            result: Swift.Result<Result, any Error>?,
            waiter: CheckedContinuation<Swift.Result<Result, any Error>, Never>?
        )
    >((nil, nil))
    let thread = Thread {
        let result = Swift.Result { try body() }
        let waiter = state.withLock { state in
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }
    thread.name = name
    thread.start()
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let done { continuation.resume(returning: done) }
        }
    } onCancel: {
        stop()
    }
    return try result.get()
}
