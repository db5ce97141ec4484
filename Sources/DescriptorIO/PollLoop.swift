// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Waits for a descriptor to become readable on the calling thread, and can be woken from any
/// other thread to stop: the one way this package waits for bytes (serial ports, sockets, the
/// authorization store's inotify descriptor, the terminal a prompt reads).
///
/// A wait blocks in `poll(2)` on the descriptor and on a pipe of its own; ``stop()`` writes to
/// the pipe, so a stopped loop returns at once and never needs a timeout to notice. Interrupted
/// calls (`EINTR`) are retried here and nowhere else.
public final class PollLoop: Sendable {
    /// Why a wait ended.
    public enum Readiness: Sendable, Hashable {
        /// There is something to read (or an end of file to read).
        case readable
        /// The other end hung up or the descriptor failed, with nothing left to read.
        case hangUp
        /// ``PollLoop/stop()`` was called.
        case stopped
    }

    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor
    /// Whether the pipe is still open; closed once, by ``close()``.
    private let open = Mutex(true)

    public init() throws(Errno) {
        let ends: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do { ends = try FileDescriptor.pipe() } catch { throw error as? Errno ?? .ioError }
        for end in [ends.readEnd, ends.writeEnd] {
            _ = fcntl(end.rawValue, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end.rawValue, F_SETFL, O_NONBLOCK)
        }
        wakeRead = ends.readEnd
        wakeWrite = ends.writeEnd
    }

    deinit { close() }

    /// Wakes every wait, now and later, so that it returns ``Readiness/stopped``.
    public func stop() {
        open.withLock { open in
            guard open else { return }
            // A full pipe is already a wake-up: a failed write changes nothing.
            _ = try? wakeWrite.writeAll(CollectionOfOne(UInt8(1)))
        }
    }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool {
        open.withLock { open in
            guard open else { return true }
            var fds = [pollfd(fd: wakeRead.rawValue, events: Int16(POLLIN), revents: 0)]
            return Glibc.poll(&fds, 1, 0) > 0
        }
    }

    /// Blocks until `descriptor` is readable, hangs up, or the loop is stopped.
    public func wait(for descriptor: FileDescriptor) throws(Errno) -> Readiness {
        // Without a deadline the wait ends only by one of the three.
        try wait(for: descriptor, until: nil)!
    }

    /// Waits until `deadline` or until the loop is stopped, whichever comes first: `true` when
    /// it was stopped.
    public func pause(until deadline: ContinuousClock.Instant) -> Bool {
        // The wait on no descriptor (poll(2) passes over a negative one): only the pipe can end it.
        (try? wait(for: FileDescriptor(rawValue: -1), until: deadline)) == .stopped
    }

    /// As ``wait(for:)``, giving up at `deadline`: `nil` when it passed first.
    private func wait(for descriptor: FileDescriptor, until deadline: ContinuousClock.Instant?) throws(Errno)
        -> Readiness?
    {
        var fds = [
            pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead.rawValue, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - ContinuousClock.now
                if left <= .zero { return nil }
                timeout = Int32(min(left / .milliseconds(1), Double(Int32.max)).rounded(.up))
            }
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = Glibc.poll(&fds, 2, timeout)
            if ready < 0 {
                let code = Errno(rawValue: errno)
                if code == .interrupted { continue }
                throw code
            }
            if ready == 0 { continue }
            if fds[1].revents != 0 { return .stopped }
            let events = Int32(fds[0].revents)
            if events & Int32(POLLIN) != 0 { return .readable }
            if events & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 { return .hangUp }
        }
    }

    /// What a ``read(_:into:)`` got.
    public enum ReadResult: Sendable, Hashable {
        /// This many bytes, at the start of the buffer.
        case bytes(Int)
        /// The end of the file or stream (an empty datagram, for a datagram socket).
        case end
        /// The other end hung up or the descriptor failed, with nothing left to read.
        case hangUp
        /// ``PollLoop/stop()`` was called.
        case stopped
    }

    /// Waits until `descriptor` is readable, then reads what is there into `buffer`.
    public func read(_ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(Errno)
        -> ReadResult
    {
        // Without a deadline the read ends only by one of the results.
        try read(descriptor, into: buffer, until: nil)!
    }

    /// As ``read(_:into:)``, giving up at `deadline`: `nil` when it passed before anything came.
    public func read(
        _ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer,
        until deadline: ContinuousClock.Instant?
    ) throws(Errno) -> ReadResult? {
        while true {
            guard let readiness = try wait(for: descriptor, until: deadline) else { return nil }
            switch readiness {
            case .stopped: return .stopped
            case .hangUp: return .hangUp
            case .readable:
                do {
                    let count = try descriptor.read(into: buffer)
                    return count > 0 ? .bytes(count) : .end
                } catch let error as Errno {
                    // Readiness can be stale (another reader, a spurious wake-up): wait again.
                    if error == .wouldBlock { continue }
                    throw error
                } catch {
                    throw .ioError
                }
            }
        }
    }

    /// Closes the wake pipe; later waits report ``Readiness/stopped`` at once.
    public func close() {
        let wasOpen = open.withLock { open -> Bool in
            defer { open = false }
            return open
        }
        guard wasOpen else { return }
        try? wakeRead.close()
        try? wakeWrite.close()
    }
}
