// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import NIOCore
import NIOPosix
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's listening socket and its connections, on SwiftNIO's event loops: a Unix socket
/// bound at a path, or one systemd passed already listening (socket activation).
public final class DaemonServer: Sendable {
    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
    }

    public let daemon: Daemon
    public let statistics = ServerStatistics()
    /// How many bytes of unsent lines a client may have before it is cut off.
    public let clientBuffer: Int
    /// How many connections each user may hold, and how long one may stay silent at first.
    public let limits: ConnectionLimits
    private let group: any EventLoopGroup

    public init(
        daemon: Daemon, group: any EventLoopGroup, clientBuffer: Int = 64 * 1024, limits: ConnectionLimits
    ) {
        self.daemon = daemon
        self.group = group
        self.clientBuffer = clientBuffer
        self.limits = limits
    }

    private var bootstrap: ServerBootstrap { bootstrap(tcp: false) }

    /// gpsd's TCP listener: the same connections, traced through the kernel's table of sockets.
    private var gpsdBootstrap: ServerBootstrap {
        bootstrap(tcp: true).serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    }

    private func bootstrap(tcp: Bool) -> ServerBootstrap {
        let (daemon, statistics, buffer, limits) = (daemon, statistics, clientBuffer, limits)
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
            .childChannelOption(.autoRead, value: false)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: buffer / 2, high: buffer))
            // The kernel's send buffer is part of the bound: without this, a stalled client
            // would hold the socket's default (about 200 KiB) before the daemon noticed.
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(buffer))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ClientHandler(daemon: daemon, statistics: statistics, limits: limits, tcp: tcp))
                }
            }
    }

    /// Listens at `path`, which any local user may connect to (what each may know is decided per
    /// connection). A stale socket file left by a daemon that died is replaced; a live one is
    /// an error, never taken over.
    public func listen(at path: String) async throws -> any Channel {
        let directory = FilePath(path).removingLastComponent().string
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o755])
            } catch {
                throw ServerError(
                    description: "cannot create \(directory) for the socket (\(errorWords(error))); "
                        + "pass --socket with a writable place")
            }
        }
        if FileManager.default.fileExists(atPath: path) {
            if Self.someoneListens(at: path) {
                throw ServerError(
                    description:
                        "another daemon listens on \(path) already; stop it, or pass another --socket")
            }
            unlink(path)
        }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
        } catch {
            throw ServerError(
                description: "cannot listen on \(path) (\(error)); pass --socket with a writable place")
        }
        chmod(path, 0o666)
        return channel
    }

    /// Serves gpsd's protocol on TCP at `host` and `port` (gpsd's is 2947): each client traced to
    /// its process through the kernel's table of sockets and decided on like any other; a client
    /// of another host is a network client, which gets nothing.
    public func listenGPSD(host: String, port: Int) async throws -> any Channel {
        do {
            return try await gpsdBootstrap.bind(host: host, port: port).get()
        } catch {
            throw ServerError(
                description: "cannot listen for gpsd's clients on \(host):\(port) (\(error)); "
                    + "is gpsd running there? stop it (systemctl stop gpsd.socket gpsd), or pass another --gpsd-listen"
            )
        }
    }

    /// Serves gpsd's protocol on a TCP socket systemd passed (`FileDescriptorName=gpsd`).
    public func adoptGPSD(descriptor: CInt) async throws -> any Channel {
        do {
            return try await gpsdBootstrap.withBoundSocket(descriptor).get()
        } catch {
            throw ServerError(
                description:
                    "cannot serve gpsd's protocol on the socket systemd passed (descriptor \(descriptor)): \(error)"
            )
        }
    }

    /// Serves on a socket systemd passed, already bound and listening.
    public func adopt(descriptor: CInt) async throws -> any Channel {
        do {
            return try await bootstrap.withBoundSocket(descriptor).get()
        } catch {
            throw ServerError(
                description: "cannot serve on the socket systemd passed (descriptor \(descriptor)): \(error)")
        }
    }

    /// Whether a process accepts connections at `path`.
    static func someoneListens(at path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return connected == 0
    }
}
