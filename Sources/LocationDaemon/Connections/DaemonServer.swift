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
    /// Which of the group's loops each connection joins.
    private let placement: LoopPlacement

    /// Connections join `group`'s first loop, which reads the receivers, until it holds
    /// `spreadAbove`; then the loop with the least to do (``LoopPlacement``).
    public init(
        daemon: Daemon, group: any EventLoopGroup, clientBuffer: Int = 64 * 1024, limits: ConnectionLimits,
        spreadAbove: Int = 100
    ) {
        self.daemon = daemon
        placement = LoopPlacement(group: group, spreadAbove: spreadAbove)
        self.clientBuffer = clientBuffer
        self.limits = limits
    }

    /// How connection `descriptor`, just accepted, joins an event loop, speaking one of
    /// `protocols` (chosen once, as ``ConnectionHandler`` says), its peer known as `peer` says.
    /// Its channel owns the descriptor from then on and closes it when it closes; its output
    /// writes there while the channel is open.
    ///
    /// Called on the listener's thread, which waits here until the loop has taken the connection:
    /// a client connecting and hanging up thousands of times a second gets one connection at a
    /// time onto the loop, as when the loop accepted them itself, and never a queue of them ahead
    /// of the others' updates.
    ///
    /// A TCP client is counted against its uid's limit here first, its socket's owner asked of the
    /// kernel by one system call: a user past the limit is refused on this thread (greeted and told
    /// why, in the listener's first protocol) and never costs a channel, a task or a trace.
    private func join(_ descriptor: CInt, protocols: [any ConnectionProtocol], tcp: Bool) {
        let (daemon, statistics, buffer, limits) = (daemon, statistics, clientBuffer, limits)
        var known = ConnectionHandler.Peer.unixSocket
        if tcp {
            guard let (client, server) = Self.endpoints(of: descriptor) else {
                // Gone before it could be looked at: nobody to tell.
                Glibc.close(descriptor)
                return
            }
            let owner = TCPPeer.askKernel(client: client, server: server)
            known = .tcp(client: client, server: server, kernelSaid: owner)
        }
        if case .tcp(let client, _, .socket(let uid, let inode)?) = known {
            if let refusal = ConnectionWorker.admit(.user(uid), limits: limits, daemon, statistics) {
                statistics.connected()
                let bytes = protocols[0].refusal(refusal, greeted: false)
                _ = bytes.withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
                Glibc.close(descriptor)
                statistics.disconnected()
                return
            }
            known = .tcpAdmitted(uid: uid, inode: inode, client: client)
        }
        let peer = known
        let (loop, release) = placement.place()
        let joined = ClientBootstrap(group: loop)
            .channelOption(.autoRead, value: false)
            .channelOption(.writeBufferWaterMark, value: .init(low: buffer / 2, high: buffer))
            // The kernel's send buffer is part of the bound: without this, a stalled client
            // would hold the socket's default (about 200 KiB) before the daemon noticed.
            .channelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(buffer))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(
                            hub: daemon, statistics: statistics, limits: limits, protocols: protocols,
                            peer: peer, descriptor: descriptor))
                }
            }
            .withConnectedSocket(descriptor)
        // A connection refused or closed at once fails here; its handler has said why.
        if let channel = try? joined.wait() {
            channel.closeFuture.whenComplete { _ in release() }
        } else {
            release()
        }
    }

    /// Accepts the connections of `descriptor`, a socket bound and listening, which the
    /// listener owns from here: each speaking one of `protocols`.
    /// `bound` is the socket file the daemon made for it, removed when it stops listening.
    private func serve(
        _ descriptor: CInt, protocols: [any ConnectionProtocol], bound: Listener.SocketFile? = nil
    ) throws -> Listener {
        let tcp = !Self.isUnixSocket(descriptor)
        let accepted: @Sendable (CInt) -> Void = { [self] in join($0, protocols: protocols, tcp: tcp) }
        let name = protocols.map(\.name).joined(separator: "+")
        do {
            return try Listener(
                descriptor: descriptor, name: "\(name) accept", bound: bound, log: daemon.log,
                accepted: accepted)
        } catch {
            Glibc.close(descriptor)
            throw ServerError(description: "cannot start accepting connections: \(error)")
        }
    }

    /// A new socket bound at `address` and listening, or the reason it could not be.
    private static func listeningSocket(
        _ address: SocketAddress, reuseAddress: Bool
    ) -> Result<CInt, Errno> {
        let descriptor = closeOnExecSocket(
            domain: CInt(address.protocol.rawValue), type: SocketType.stream)
        guard descriptor >= 0 else { return .failure(Errno(rawValue: errno)) }
        if reuseAddress {
            var one: CInt = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
        }
        let bound = address.withSockAddr { bind(descriptor, $0, socklen_t($1)) }
        guard bound == 0, Glibc.listen(descriptor, 512) == 0 else {
            let code = Errno(rawValue: errno)
            Glibc.close(descriptor)
            return .failure(code)
        }
        return .success(descriptor)
    }

    /// A connected TCP socket's two ends: the client's (the peer) and the server's (this one).
    private static func endpoints(of descriptor: CInt) -> (
        client: TCPPeer.Endpoint, server: TCPPeer.Endpoint
    )? {
        func endpoint(_ name: (CInt, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> CInt)
            -> TCPPeer.Endpoint?
        {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { name(descriptor, $0, &length) }
            }
            guard named == 0 else { return nil }
            switch Int32(storage.ss_family) {
            case AF_INET:
                return withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        TCPPeer.Endpoint(
                            address: withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) },
                            port: UInt16(bigEndian: v4.pointee.sin_port))
                    }
                }
            case AF_INET6:
                return withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        TCPPeer.Endpoint(
                            address: withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) },
                            port: UInt16(bigEndian: v6.pointee.sin6_port))
                    }
                }
            default:
                return nil
            }
        }
        guard let client = endpoint(getpeername), let server = endpoint(getsockname) else { return nil }
        return (client, server)
    }

    /// Whether `descriptor` is a Unix socket (its peer named by the kernel), not a TCP one.
    private static func isUnixSocket(_ descriptor: CInt) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return named == 0 && address.ss_family == sa_family_t(AF_UNIX)
    }

    /// Listens at `path`, which any local user may connect to (what each may know is decided per
    /// connection), each connection speaking one of `protocols`. A stale socket file left by a
    /// daemon that died is replaced; a live one is an error, never taken over. The file is removed
    /// when the daemon stops listening, so that a client is told at once that nobody serves there.
    func listen(at path: String, speaking protocols: [any ConnectionProtocol]) throws -> Listener {
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
        let bound: Result<CInt, Errno>
        do {
            bound = Self.listeningSocket(try SocketAddress(unixDomainSocketPath: path), reuseAddress: false)
        } catch {
            throw ServerError(
                description: "cannot listen on \(path) (\(error)); pass --socket with a shorter path")
        }
        switch bound {
        case .success(let descriptor):
            chmod(path, 0o666)
            return try serve(descriptor, protocols: protocols, bound: Listener.SocketFile(path: path))
        case .failure(let error):
            throw ServerError(
                description: "cannot listen on \(path) (\(error)); pass --socket with a writable place")
        }
    }

    /// Serves `protocols` on TCP at `host` and `port`: each client traced to its process through
    /// the kernel's table of sockets and decided on like any other; a client of another host is a
    /// network client, which gets nothing unless its address block was allowed. `fix` says what
    /// to do when the port is taken.
    func listen(
        host: String, port: Int, speaking protocols: [any ConnectionProtocol], fix: String
    ) throws -> Listener {
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw ServerError(description: "cannot listen on \(host):\(port) (\(error)); \(fix)")
        }
        switch Self.listeningSocket(address, reuseAddress: true) {
        case .success(let descriptor): return try serve(descriptor, protocols: protocols)
        case .failure(let error):
            throw ServerError(description: "cannot listen on \(host):\(port) (\(error)); \(fix)")
        }
    }

    /// Serves `protocols` on a socket systemd passed, already bound and listening (a Unix socket
    /// or a TCP one).
    func adopt(descriptor: CInt, speaking protocols: [any ConnectionProtocol]) throws -> Listener {
        func option(_ name: CInt) -> CInt? {
            var value: CInt = 0
            var length = socklen_t(MemoryLayout<CInt>.size)
            return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard option(SO_TYPE) == SocketType.stream, option(SO_ACCEPTCONN) ?? 0 != 0 else {
            throw ServerError(
                description:
                    "the socket systemd passed (descriptor \(descriptor)) is not a listening stream socket; "
                    + "check ListenStream= in the socket unit")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return try serve(descriptor, protocols: protocols)
    }

    /// Whether a process accepts connections at `path`.
    static func someoneListens(at path: String) -> Bool {
        guard let address = try? SocketAddress(unixDomainSocketPath: path) else { return false }
        let fd = closeOnExecSocket(domain: AF_UNIX, type: SocketType.stream)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return address.withSockAddr { connect(fd, $0, socklen_t($1)) } == 0
    }
}
