// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import LocationWire
import Locking
import NIOCore
import NIOPosix
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One client connection on the daemon's event loop: who it is by the kernel's word (before a
/// byte is read), its limits, its lines cut at the protocol's bound and handed to its
/// ``ConnectionWorker``, which serves them in order off the loop. A client that stops reading is
/// cut off when its unsent lines pass the buffer's bound; nothing it does reaches another
/// connection.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let daemon: Daemon
    private let statistics: ServerStatistics
    private let limits: ConnectionLimits
    private var splitter = LineSplitter(maximumLength: WireProtocol.maximumRequestLength)
    private var worker: ConnectionWorker?
    private var sawFirstByte = false
    /// The connection speaks gpsd's protocol: its first byte was `?`.
    private var speaksGPSD = false
    private var gpsdPending: [UInt8] = []
    /// The uid this connection is counted against, once admitted.
    private var admitted: UInt32?

    /// Whether the connection came to gpsd's TCP listener: gpsd's protocol from the start, and
    /// the peer traced through the kernel's table of sockets.
    private let tcp: Bool
    /// The connection's socket, which its channel owns: where its output writes while it is open.
    private let descriptor: CInt

    init(daemon: Daemon, statistics: ServerStatistics, limits: ConnectionLimits, tcp: Bool, descriptor: CInt)
    {
        self.daemon = daemon
        self.statistics = statistics
        self.limits = limits
        self.tcp = tcp
        self.descriptor = descriptor
    }

    func channelActive(context: ChannelHandlerContext) {
        statistics.connected()
        let channel = context.channel
        if tcp {
            activateTCP(context: context)
            return
        }
        let credentials: PeerCredentials
        switch Self.credentials(of: channel) {
        case .success(let read): credentials = read
        case .failure(let refusal):
            statistics.refused()
            daemon.log("a connection was refused: \(refusal.description)")
            refuse(context, refusal.description)
            return
        }
        if let refusal = limits.admit(uid: credentials.uid) {
            statistics.refused()
            daemon.logOnce("uid \(credentials.uid) reached its connection limit", refusal)
            try? credentials.pidfd?.close()
            refuse(context, refusal)
            return
        }
        admitted = credentials.uid
        let worker = ConnectionWorker(
            channel: channel, descriptor: descriptor, peer: .unix(credentials), daemon: daemon,
            statistics: statistics)
        self.worker = worker
        scheduleHelloDeadline(context: context, worker: worker)
        context.fireChannelActive()
        _ = channel.setOption(ChannelOptions.autoRead, value: true)
    }

    /// A client of gpsd's TCP listener: traced and identified by its worker, which greets it.
    private func activateTCP(context: ChannelHandlerContext) {
        let channel = context.channel
        guard let client = channel.remoteAddress.flatMap(Self.endpoint),
            let server = channel.localAddress.flatMap(Self.endpoint)
        else {
            context.close(promise: nil)
            return
        }
        sawFirstByte = true
        speaksGPSD = true
        let worker = ConnectionWorker(
            channel: channel, descriptor: descriptor,
            peer: .tcp(client: client, server: server, limits: limits),
            daemon: daemon, statistics: statistics)
        self.worker = worker
        scheduleHelloDeadline(context: context, worker: worker)
        context.fireChannelActive()
        _ = channel.setOption(ChannelOptions.autoRead, value: true)
    }

    private static func endpoint(_ address: SocketAddress) -> TCPPeer.Endpoint? {
        guard let port = address.port else { return nil }
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { .init(address: Array($0), port: UInt16(port)) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { .init(address: Array($0), port: UInt16(port)) }
        default:
            return nil
        }
    }

    /// Closes the connection if its first request (a hello, or gpsd's first command) has not come
    /// within the deadline.
    private func scheduleHelloDeadline(context: ChannelHandlerContext, worker: ConnectionWorker) {
        let channel = context.channel
        let timeout = limits.settings.helloTimeout
        let deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .init(timeout)) { [weak self] in
            guard let self, !worker.isGreeted, channel.isActive else { return }
            self.statistics.refused()
            if self.speaksGPSD {
                let line =
                    #"{"class":"ERROR","message":"no command came within \#(timeout) of connecting; the connection is closed"}"#
                context.writeAndFlush(
                    self.wrapOutboundOut(channel.allocator.buffer(string: line + "\r\n")), promise: nil)
            } else {
                self.reply(
                    context,
                    .error(
                        id: nil,
                        message: "no hello came within \(timeout) of connecting; the connection is closed"))
            }
            context.close(promise: nil)
        }
        worker.holdHelloDeadline(deadline)
    }

    /// Says why, then closes: before a byte is read, in the daemon's own protocol.
    private func refuse(_ context: ChannelHandlerContext, _ message: String) {
        reply(context, .error(id: nil, message: message))
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let bytes = buffer.readableBytesView
        if !sawFirstByte, let first = bytes.first {
            sawFirstByte = true
            speaksGPSD = first == UInt8(ascii: "?")
        }
        if speaksGPSD {
            readGPSD(bytes, context: context)
            return
        }
        let lines: [[UInt8]]
        do {
            lines = try splitter.append(bytes)
        } catch {
            statistics.refused()
            worker?.enqueue(.malformed(error.description + "; the connection is closed"))
            worker?.close()
            context.close(promise: nil)
            return
        }
        for line in lines where !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
            do {
                let parsed = try WireRequest.parse(line)
                worker?.enqueue(.request(id: parsed.id, parsed.request))
            } catch {
                worker?.enqueue(.malformed(error.description))
            }
        }
    }

    /// gpsd's commands: each ends with `;` or a line's end, and is at most
    /// ``gpsdCommandLimit`` bytes; a longer one is refused and the connection closed.
    private func readGPSD(_ bytes: ByteBufferView, context: ChannelHandlerContext) {
        for byte in bytes {
            if byte == UInt8(ascii: ";") || byte == 10 {
                let command = gpsdPending
                gpsdPending.removeAll(keepingCapacity: true)
                if !command.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) {
                    worker?.enqueue(.gpsd(String(decoding: command, as: UTF8.self)))
                }
                continue
            }
            gpsdPending.append(byte)
            if gpsdPending.count > Self.gpsdCommandLimit {
                statistics.refused()
                let message =
                    #"{"class":"ERROR","message":"request over \#(Self.gpsdCommandLimit) bytes; the connection is closed"}"#
                    + "\r\n"
                context.writeAndFlush(
                    wrapOutboundOut(context.channel.allocator.buffer(string: message)), promise: nil)
                worker?.close()
                context.close(promise: nil)
                return
            }
        }
    }

    /// The longest gpsd command taken: gpsd reads its clients' commands in buffers of this size.
    static let gpsdCommandLimit = 1024

    private func reply(_ context: ChannelHandlerContext, _ event: WireEvent) {
        context.writeAndFlush(
            wrapOutboundOut(context.channel.allocator.buffer(bytes: event.encoded())), promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        guard !context.channel.isWritable else { return }
        cutOff(context, "its unsent lines passed the buffer's bound")
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let stalled = event as? ConnectionOutput.StalledReader else {
            return context.fireUserInboundEventTriggered(event)
        }
        cutOff(
            context,
            "the log replayed for it waited \(Duration.nanoseconds(stalled.limit.nanoseconds)) for it to take a line"
        )
    }

    /// Closes the connection of a client that stopped reading, saying `why` in the log.
    private func cutOff(_ context: ChannelHandlerContext, _ why: String) {
        statistics.cutOff()
        let who = worker?.summary ?? "a client"
        daemon.log("\(who) stopped reading; \(why), and it was cut off")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // First of all: the channel has closed the socket, and its number may be another file's.
        worker?.socketClosed()
        if let uid = admitted { limits.release(uid: uid) }
        admitted = nil
        worker?.close()
        worker = nil
        statistics.disconnected()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// `SO_PEERPIDFD`, which the C headers of older systems lack.
    static let peerPidfdOption: CInt = 77

    /// Why a connection's peer could not be known.
    struct CredentialsRefusal: Error, CustomStringConvertible {
        var description: String
    }

    /// The peer's credentials, and a pidfd pinning it where the kernel has `SO_PEERPIDFD`. Where
    /// it has, a peer it gives no pidfd for (the daemon out of descriptors, say) is refused: a
    /// client is never identified unpinned on a kernel that can pin it.
    static func credentials(of channel: any Channel) -> Result<PeerCredentials, CredentialsRefusal> {
        guard let provider = channel as? any SocketOptionProvider else {
            return .failure(.init(description: "the connection is not a socket"))
        }
        let level = SocketOptionLevel(SOL_SOCKET)
        let peerResult: Result<KernelCredentials, any Error>? = now(
            provider.unsafeGetSocketOption(level: level, name: SocketOptionName(SO_PEERCRED)))
        guard case .success(let peer) = peerResult else {
            return .failure(.init(description: "the kernel gave no credentials for it"))
        }
        var pidfd: SystemPackage.FileDescriptor?
        if PidfdSupport.isSupported {
            let pidfdResult: Result<CInt, any Error>? = now(
                provider.unsafeGetSocketOption(level: level, name: SocketOptionName(Self.peerPidfdOption)))
            switch pidfdResult {
            case .success(let raw): pidfd = SystemPackage.FileDescriptor(rawValue: raw)
            case .failure(let error):
                return .failure(
                    .init(
                        description: "no pidfd could pin pid \(peer.pid) (uid \(peer.uid)): \(error); "
                            + "it is never identified unpinned"))
            case nil: return .failure(.init(description: "no pidfd could pin pid \(peer.pid)"))
            }
        }
        return .success(PeerCredentials(uid: peer.uid, gid: peer.gid, pid: peer.pid, pidfd: pidfd))
    }
}

/// `struct ucred` of `<sys/socket.h>`, which Swift sees only with `_GNU_SOURCE`: same layout.
struct KernelCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// The result of a future that completed already, as one made on its own event loop has: read
/// without waiting, which an event loop must never do.
private func now<Value>(_ future: EventLoopFuture<Value>) -> Result<Value, any Error>? {
    var result: Result<Value, any Error>?
    future.assumeIsolated().whenComplete { result = $0 }
    return result
}

/// Whether this kernel gives a pidfd for a socket's peer (`SO_PEERPIDFD`, Linux 6.5), probed once
/// on a socket pair of the daemon's own: a failure for a client later is that client's, never
/// taken for a kernel without the option.
public enum PidfdSupport {
    public static let isSupported: Bool = {
        guard let pair = closeOnExecSocketPair(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue)) else {
            return false
        }
        defer {
            close(pair.0)
            close(pair.1)
        }
        var pidfd: CInt = -1
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(pair.0, SOL_SOCKET, ClientHandler.peerPidfdOption, &pidfd, &length) == 0 else {
            return false
        }
        close(pidfd)
        return true
    }()

    /// What the daemon says at start of how it pins its clients.
    public static var startupNote: String? {
        isSupported
            ? nil
            : "this kernel gives no SO_PEERPIDFD; clients are identified from /proc/<pid> without a pidfd "
                + "pinning the process, so a pid reused within the instant of a connection could be misread "
                + "(Linux 6.5 or later closes this)"
    }
}
