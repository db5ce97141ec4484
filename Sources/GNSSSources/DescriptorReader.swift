// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import Locking
import Logging
import NMEA
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a live source stopped: the device or peer went away, or could not be reached.
///
/// `errno` is the system's error when one caused it, for a caller to match on (`.noSuchDevice`:
/// unplugged; `.permissionDenied`: not in the device's group; `.connectionRefused`: no server);
/// `hint` says what to do about it. The description reads "name: what (errno); hint".
public struct DisconnectError: SourceFailure, Sendable, CustomStringConvertible {
    /// The source's name and what failed: "serial:/dev/ttyUSB0: cannot open".
    public var what: String
    public var errno: Errno?
    public var hint: String?
    /// Opening the source again would not help: by default, a device that is not a terminal
    /// (`ENOTTY`: `/dev/null` as a serial port) or a directory.
    public var isPermanent: Bool

    public init(_ what: String, errno: Errno? = nil, hint: String? = nil, permanent: Bool? = nil) {
        self.what = what
        self.errno = errno
        self.hint = hint
        isPermanent = permanent ?? (errno == .inappropriateIOCTLForDevice || errno == .isDirectory)
    }

    public var description: String {
        what + (errno.map { " (\($0))" } ?? "") + (hint.map { "; \($0)" } ?? "")
    }
}

/// Reads a file descriptor on a thread of its own (so a blocked read never holds one of the few
/// threads Swift's concurrency runs on), decodes what arrives and hands the fixes to an async
/// consumer in order.
///
/// The thread waits in a `PollLoop` (the one way this package waits for bytes); cancelling
/// the task that awaits ``run(_:deliver:)`` stops the loop at once. The descriptor is closed by
/// the thread when it stops, so it is never closed while still in use.
final class DescriptorReader: Sendable {
    let descriptor: FileDescriptor
    let name: String
    /// A datagram socket: an empty read is an empty datagram, not the end.
    let datagrams: Bool
    /// A serial port (or pseudo-terminal): an end of file is the device hanging up.
    let isTerminal: Bool
    private let loop: PollLoop
    /// Whether the descriptor is still open (the thread closes it when it ends).
    private let open = Mutex(true)

    /// Takes ownership of `descriptor`.
    init(descriptor: FileDescriptor, name: String, datagrams: Bool = false) throws(DisconnectError) {
        do {
            loop = try PollLoop()
        } catch {
            try? descriptor.close()
            throw DisconnectError("\(name): cannot create a pipe", errno: error)
        }
        self.descriptor = descriptor
        self.name = name
        self.datagrams = datagrams
        isTerminal = isatty(descriptor.rawValue) == 1
    }

    /// Wakes the reading thread so that it stops.
    func stop() { loop.stop() }

