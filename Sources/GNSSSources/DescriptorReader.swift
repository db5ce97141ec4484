import Foundation
import GNSS
import Logging
import NMEA
import Synchronization

/// Why a live source stopped: the device or peer went away, or could not be reached.
public struct DisconnectError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Reads a file descriptor on a thread of its own (so a blocked read never holds one of the few
/// threads Swift's concurrency runs on), decodes what arrives and hands the fixes to an async
/// consumer in order.
///
/// The thread waits in `poll(2)` on the descriptor and on a wake-up pipe; cancelling the task
/// that awaits ``run(_:deliver:)`` wakes it at once. The descriptor is closed by the thread when
/// it stops, so it is never closed while still in use.
final class DescriptorReader: Sendable {
    let descriptor: Int32
    let name: String
    /// A datagram socket: an empty read is an empty datagram, not the end.
    let datagrams: Bool
    /// A serial port (or pseudo-terminal): an end of file is the device hanging up.
    let isTerminal: Bool
    private let wake: (read: Int32, write: Int32)
    /// Whether the wake-up pipe is still open (the thread closes it when it ends).
    private let awake = Mutex(true)

    /// Takes ownership of `descriptor`.
    init(descriptor: Int32, name: String, datagrams: Bool = false) throws(DisconnectError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let error = DisconnectError("\(name): cannot create a pipe (\(errnoDescription(errno)))")
            close(descriptor)
            throw error
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        self.descriptor = descriptor
        self.name = name
        self.datagrams = datagrams
        isTerminal = isatty(descriptor) == 1
        wake = (pipeEnds[0], pipeEnds[1])
    }

    /// Wakes the reading thread so that it stops.
    func stop() {
        awake.withLock { open in
            guard open else { return }
            var byte: UInt8 = 1
            _ = Glibc.write(wake.write, &byte, 1)
        }
    }

    /// Writes all of `bytes` to the descriptor (e.g. configuration sentences to a receiver).
    func write(_ bytes: [UInt8]) throws(DisconnectError) {
        let failure = awake.withLock { open -> String? in
            guard open else { return "the device is closed" }
            var offset = 0
            while offset < bytes.count {
                let count = bytes.withUnsafeBytes {
                    Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
                }
                if count > 0 {
                    offset += count
                } else if errno == EINTR || errno == EAGAIN {
                    var wait = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&wait, 1, 1000)
                } else {
                    return errnoDescription(errno)
                }
            }
            return nil
        }
        if let failure { throw DisconnectError("\(name): cannot write (\(failure))") }
    }

    /// Reads until the descriptor fails, reaches its end or the task is cancelled, passing every
    /// chunk to `chunk` on the reading thread; `chunk` returns the fixes completed so far, which
    /// are delivered in order. Throws ``DisconnectError`` when the device or peer goes away.
    func run(
        _ chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> [Fix],
        deliver: @escaping @Sendable (Fix) async -> Void
    ) async throws {
        try await deliverFromThread(named: "gnss-reader", stop: { [self] in stop() }, deliver: deliver) {
            [self] yield in
            let failure = loop { bytes in
                for fix in chunk(bytes) { yield(fix) }
            }
            awake.withLock { open in
                open = false
                close(descriptor)
                close(wake.read)
                close(wake.write)
            }
            if let failure { throw failure }
        }
    }

    /// The thread's loop; returns why it ended, `nil` when asked to stop.
    private func loop(_ received: (UnsafeRawBufferPointer) -> Void) -> DisconnectError? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var fds = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return DisconnectError("\(name): poll failed (\(errnoDescription(errno)))")
            }
            if fds[1].revents != 0 { return nil }
            let events = Int32(fds[0].revents)
            if events & Int32(POLLIN) != 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.withUnsafeBytes { received(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                    continue
                }
                if count == 0 && datagrams { continue }
                if count == 0 && isTerminal {
                    return DisconnectError("\(name): the device hung up (unplugged?)")
                }
                if count == 0 { return DisconnectError("\(name): the other end closed the connection") }
                let code = errno
                if code == EINTR || code == EAGAIN { continue }
                return DisconnectError("\(name): disconnected (\(errnoDescription(code)))")
            }
            if events & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 {
                return DisconnectError("\(name): disconnected (hang-up)")
            }
        }
    }
}

/// How many fixes a reading thread keeps for a consumer that has fallen behind.
let readerBacklog = 4096

/// Runs `produce` on a thread of its own and delivers the fixes it yields, in order, to an async
/// consumer, so that blocking reads never hold one of the few threads Swift's concurrency runs on.
///
/// When the consumer falls more than ``readerBacklog`` fixes behind, the oldest are dropped:
/// counted, and logged with the count (the first drop, then at every power of two, and the total
/// when the thread ends). Cancelling the awaiting task calls `stop`, which must make `produce`
/// return soon. This returns only once `produce` has returned, and throws what it threw.
func deliverFromThread(
    named name: String, stop: @escaping @Sendable () -> Void,
    deliver: @escaping @Sendable (Fix) async -> Void,
    logger: Logger = Logger(label: "OpenCoreLocation.reader"),
    produce: @escaping @Sendable (_ yield: (Fix) -> Void) throws -> Void
) async throws {
    let (stream, continuation) = AsyncThrowingStream<Fix, any Error>.makeStream(
        bufferingPolicy: .bufferingNewest(readerBacklog))
    let finished = Finished()
    let thread = Thread {
        var dropped = 0
        defer {
            if dropped > 0 {
                logger.warning("\(name): \(dropped) fixes were dropped in all: the consumer fell behind")
            }
        }
        let yield = { (fix: Fix) in
            guard case .dropped = continuation.yield(fix) else { return }
            dropped += 1
            if dropped & (dropped - 1) == 0 {
                logger.warning(
                    "\(name): the consumer fell more than \(readerBacklog) fixes behind; \(dropped) dropped so far"
                )
            }
        }
        do {
            try produce(yield)
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
        finished.signal()
    }
    thread.name = name
    thread.start()
    do {
        try await withTaskCancellationHandler {
            for try await fix in stream { await deliver(fix) }
        } onCancel: {
            stop()
        }
    } catch {
        stop()
        await finished.wait()
        throw error
    }
    stop()
    await finished.wait()
    try Task.checkCancellation()
}

/// A one-shot signal from a thread to an async waiter.
private final class Finished: Sendable {
    private let state = Mutex<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func signal() {
        let waiter = state.withLock { state in
            state.done = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.done { state.waiter = continuation }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}

/// An NMEA decoder shared between a reading thread and nobody else, in a box the thread can
/// capture.
final class StreamDecoder: @unchecked Sendable {
    // Only the reading thread touches it, one chunk at a time.
    private var decoder: FixDecoder
    private var fixes: [Fix] = []

    init(framing: NMEAFramer.Configuration = .init()) {
        decoder = FixDecoder(configuration: framing)
    }

    /// The fixes completed by `chunk`.
    func decode(_ chunk: UnsafeRawBufferPointer) -> [Fix] {
        fixes.removeAll(keepingCapacity: true)
        decoder.decode(chunk) { fixes.append($0) }
        return fixes
    }

    var statistics: DecodeStatistics { decoder.statistics }
}
