// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A thread of its own that reads receivers (a ``ReceiverHost``) and runs the tasks that prefer
/// it (a `TaskExecutor`, for `withTaskExecutorPreference`): a program that reads a receiver and
/// waits for its updates in a task, as `gpsloc watch` does, gets each update in the one wake-up
/// of the thread that read the fix. Read on a thread of its own, the fix resumed the waiting task
/// on one of the runtime's threads, which had to be woken in turn, and on a busy machine that
/// second wake-up was most of the update's latency at the 99th percentile (`BENCHMARKS.md`,
/// round 2, seventeenth part).
///
/// The thread waits in `poll(2)` on the descriptors it reads and on a pipe that wakes it when a
/// task is enqueued from elsewhere; a task the thread itself resumes (the update it just made)
/// runs as soon as the read's bytes were handled, without a wake-up. A task that blocks holds
/// the reading up, as it would hold an event loop: what runs here only waits by `await`.
public final class ReceiverThread: ReceiverHost, TaskExecutor, @unchecked Sendable {
    /// A descriptor being read, and the call that waits for its end.
    private struct Reading {
        let descriptor: CInt
        let chunk: @Sendable (UnsafeRawBufferPointer) -> Void
        let ended: CheckedContinuation<ReceiverReadEnd, Never>
    }

    /// What other threads hand the thread: taken by it at each turn of its loop.
    private struct Inbox {
        var jobs: [UnownedJob] = []
        var added: [(id: Int, reading: Reading)] = []
        var cancelled: [Int] = []
        var nextID = 0
        /// The thread is in `poll(2)` (or about to be): whoever hands it something wakes it.
        var sleeping = false
        var stopping = false
        /// The thread has ended (``stop()``): nothing reaches it any more.
        var ended = false

        var isEmpty: Bool { jobs.isEmpty && added.isEmpty && cancelled.isEmpty && !stopping }
    }

    private let inbox = Mutex(Inbox())
    private let wakeRead: CInt
    private let wakeWrite: CInt

    /// Starts the thread, named `name` (what `top -H` shows). Throws where no pipe can be made
    /// (the process is out of descriptors).
    public init(named name: String) throws(Errno) {
        var ends: [CInt] = [0, 0]
        guard pipe(&ends) == 0 else { throw Errno(rawValue: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        detachThread(named: name) { [self] in run() }
    }

    /// Ends the thread once it has run what was enqueued before; every reading ends as
    /// cancelled, a reading begun later ends so at once, and a task enqueued later runs on the
    /// runtime's threads.
    public func stop() {
        hand { $0.stopping = true }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        var ended = false
        hand { inbox in
            ended = inbox.ended
            if !ended { inbox.jobs.append(job) }
        }
        if ended { globalConcurrentExecutor.enqueue(job) }
    }

    public func read(_ descriptor: CInt, chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) async
        -> ReceiverReadEnd
    {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
        let id = inbox.withLock { inbox in
            inbox.nextID += 1
            return inbox.nextID
        }
        let end = await withTaskCancellationHandler {
            await withCheckedContinuation { (ended: CheckedContinuation<ReceiverReadEnd, Never>) in
                let reading = Reading(descriptor: descriptor, chunk: chunk, ended: ended)
                var gone = false
                hand { inbox in
                    gone = inbox.ended
                    if !gone { inbox.added.append((id, reading)) }
                }
                if gone { finish(reading, .cancelled) }
            }
        } onCancel: {
            hand { $0.cancelled.append(id) }
        }
        return Task.isCancelled ? .cancelled : end
    }

    /// Changes the inbox, and wakes the thread if it sleeps.
    private func hand(_ change: (inout Inbox) -> Void) {
        let wake = inbox.withLock { inbox in
            change(&inbox)
            defer { inbox.sleeping = false }
            return inbox.sleeping
        }
        if wake { _ = withUnsafeBytes(of: UInt8(1)) { write(wakeWrite, $0.baseAddress, 1) } }
    }

    /// The thread: runs what is enqueued, then waits for its descriptors and its pipe. What it
    /// takes from the inbox is swapped with arrays of its own, so that a turn allocates nothing.
    private func run() {
        var readings: [Int: Reading] = [:]
        // Cancellations that came before their reading did.
        var early: Set<Int> = []
        var jobs: [UnownedJob] = []
        var added: [(id: Int, reading: Reading)] = []
        var cancelled: [Int] = []
        // What `poll(2)` waits for: the pipe, then each reading's descriptor, by `order`.
        var order: [Int] = []
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var drained = [UInt8](repeating: 0, count: 64)
        let executor = asUnownedTaskExecutor()
        while true {
            let stopping = inbox.withLock { inbox in
                swap(&jobs, &inbox.jobs)
                swap(&added, &inbox.added)
                swap(&cancelled, &inbox.cancelled)
                if inbox.stopping { inbox.ended = true }
                return inbox.stopping
            }
            for job in jobs {
                if stopping {
                    globalConcurrentExecutor.enqueue(job)
                } else {
                    job.runSynchronously(on: executor)
                }
            }
            for (id, reading) in added { readings[id] = reading }
            early.formUnion(cancelled)
            for id in early where readings[id] != nil {
                finish(readings.removeValue(forKey: id)!, .cancelled)
                early.remove(id)
            }
            if stopping {
                for reading in readings.values { finish(reading, .cancelled) }
                close(wakeRead)
                close(wakeWrite)
                return
            }
            let changed = !added.isEmpty || !cancelled.isEmpty
            jobs.removeAll(keepingCapacity: true)
            added.removeAll(keepingCapacity: true)
            cancelled.removeAll(keepingCapacity: true)
            // What a job enqueued from here (or another thread meanwhile) runs before any sleep.
            let sleep = inbox.withLock { inbox in
                guard inbox.isEmpty else { return false }
                inbox.sleeping = true
                return true
            }
            guard sleep else { continue }
            if changed || order.count != readings.count {
                order = Array(readings.keys)
                fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                fds += order.map { pollfd(fd: readings[$0]!.descriptor, events: Int16(POLLIN), revents: 0) }
            }
            for index in fds.indices { fds[index].revents = 0 }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            inbox.withLock { $0.sleeping = false }
            guard ready > 0 else { continue }
            if fds[0].revents != 0 {
                while Glibc.read(wakeRead, &drained, drained.count) > 0 {}
            }
            for (index, id) in order.enumerated() where fds[index + 1].revents != 0 {
                guard let reading = readings[id] else { continue }
                let count = buffer.withUnsafeMutableBytes {
                    Glibc.read(reading.descriptor, $0.baseAddress, $0.count)
                }
                if count > 0 {
                    buffer.withUnsafeBytes { reading.chunk(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                } else if count == 0 {
                    finish(readings.removeValue(forKey: id)!, .end)
                } else if errno != EAGAIN && errno != EINTR {
                    finish(readings.removeValue(forKey: id)!, .failed(errno: errno))
                }
            }
        }
    }

    /// Closes a reading's descriptor and tells its caller how it ended.
    private func finish(_ reading: Reading, _ end: ReceiverReadEnd) {
        close(reading.descriptor)
        reading.ended.resume(returning: end)
    }
}
