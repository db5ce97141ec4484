// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
    detachThread(named: name) {
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
///
/// A POSIX thread, detached, with the C library's default stack; its name (what `top -H` and
/// `/proc/PID/task/*/comm` show) is `name`'s first 15 bytes, the kernel's limit. A thread that
/// cannot be made (the process's or the user's limit reached) stops the program with the reason:
/// nothing could go on without it.
///
/// It runs at the program's nice value, the one its main thread has (`nice -n 19 gpsloc …`, a
/// unit's `Nice=`), not at the one of the thread that made it: Swift's runtime sets its own
/// threads' values by their priority class, so a thread would otherwise start at 0 (or -4)
/// whatever the program was started with. Lowering it back to a negative value needs
/// `CAP_SYS_NICE` or a `RLIMIT_NICE` that allows it (root has it; systemd's `LimitNICE=` gives it);
/// where the kernel refuses, the thread keeps the value it started with.
public func detachThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
    let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, nil,
        { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            // prctl(PR_SET_NAME) names the calling thread (Glibc leaves pthread_setname_np out).
            _ = clinux_set_thread_name(String(decoding: start.name.utf8.prefix(15), as: UTF8.self))
            _ = clinux_adopt_process_nice()
            start.body()
            return nil
        }, start)
    guard status == 0 else {
        Unmanaged<Start>.fromOpaque(start).release()
        fatalError("cannot start the thread \(name): \(String(cString: strerror(status)))")
    }
    pthread_detach(thread)
}
