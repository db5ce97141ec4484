// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A pseudo-terminal pair: the test writes to the master as a receiver would; the code under
/// test opens the slave path as a serial port. Closing the master is unplugging the receiver.
///
/// Threads write while a test closes: every use of the master's descriptor holds it under a lock,
/// so that none reaches a descriptor closed meanwhile (or its number, reused by another test).
public final class PseudoTerminal: Sendable {
    private let descriptor: Mutex<Int32>
    public let slavePath: String

    /// The master's descriptor; -1 once closed.
    public var master: Int32 { descriptor.withLock { $0 } }

    /// Runs `body` with the master's descriptor, which stays open meanwhile; `nil` once closed.
    private func withMaster<R: Sendable>(_ body: (Int32) -> R) -> R? {
        descriptor.withLock { fd in fd >= 0 ? body(fd) : nil }
    }

    public init() throws {
        // posix_openpt, unlockpt and ptsname, as Linux implements them. The requests are
        // _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int), which Swift cannot import.
        let TIOCSPTLCK: UInt = 0x4004_5431
        let TIOCGPTN: UInt = 0x8004_5430
        let fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard fd >= 0, ioctl(fd, TIOCSPTLCK, &unlock) == 0, ioctl(fd, TIOCGPTN, &number) == 0
        else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        descriptor = Mutex(fd)
        slavePath = "/dev/pts/\(number)"
        // A UART does not echo: make the line raw before anyone writes, as a receiver's port is.
        let slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        if slave >= 0 {
            var settings = termios()
            tcgetattr(slave, &settings)
            cfmakeraw(&settings)
            tcsetattr(slave, TCSANOW, &settings)
            Glibc.close(slave)
        }
    }

    /// Writes `bytes` paced as a UART at `baud` (10 bits per byte) on a thread of its own, so
    /// that the waiting between slices holds none of the threads Swift's concurrency runs on.
    public func send(_ bytes: [UInt8], baud: Int) async {
        await onAThreadOfItsOwn { [self] in write(bytes, baud: baud) }
    }

    /// Writes `bytes`, paced as a UART at `baud` (10 bits per byte) in 10 ms slices when given.
    public func write(_ bytes: [UInt8], baud: Int? = nil) {
        guard let baud else {
            writeAll(bytes[...])
            return
        }
        let perSlice = max(1, baud / 10 / 100)
        var index = 0
        let start = ContinuousClock.now
        var slice = 0
        while index < bytes.count {
            let end = min(bytes.count, index + perSlice)
            writeAll(bytes[index..<end])
            index = end
            slice += 1
            sleep(until: start.advanced(by: .milliseconds(10 * slice)))
        }
    }

    private func sleep(until due: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        guard due > now else { return }
        let wait = due - now
        usleep(UInt32(wait.components.seconds * 1_000_000 + wait.components.attoseconds / 1_000_000_000_000))
    }

    /// Writes as a UART does: never blocking for long. When nobody reads the slave side for a
    /// while (the port is closed), what does not fit is lost, as it would be on the wire.
    private func writeAll(_ bytes: ArraySlice<UInt8>) {
        var offset = bytes.startIndex
        var waited = 0
        while offset < bytes.endIndex {
            let start = offset
            guard
                let (count, error) = withMaster({ fd in
                    let count = bytes[start...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                    return (count, errno)
                })
            else { return }
            if count > 0 {
                offset += count
                waited = 0
            } else if error == EAGAIN {
                // Full: wait for the reader to make room, 200 ms at most without progress, then
                // the rest is lost. While nobody holds the slave open, poll says POLLHUP at once
                // however full it is: the wait is then a sleep, never a loop around poll (which
                // held a processor for as long as the port stayed closed).
                guard waited < 200, let fd = withMaster({ $0 }) else { return }
                var pending = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&pending, 1, 10)
                if ready > 0 && pending.revents & Int16(POLLHUP) != 0 { usleep(10_000) }
                waited += 10
            } else if error != EINTR {
                return
            }
        }
    }

