// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import GNSS
import GNSSSources
import Locking
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A receiver read on a thread that also runs the tasks that prefer it: the fixes a thread of the
/// source's own would read, on that thread, and the task waiting for them woken there; an end, a
/// cancellation and a stop end the reading as they should.
@Suite("A receiver read on a thread that runs the tasks waiting for it")
struct ReceiverThreadTests {
    /// The name of the thread this runs on, as the kernel has it.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A connected pair of Unix stream sockets: `read`, for the thread to read, and `write`, the
    /// test's, which also tells when the other end has been closed.
    static func socketEnds() throws -> (read: CInt, write: CInt) {
        var ends: [CInt] = [0, 0]
        try #require(socketpair(AF_UNIX, SocketType.stream, 0, &ends) == 0)
        return (ends[0], ends[1])
    }

    /// Whether the reading end of `ends` has been closed, as its peer sees it (a descriptor's
    /// number says nothing: the suites beside this one open files, and may be given it again).
    static func isClosed(_ ends: (read: CInt, write: CInt)) -> Bool {
        var byte: UInt8 = 0
        // The reading end never writes or shuts down: an end of file means it was closed.
        return recv(ends.write, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    /// The end of file to the reading end, the test's end kept open to see it closed.
    static func endOfFile(_ ends: (read: CInt, write: CInt)) {
        _ = shutdown(ends.write, Int32(SHUT_WR))
    }

    @Test("A serial receiver's fixes, in order, to a task that prefers the thread and runs on it")
    func fixesToTheWaitingTask() async throws {
        let thread = try ReceiverThread(named: "ocl-test-read")
        let pty = try PseudoTerminal()
        let (fixes, continuation) = AsyncStream<Fix>.makeStream()
        let source = SerialSource(path: pty.slavePath, baud: 115200, host: thread)
        let connected = Mutex(false)
        let run = Task {
            try await source.run(
                .immediate { fix in
                    var bare = fix
                    bare.arrival = nil
                    continuation.yield(bare)
                },
                connected: { _ in connected.withLock { $0 = true } })
        }
        #expect(await waitUntil(within: 20) { connected.withLock { $0 } }, "the port was opened")
        let sample = try driveSample(epochs: 20, allSentences: true)
        let wanted = sample.fixes.count - 1
        let writer = Task { await pty.send(sample.bytes, baud: 115200) }
        let (received, names) = await withTaskExecutorPreference(thread) {
            var received: [Fix] = []
            var names: Set<String> = []
            for await fix in fixes {
                received.append(fix)
                names.insert(Self.threadName())
                if received.count == wanted { break }
            }
            return (received, names)
        }
        await writer.value
        #expect(received == Array(sample.fixes.prefix(wanted)))
        #expect(names == ["ocl-test-read"], "the waiting task ran where the fixes were read: \(names)")
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        pty.close()
        thread.stop()
    }

    @Test("With nothing to read, a task that prefers the thread runs on it, woken from elsewhere")
    func tasksAlone() async throws {
        let thread = try ReceiverThread(named: "ocl-test-read")
        let result = Mutex<[String]?>(nil)
        // Awaited by polling, so that a thread that never runs the task fails the test, not hangs it.
        Task {
            let names = await withTaskExecutorPreference(thread) { () async -> [String] in
                var names: [String] = []
                for _ in 0..<3 {
                    // A sleep resumes the task from the runtime's timer, on another thread.
                    try? await Task.sleep(for: .milliseconds(10))
                    names.append(Self.threadName())
                }
                return names
            }
            result.withLock { $0 = names }
        }
        #expect(await waitUntil(within: 10) { result.withLock { $0 } != nil }, "the task ran to its end")
        #expect(result.withLock { $0 } == Array(repeating: "ocl-test-read", count: 3))
        thread.stop()
    }

    @Test("Bytes drip-fed one at a time reach the chunk whole and in order; the end of file ends it")
    func dripFed() async throws {
        let thread = try ReceiverThread(named: "ocl-test-read")
        let ends = try Self.socketEnds()
        let received = Mutex<[UInt8]>([])
        let reading = Task { await thread.read(ends.read) { bytes in received.withLock { $0 += bytes } } }
        let text = Array("$GPGGA,080000.00,5222.3,N,00454.1,E,1,08,1.0,10.0,M,46.0,M,,*4B\r\n".utf8)
        for byte in text {
            #expect(write(ends.write, [byte], 1) == 1)
            try await Task.sleep(for: .microseconds(200))
        }
        #expect(await waitUntil(within: 10) { received.withLock { $0.count } == text.count })
        Self.endOfFile(ends)
        #expect(await reading.value == .end)
        #expect(received.withLock { $0 } == text)
        #expect(Self.isClosed(ends), "the reading closed its descriptor")
        close(ends.write)
        thread.stop()
    }

    @Test("Cancelling the reading task ends it as cancelled and closes its descriptor; others go on")
    func cancelled() async throws {
        let thread = try ReceiverThread(named: "ocl-test-read")
        let first = try Self.socketEnds()
        let second = try Self.socketEnds()
        let secondBytes = Mutex(0)
        let firstReading = Task { await thread.read(first.read) { _ in } }
        let secondReading = Task {
            await thread.read(second.read) { bytes in secondBytes.withLock { $0 += bytes.count } }
        }
        try await Task.sleep(for: .milliseconds(50))
        firstReading.cancel()
        #expect(await firstReading.value == .cancelled)
        #expect(Self.isClosed(first))
        #expect(write(second.write, "still read\n", 11) == 11)
        #expect(await waitUntil(within: 10) { secondBytes.withLock { $0 } == 11 })
        Self.endOfFile(second)
        #expect(await secondReading.value == .end)
        close(second.write)
        close(first.write)
        thread.stop()
    }

    @Test("Stopped: a reading ends as cancelled, a later one at once, and a later task still runs")
    func stopped() async throws {
        let thread = try ReceiverThread(named: "ocl-test-read")
        let before = try Self.socketEnds()
        let reading = Task { await thread.read(before.read) { _ in } }
        try await Task.sleep(for: .milliseconds(50))
        thread.stop()
        #expect(await reading.value == .cancelled)
        #expect(Self.isClosed(before))
        let after = try Self.socketEnds()
        #expect(await thread.read(after.read) { _ in } == .cancelled)
        #expect(Self.isClosed(after))
        let ran = await withTaskExecutorPreference(thread) { () async -> Bool in
            await Task.yield()
            return true
        }
        #expect(ran)
        close(before.write)
        close(after.write)
    }
}
