// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What systemd gives a service and expects of it: sockets passed already listening
/// (`sd_listen_fds(3)`) and state notifications (`sd_notify(3)`), both read from the environment,
/// so that the daemon also runs as is without systemd.
public enum Systemd {
    /// The first descriptor systemd passes.
    static let firstListenDescriptor: CInt = 3

    /// The listening sockets passed to this process: `$LISTEN_FDS` descriptors from 3, when
    /// `$LISTEN_PID` is this process. The variables are removed so that children do not inherit them.
    public static func listenDescriptors(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> [CInt]
    {
        listenSockets(environment: environment).map(\.descriptor)
    }

    /// The sockets systemd passed, each with the name its unit gave it (`FileDescriptorName=`,
    /// from `$LISTEN_FDNAMES`; "unknown" when it gave none, as systemd says).
    public static func listenSockets(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> [(descriptor: CInt, name: String)]
    {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap({ Int32($0) }), count > 0, count < 64
        else { return [] }
        let names = (environment["LISTEN_FDNAMES"] ?? "").split(
            separator: ":", omittingEmptySubsequences: false)
        return (0..<count).map { index in
            let name = Int(index) < names.count ? String(names[Int(index)]) : "unknown"
            return (firstListenDescriptor + index, name.isEmpty ? "unknown" : name)
        }
    }

    /// Sends `state` ("READY=1", "STOPPING=1", "WATCHDOG=1", "STATUS=…") to the socket named by
    /// `$NOTIFY_SOCKET`; does nothing without one. Returns a reason when sending failed.
    @discardableResult
    public static func notify(
        _ state: String, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> String?
    {
        guard var path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        let abstract = path.hasPrefix("@")
        if abstract { path.removeFirst() }
        let fd = closeOnExecSocket(domain: AF_UNIX, type: SocketType.datagram)
        guard fd >= 0 else { return "socket: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        guard let address = UnixSocketAddress(path: path, abstract: abstract) else {
            return path.isEmpty ? "NOTIFY_SOCKET names no socket" : "NOTIFY_SOCKET is too long"
        }
        let sent = state.withCString { text in
            address.withSockAddr { sendto(fd, text, strlen(text), Int32(MSG_NOSIGNAL), $0, $1) }
        }
        return sent < 0 ? "sendto \(path): \(String(cString: strerror(errno)))" : nil
    }

    /// How often to ping the watchdog: half of `$WATCHDOG_USEC`, when it is meant for this process.
    public static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Duration?
    {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"].flatMap({ Int32($0) }), pid != getpid() { return nil }
        return .microseconds(microseconds / 2)
    }
}