    /// What the code under test wrote to the port, up to the first line end or `timeout`.
    public func readLine(timeout milliseconds: Int32 = 5000) -> String {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.last != 10, let fd = withMaster({ $0 }) {
            var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pending, 1, milliseconds) > 0, withMaster({ Glibc.read($0, &byte, 1) }) == 1 else {
                break
            }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Runs `arguments` (a program and its arguments) as the leader of a session whose
    /// controlling terminal is this one (`setsid --ctty`), its standard streams the terminal: its
    /// `/dev/tty` is what the test reads and types into. `environment` adds to the test's own.
    public func startSession(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        guard let slave = FileHandle(forUpdatingAtPath: slavePath) else {
            throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: slavePath])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--ctty", "--wait"] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        (process.standardInput, process.standardOutput, process.standardError) = (slave, slave, slave)
        try process.run()
        ChildReaper.register(process.processIdentifier)
        return process
    }

    /// What programs wrote to the terminal until `condition` holds or 20 seconds pass, napping
    /// between looks rather than holding one of the concurrency pool's threads.
    public func screen(until condition: (String) -> Bool) async -> String {
        var text = ""
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(text) && ContinuousClock.now < deadline {
            let more = readLine(timeout: 0)
            if more.isEmpty { try? await Task.sleep(for: .milliseconds(20)) }
            text += more
        }
        return text
    }

    /// Ends the program that leads the terminal's session: SIGTERM to the terminal's foreground
    /// process group, then SIGKILL if it has not ended within five seconds. (`setsid` forks when it
    /// is started as a process group leader, so the program is not `process` itself.) The group
    /// is the terminal's now, so its number is not a group that has ended.
    public func endSession(of process: Process) async {
        let group = tcgetpgrp(master)
        if group > 0 { kill(-group, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(5)
        while group > 0 && kill(-group, 0) == 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if group > 0 && kill(-group, 0) == 0 { kill(-group, SIGKILL) }
        while process.isRunning && ContinuousClock.now < deadline + .seconds(5) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The rate the port is set to by whoever opened the slave side, in bits per second; `nil`
    /// when it is not a standard rate. A UART at another rate than the receiver's reads noise.
    public var portRate: Int? {
        let speed = withMaster { fd -> speed_t? in
            var settings = termios()
            return tcgetattr(fd, &settings) == 0 ? cfgetispeed(&settings) : nil
        }
        guard let speed = speed ?? nil else { return nil }
        let rates: [(speed_t, Int)] = [
            (speed_t(B4800), 4800), (speed_t(B9600), 9600), (speed_t(B19200), 19200),
            (speed_t(B38400), 38400), (speed_t(B57600), 57600), (speed_t(B115200), 115200),
            (speed_t(B230400), 230400), (speed_t(B460800), 460800), (speed_t(B921600), 921600),
        ]
        return rates.first { $0.0 == speed }?.1
    }

    /// Plays a receiver that repeats `bytes` at `baud` until stopped, on a thread of its own:
    /// while the port is set to another rate it sends noise, as a real UART mismatch reads.
    public func transmitContinuously(_ bytes: [UInt8], baud: Int) -> Transmitter {
        let transmitter = Transmitter()
        let thread = Thread { [self] in
            var generator = SystemRandomNumberGenerator()
            // 10 ms of line time per slice; the port's rate is checked for every slice, so that
            // bytes in flight when the rate changes arrive garbled, as on a real line.
            let perSlice = max(1, baud / 10 / 100)
            let start = ContinuousClock.now
            var slice = 0
            var index = 0
            while !transmitter.stopped.load(ordering: .relaxed) && master >= 0 {
                let end = min(bytes.count, index + perSlice)
                if portRate == baud {
                    writeAll(bytes[index..<end])
                } else {
                    writeAll((index..<end).map { _ in UInt8.random(in: 0...255, using: &generator) }[...])
                }
                index = end == bytes.count ? 0 : end
                slice += 1
                sleep(until: start.advanced(by: .milliseconds(10 * slice)))
            }
            transmitter.finished.store(true, ordering: .releasing)
        }
        thread.start()
        return transmitter
    }

    /// Stops a receiver played by ``transmitContinuously(_:baud:)``.
    public final class Transmitter: Sendable {
        let stopped = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)

        /// Stops sending and waits until the last write is done.
        public func stop() async {
            stopped.store(true, ordering: .relaxed)
            _ = await waitUntil(within: 10) { finished.load(ordering: .acquiring) }
        }
    }

    /// Unplugs the receiver.
    public func close() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            Glibc.close(fd)
            fd = -1
        }
    }

    deinit { close() }
}
