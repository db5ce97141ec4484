// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A receiver's pulse per second, wired to its serial port's DCD line (as most GNSS timing
/// receivers and USB adapters with a PPS pin do): the system clock at each rising edge, taken by a
/// thread that waits in `TIOCMIWAIT` for the line to change.
///
/// A port that does not report DCD changes (a pseudo-terminal, most USB adapters without the pin)
/// gives no pulses, and the serial source says so when it connects; nothing else changes. The
/// pulses of each device go to whoever listens for that device's path (``pulses(device:)``): the
/// daemon's clock feed and its gpsd clients with `pps`.
public enum PulsePerSecond {
    /// One pulse: the device and the system clock at the line's rising edge.
    public struct Pulse: Sendable, Hashable {
        public var device: String
        public var clock: UTCTimestamp
    }

    private struct Listeners {
        var next = 0
        var byID: [Int: (device: String, continuation: AsyncStream<Pulse>.Continuation)] = [:]
    }

    private static let listeners = Mutex(Listeners())

    /// The pulses of the serial device at `path` from now on; the stream ends when the task
    /// iterating it is cancelled.
    public static func pulses(device path: String) -> AsyncStream<Pulse> {
        let (stream, continuation) = AsyncStream<Pulse>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = listeners.withLock { listeners in
            listeners.next += 1
            listeners.byID[listeners.next] = (path, continuation)
            return listeners.next
        }
        continuation.onTermination = { _ in _ = listeners.withLock { $0.byID.removeValue(forKey: id) } }
        return stream
    }

    static func publish(_ pulse: Pulse) {
        let targets = listeners.withLock {
            $0.byID.values.filter { $0.device == pulse.device }.map(\.continuation)
        }
        for target in targets { target.yield(pulse) }
    }

    /// A thread waiting for DCD's edges on a descriptor of its own (a duplicate of the port's).
    final class Watcher: Sendable {
        /// The signal that interrupts the wait when the watcher stops (its handler does nothing;
        /// it is installed once, without `SA_RESTART`, so that the wait returns `EINTR`).
        static let wakeSignal = __libc_current_sigrtmin() + 7
        private static let installed: Void = {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(wakeSignal, &action, nil)
        }()

        /// Whether the port's driver counts changes of its modem lines (`TIOCGICOUNT`), as every
        /// driver that can wait for them does: a UART does, a pseudo-terminal and most USB
        /// adapters without a DCD pin do not.
        static func reportsModemLines(_ port: Int32) -> Bool {
            var counts = [Int32](repeating: 0, count: 20)
            return ioctl(port, UInt(TIOCGICOUNT), &counts) == 0
        }

        private let descriptor: Int32
        private let device: String
        private let stopped = Atomic<Bool>(false)
        private let thread = Mutex<pthread_t?>(nil)

        /// Starts watching `port` (duplicated: the watcher closes its own copy when it stops);
        /// `log` hears once why there are no pulses, when the port cannot give them.
        init?(port: Int32, device: String, log: @escaping @Sendable (String) -> Void) {
            _ = Self.installed
            descriptor = fcntl(port, F_DUPFD_CLOEXEC, 0)
            guard descriptor >= 0 else { return nil }
            self.device = device
            detachThread(named: "pps \(device)") { [self] in
                thread.withLock { $0 = pthread_self() }
                var blocked = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, Self.wakeSignal)
                pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
                self.run(log: log)
                thread.withLock { $0 = nil }
                close(descriptor)
            }
        }

        /// Whether the thread still watches.
        var isWatching: Bool { thread.withLock { $0 != nil } }

        /// Stops the thread. It is woken by the signal if it waits, again every 20 ms until it has
        /// ended (a signal that came just before it began to wait would leave it waiting), from a
        /// thread of its own so that the caller does not wait. The signal is sent while the thread
        /// cannot end, so never to a thread that is gone.
        func stop() {
            stopped.store(true, ordering: .relaxed)
            detachThread(named: "pps stop") { [self] in
                for _ in 0..<500 {
                    let running = thread.withLock { thread -> Bool in
                        guard let thread else { return false }
                        pthread_kill(thread, Self.wakeSignal)
                        return true
                    }
                    if !running { return }
                    usleep(20_000)
                }
            }
        }

        private func run(log: @Sendable (String) -> Void) {
            var lines: Int32 = 0
            var wasSet = ioctl(descriptor, UInt(TIOCMGET), &lines) == 0 && lines & TIOCM_CD != 0
            while !stopped.load(ordering: .relaxed) {
                if ioctl(descriptor, UInt(TIOCMIWAIT), CInt(TIOCM_CD)) != 0 {
                    let error = errno
                    if error == EINTR { continue }
                    if error == ENOTTY || error == EINVAL || error == ENOSYS || error == 515 {  // ENOIOCTLCMD
                        log(
                            "serial:\(device): no pulse per second: the port does not report changes of its DCD line "
                                + "(\(String(cString: strerror(error)))); TOFF and chrony get each epoch's arrival "
                                + "instead")
                    }
                    return  // EIO: the device hung up; the source reopens it and a new watcher starts
                }
                let clock = UTCTimestamp.now
                guard ioctl(descriptor, UInt(TIOCMGET), &lines) == 0 else { return }
                let isSet = lines & TIOCM_CD != 0
                if isSet && !wasSet { PulsePerSecond.publish(Pulse(device: device, clock: clock)) }
                wasSet = isSet
            }
        }
    }
}
