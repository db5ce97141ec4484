// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import LocationEngine
import LocationWire
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connected socket to gpslocd, in lines: blocking writes of whole requests, and reads cut at
/// the protocol's bound for events.
package struct DaemonConnection: Sendable {
    package struct ConnectError: Error, CustomStringConvertible {
        package var description: String
    }

    package let descriptor: FileDescriptor

    /// Connects to the daemon's socket at `path`.
    package static func open(path: String) throws(ConnectError) -> DaemonConnection {
        let fd = closeOnExecSocket(domain: AF_UNIX, type: SocketType.stream)
        guard fd >= 0 else { throw ConnectError(description: "socket: \(Errno(rawValue: errno))") }
        let descriptor = FileDescriptor(rawValue: fd)
        guard let address = UnixSocketAddress(path: path) else {
            try? descriptor.close()
            throw ConnectError(
                description: path.isEmpty
                    ? "no socket path was given" : "the socket path \(path) is too long (107 bytes at most)")
        }
        let connected = address.withSockAddr { connect(fd, $0, $1) }
        guard connected == 0 else {
            let code = Errno(rawValue: errno)
            try? descriptor.close()
            let hint =
                code == .connectionRefused || code == .noSuchFileOrDirectory
                ? "; is gpslocd running? (systemctl status gpslocd)"
                : code == .permissionDenied ? "; the socket's permissions do not let this user connect" : ""
            throw ConnectError(description: "cannot connect to \(path): \(code)\(hint)")
        }
        return DaemonConnection(descriptor: descriptor)
    }

    /// Writes a whole line; `false` when the daemon is gone.
    package func send(_ line: [UInt8]) -> Bool {
        do {
            _ = try line.withUnsafeBytes { try descriptor.writeAll($0) }
            return true
        } catch {
            return false
        }
    }

    /// Waits up to `timeout` milliseconds for the next line, reading byte-wise so that nothing
    /// after it is taken from the socket; `nil` on timeout, an error when the daemon closed the
    /// connection. For handshakes and one-shot commands: a client's events are read by its reader.
    package func readLine(timeout: Int32, splitter: inout LineSplitter) throws(ConnectError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(timeout))
        while clock.now < deadline {
            var entry = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 100)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { (try? descriptor.read(into: $0)) ?? 0 }
            guard count > 0 else { throw ConnectError(description: "gpslocd closed the connection") }
            guard let lines = try? splitter.append(buffer[..<count]) else {
                throw ConnectError(
                    description: "gpslocd sent a line longer than \(splitter.maximumLength) bytes")
            }
            if let line = lines.first { return line }
        }
        return nil
    }

    package func close() { try? descriptor.close() }

    /// Connects, says hello, sends `request` and returns the daemon's reply to it: for a
    /// command that asks one thing (`gpsloc auth`).
    package static func call(path: String, _ request: WireRequest) throws(ConnectError) -> WireEvent {
        let connection = try open(path: path)
        defer { connection.close() }
        var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        guard connection.send(WireRequest.hello(version: WireProtocol.version, receiver: nil).encoded()),
            let hello = try connection.readLine(timeout: 5000, splitter: &splitter)
        else { throw ConnectError(description: "gpslocd at \(path) did not answer") }
        if case .error(_, let message)? = try? WireEvent.parse(hello) {
            throw ConnectError(description: message)
        }
        guard connection.send(request.encoded(id: 1)) else {
            throw ConnectError(description: "gpslocd at \(path) closed the connection")
        }
        while let line = try connection.readLine(timeout: 5000, splitter: &splitter) {
            guard let event = try? WireEvent.parse(line) else { continue }
            switch event {
            case .ok(let id, _), .error(let id, _), .decisions(let id, _):
                if id == 1 || id == nil { return event }
            default: continue
            }
        }
        throw ConnectError(description: "gpslocd at \(path) did not answer the request")
    }
}
