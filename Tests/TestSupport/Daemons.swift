// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The programs the live-source tests run against (gpsd, gpsfake, socat): where they are, and
/// free ports to run them on.
public enum Daemons {
    /// The full path of `program` from the usual system directories, or `nil` when it is not
    /// installed (the README's test command installs it).
    public static func path(of program: String) -> String? {
        for directory in ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin", "/bin"] {
            let candidate = directory + "/" + program
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// `127.0.0.1:port`; port 0 lets the system choose when binding.
    public static func loopback(port: Int = 0) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return address
    }

    /// A TCP (or, for `datagram`, UDP) port on the loopback interface that nothing uses now.
    public static func freePort(datagram: Bool = false) -> Int {
        let fd = socket(AF_INET, datagram ? SocketType.datagram : SocketType.stream, 0)
        defer { close(fd) }
        var address = loopback()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(fd, $0, length)
                return getsockname(fd, $0, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on `port` of the loopback interface.
    public static func isListening(port: Int) -> Bool {
        let fd = socket(AF_INET, SocketType.stream, 0)
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Waits (bounded) until something listens on `port`; says whether it did.
    public static func waitUntilListening(port: Int, within seconds: Double = 10) async -> Bool {
        await waitUntil(within: seconds, every: .milliseconds(20)) { isListening(port: port) }
    }

    /// A real gpsd reading `device`, listening on `port` of the loopback interface, in the
    /// foreground so that it can be stopped like a crash or a restart would stop it.
    public static func gpsd(device: String, port: Int) throws -> RunningProcess {
        guard let gpsd = path(of: "gpsd") else { throw Missing(program: "gpsd", package: "gpsd") }
        return try RunningProcess(
            ["-N", "-n", "-b", "-s", "115200", "-S", String(port), device],
            executable: URL(fileURLWithPath: gpsd))
    }

    /// Stops every gpsd serving `port`: gpsfake, stopped, can leave its gpsd running.
    public static func stopGPSD(port: Int) async {
        let marker = "\0-S\0\(port)\0"
        for signal in [SIGTERM, SIGKILL] {
            var found = false
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry),
                    let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                    let arguments = String(data: data, encoding: .utf8),
                    arguments.hasSuffix("\0"), arguments.contains("gpsd\0"), arguments.contains(marker)
                else { continue }
                found = true
                kill(pid, signal)
            }
            guard found else { return }
            try? await Task.sleep(for: .milliseconds(300))
        }
    }

    /// gpsfake playing `log` once to a private gpsd on `port`, `cycle` seconds per sentence. It
    /// waits for the first client before it starts.
    public static func gpsfake(log: String, port: Int, cycle: Double) throws -> RunningProcess {
        guard let gpsfake = path(of: "gpsfake") else {
            throw Missing(program: "gpsfake", package: "gpsd-clients and python3-gps")
        }
        return try RunningProcess(
            ["-1", "-q", "-P", String(port), "-c", String(cycle), log],
            executable: URL(fileURLWithPath: gpsfake))
    }

    /// A program the test needs is not installed.
    public struct Missing: Error, CustomStringConvertible {
        public var program: String
        public var package: String
        public init(program: String, package: String) {
            self.program = program
            self.package = package
        }
        public var description: String {
            "\(program) is not installed; install the Debian package \(package) (tools/test does)"
        }
    }
}

extension Daemons {
    /// A pair of pseudo-terminals joined by socat, as a USB receiver's port appears to a program:
    /// `device` is the link the program opens, `feed` the link the test writes the receiver's
    /// output to. Stopping socat removes both links (the receiver is unplugged).
    public static func socatPair(in directory: String) async throws -> (
        socat: RunningProcess, device: String, feed: String
    ) {
        guard let socat = path(of: "socat") else { throw Missing(program: "socat", package: "socat") }
        let device = directory + "/gps"
        let feed = directory + "/feed"
        let process = try RunningProcess(
            ["pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feed)"],
            executable: URL(fileURLWithPath: socat))
        _ = await waitUntil(within: 10) { access(device, F_OK) == 0 && access(feed, F_OK) == 0 }
        return (process, device, feed)
    }
}

/// Writes a receiver's output into a device path line by line, `interval` apart, over and over,
/// on a thread of its own until stopped; when the path goes away (unplugged) it keeps trying to
/// open it again, so writing resumes when the device comes back.
public final class LineFeeder: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let written = Atomic<Int>(0)

    public init(path: String, bytes: [UInt8], interval: Duration) {
        var split: [[UInt8]] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 10 {
            split.append(Array(bytes[start...index]))
            start = index + 1
        }
        let lines = split
        let pause = UInt32(
            interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        Thread { [self] in
            var fd: Int32 = -1
            var next = 0
            while !stopped.load(ordering: .relaxed) {
                if fd < 0 {
                    fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
                    if fd < 0 {
                        usleep(20_000)
                        continue
                    }
                }
                let line = lines[next]
                let count = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno != EAGAIN {
                    close(fd)
                    fd = -1
                    continue
                }
                written.add(1, ordering: .relaxed)
                next = (next + 1) % lines.count
                usleep(pause)
            }
            if fd >= 0 { close(fd) }
            finished.store(true, ordering: .releasing)
        }.start()
    }

    /// Lines written so far.
    public var lines: Int { written.load(ordering: .relaxed) }

    public func stop() async {
        stopped.store(true, ordering: .relaxed)
        _ = await waitUntil(within: 10) { finished.load(ordering: .acquiring) }
    }
}