    /// Writes all of `bytes` to the descriptor (e.g. configuration sentences to a receiver).
    func write(_ bytes: [UInt8]) throws(DisconnectError) {
        let failure = open.withLock { open -> DisconnectError? in
            guard open else { return DisconnectError("\(name): cannot write", hint: "the device is closed") }
            var offset = 0
            while offset < bytes.count {
                do {
                    offset += try bytes[offset...].withUnsafeBytes {
                        try descriptor.write($0, retryOnInterrupt: true)
                    }
                } catch Errno.wouldBlock {
                    var wait = pollfd(fd: descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&wait, 1, 1000)
                } catch {
                    return DisconnectError("\(name): cannot write", errno: error as? Errno)
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Reads until the descriptor fails, reaches its end or the task is cancelled, passing every
    /// chunk to `chunk` on the reading thread; `chunk` returns the fixes completed so far, which
    /// are delivered in order. Throws ``DisconnectError`` when the device or peer goes away.
    func run(
        _ chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> [Fix], delivery: FixDelivery
    ) async throws {
        try await deliverFromThread(named: "gnss-reader", stop: { [self] in stop() }, delivery: delivery) {
            [self] yield in
            let failure = readLoop { bytes in
                for fix in chunk(bytes) { yield(fix) }
            }
            close()
            if let failure { throw failure }
        }
    }

    /// Like ``run(_:delivery:)`` for a consumer told at once, with the reading done by `host`
    /// on a duplicate of the descriptor: `deliver` is called on the host's thread.
    func run(
        hostedBy host: any ReceiverHost, _ chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> [Fix],
        deliver: @escaping @Sendable (Fix) -> Void
    ) async throws {
        defer { close() }
        let duplicate = fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else {
            throw DisconnectError("\(name): cannot read", errno: Errno(rawValue: errno))
        }
        let end = await host.read(duplicate) { bytes in
            for fix in chunk(bytes) { deliver(fix) }
        }
        switch end {
        case .cancelled:
            try Task.checkCancellation()
        case .end:
            throw ended()
        case .failed(let code):
            throw disconnected(code.map(Errno.init(rawValue:)))
        }
    }

    /// Closes the descriptor and the loop, once, when the reading has ended.
    private func close() {
        open.withLock { open in
            guard open else { return }
            open = false
            // A serial port's exclusive flag outlives the descriptor: clear it, or a user
            // other than root gets EBUSY when opening the receiver next.
            if isTerminal { _ = ioctl(descriptor.rawValue, UInt(TIOCNXCL)) }
            try? descriptor.close()
        }
        loop.close()
    }

    /// Why reading ended when a read failed with `errno`. A serial port whose device went away
    /// fails its reads with EIO.
    private func disconnected(_ errno: Errno?) -> DisconnectError {
        let hungUp = isTerminal && errno == .ioError
        return DisconnectError(
            "\(name): disconnected", errno: errno, hint: hungUp ? "the device hung up (unplugged?)" : nil)
    }

    /// Why reading ended at an end of file.
    private func ended() -> DisconnectError {
        DisconnectError(
            isTerminal
                ? "\(name): the device hung up (unplugged?)" : "\(name): the other end closed the connection")
    }

    /// The thread's loop; returns why it ended, `nil` when asked to stop.
    private func readLoop(_ received: (UnsafeRawBufferPointer) -> Void) -> DisconnectError? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let result: PollLoop.ReadResult
            do {
                result = try buffer.withUnsafeMutableBytes { raw throws(Errno) in
                    try loop.read(descriptor, into: raw)
                }
            } catch { return disconnected(error as? Errno) }
            switch result {
            case .stopped:
                return nil
            case .hangUp:
                return DisconnectError("\(name): disconnected", hint: "the other end hung up")
            case .bytes(let count):
                buffer.withUnsafeBytes { received(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            case .end:
                if datagrams { continue }
                return ended()
            }
        }
    }
}

/// How many fixes a reading thread keeps for a consumer that has fallen behind.
let readerBacklog = 4096

/// Runs `produce` on a thread of its own and delivers the fixes it yields, in order, so that
/// blocking reads never hold one of the few threads Swift's concurrency runs on: an
/// `.immediate` consumer is called on that thread, an `.awaited` one from the awaiting task.
///
/// When an awaited consumer falls more than ``readerBacklog`` fixes behind, the oldest are
/// dropped: counted, and logged with the count (the first drop, then at every power of two, and
/// the total when the thread ends). Cancelling the awaiting task calls `stop`, which must make
/// `produce` return soon. This returns only once `produce` has returned, and throws what it threw.
func deliverFromThread(
    named name: String, stop: @escaping @Sendable () -> Void, delivery: FixDelivery,
    logger: Logger = Logger(label: "OpenCoreLocation.reader"),
    produce: @escaping @Sendable (_ yield: (Fix) -> Void) throws -> Void
) async throws {
    let deliver: @Sendable (Fix) async -> Void
    switch delivery {
    case .awaited(let awaited):
        deliver = awaited
    case .immediate(let immediate):
        try await runOnThread(named: name, stop: stop) { try produce(immediate) }
        return
    }
    let (stream, continuation) = AsyncThrowingStream<Fix, any Error>.makeStream(
        bufferingPolicy: .bufferingNewest(readerBacklog))
    let finished = Finished()
    detachThread(named: name) {
        var dropped = 0
        defer {
            if dropped > 0 {
                logger.warning(
                    "\(name): \(counted(dropped, "fix was", "fixes were")) dropped in all: the consumer fell behind"
                )
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

/// Runs `work` on a thread of its own until it returns, and throws what it threw. Cancelling the
/// awaiting task calls `stop`, which must make `work` return soon.
private func runOnThread(
    named name: String, stop: @escaping @Sendable () -> Void, _ work: @escaping @Sendable () throws -> Void
) async throws {
    let finished = Finished()
    let failure = Mutex<(any Error)?>(nil)
    detachThread(named: name) {
        do {
            try work()
        } catch {
            failure.withLock { $0 = error }
        }
        finished.signal()
    }
    await withTaskCancellationHandler {
        await finished.wait()
    } onCancel: {
        stop()
    }
    if let error = failure.withLock({ $0 }) { throw error }
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
/// capture. When a stream has brought ``silenceThreshold`` bytes without a single sentence, it
/// says so once through `explain` (a wrong rate, or a receiver speaking a binary protocol),
/// rather than leave only `locationUnavailable` to guess from.
final class StreamDecoder: @unchecked Sendable {
    // Only the reading thread touches it, one chunk at a time.
    private var decoder: FixDecoder
    private var fixes: [Fix] = []
    /// When the epoch being decoded began to arrive.
    private var epochStart: UTCTimestamp?
    private let explain: ((_ bytes: Int, _ rejected: Int) -> Void)?
    private var explained = false

    static let silenceThreshold = 4096

    init(
        framing: NMEAFramer.Configuration = .init(),
        explain: ((_ bytes: Int, _ rejected: Int) -> Void)? = nil
    ) {
        decoder = FixDecoder(configuration: framing)
        self.explain = explain
    }

    /// The fixes completed by `chunk`, each stamped with its ``Fix/arrival``.
    ///
    /// An epoch's first byte is taken to arrive with the first chunk read after the previous
    /// epoch was handed out, or with the chunk that handed it out when that chunk ends inside a
    /// sentence (the next epoch began in it). A whole sentence of the next epoch in the same chunk
    /// as the last one's end moves the stamp to the next read: receivers pause between epochs, so
    /// a read rarely spans two.
    func decode(_ chunk: UnsafeRawBufferPointer) -> [Fix] {
        let now = UTCTimestamp.now
        if epochStart == nil { epochStart = now }
        fixes.removeAll(keepingCapacity: true)
        let start = epochStart
        decoder.decode(chunk) { fix in
            var stamped = fix
            stamped.arrival = start
            fixes.append(stamped)
        }
        if !fixes.isEmpty {
            let endsInSentence = chunk.last.map { $0 != UInt8(ascii: "\n") } ?? false
            epochStart = endsInSentence ? now : nil
        }
        if !explained, let explain {
            let framer = decoder.statistics.framer
            if framer.sentences > 0 {
                explained = true
            } else if framer.bytes >= Self.silenceThreshold {
                explained = true
                explain(framer.bytes, framer.rejected)
            }
        }
        return fixes
    }

    var statistics: DecodeStatistics { decoder.statistics }
}
