// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

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

/// One client connection on the daemon's event loop: who it is (from the kernel, before a byte
/// is read), its lines cut at the protocol's bound, its hello, then its requests handed to its
/// ``ClientSession``. A client that stops reading is cut off when its unsent lines pass the
/// buffer's bound; nothing it does reaches another connection.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let daemon: Daemon
    private let statistics: ServerStatistics
    private var splitter = LineSplitter(maximumLength: WireProtocol.maximumRequestLength)
    private var identity: PeerIdentity?
    private var session: ClientSession?
    private var sawFirstByte = false

    init(daemon: Daemon, statistics: ServerStatistics) {
        self.daemon = daemon
        self.statistics = statistics
    }

    func channelActive(context: ChannelHandlerContext) {
        statistics.connected()
        let channel = context.channel
        guard let credentials = Self.credentials(of: channel, log: daemon.log) else {
            daemon.log("a connection without credentials was refused")
            context.close(promise: nil)
            return
        }
        guard let identity = PeerIdentity.identify(credentials, registry: daemon.registry) else {
            daemon.log("pid \(credentials.pid) exited while it was identified; its connection was closed")
            try? credentials.pidfd?.close()
            context.close(promise: nil)
            return
        }
        self.identity = identity
        daemon.logNotes(of: identity)
        context.fireChannelActive()
        _ = channel.setOption(ChannelOptions.autoRead, value: true)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let bytes = buffer.readableBytesView
        if !sawFirstByte, let first = bytes.first {
            sawFirstByte = true
            if first == UInt8(ascii: "?") {
                // gpsd's protocol will be served on this same socket; until then say so in its form.
                let notice =
                    #"{"class":"ERROR","message":"gpsd's protocol is not served on this socket yet; use OpenCoreLocation's (see README)"}"#
                    + "\r\n"
                context.writeAndFlush(
                    wrapOutboundOut(context.channel.allocator.buffer(string: notice)), promise: nil)
                context.close(promise: nil)
                return
            }
        }
        let lines: [[UInt8]]
        do {
            lines = try splitter.append(bytes)
        } catch {
            statistics.refused()
            reply(context, .error(id: nil, message: error.description + "; the connection is closed"))
            context.close(promise: nil)
            return
        }
        for line in lines where !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
            handle(line, context: context)
        }
    }

    private func handle(_ line: [UInt8], context: ChannelHandlerContext) {
        let parsed: (id: Int?, request: WireRequest)
        do {
            parsed = try WireRequest.parse(line)
        } catch {
            statistics.refused()
            reply(context, .error(id: nil, message: error.description))
            return
        }
        if let session {
            session.handle(parsed.request, id: parsed.id)
            return
        }
        guard case .hello(let version, let receiver) = parsed.request, let identity else {
            statistics.refused()
            reply(
                context,
                .error(
                    id: parsed.id,
                    message: "send {\"op\":\"hello\",\"version\":\(WireProtocol.version)} first"))
            return
        }
        guard version == WireProtocol.version else {
            reply(
                context,
                .error(
                    id: parsed.id,
                    message:
                        "this daemon speaks version \(WireProtocol.version) of the protocol, not \(version); "
                        + "use a library and a daemon of the same release"))
            context.close(promise: nil)
            return
        }
        let client: HostedClient
        let connection: Int
        do {
            (client, connection) = try daemon.attach(identity, receiver: receiver)
        } catch {
            reply(context, .error(id: parsed.id, message: error.description))
            return
        }
        let channel = context.channel
        let send: @Sendable ([UInt8]) -> Void = { bytes in
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
        }
        reply(context, .hello(id: parsed.id, identity: identity.wire, client.app.authorization))
        session = ClientSession(
            identity: identity, client: client, connection: connection, daemon: daemon, send: send)
    }

    private func reply(_ context: ChannelHandlerContext, _ event: WireEvent) {
        context.writeAndFlush(
            wrapOutboundOut(context.channel.allocator.buffer(bytes: event.encoded())), promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        guard !context.channel.isWritable else { return }
        statistics.cutOff()
        let who = identity?.summary ?? "a client"
        daemon.log("\(who) stopped reading; its unsent lines passed the buffer's bound and it was cut off")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        session?.close()
        session = nil
        if let pidfd = identity?.credentials.pidfd { try? pidfd.close() }
        identity = nil
        statistics.disconnected()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// `SO_PEERPIDFD`, which the C headers of older systems lack.
    static let peerPidfdOption: CInt = 77

    /// The peer's credentials, and a pidfd pinning it where the kernel has `SO_PEERPIDFD`.
    static func credentials(of channel: any Channel, log: @Sendable (String) -> Void) -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let level = SocketOptionLevel(SOL_SOCKET)
        let peerResult: Result<KernelCredentials, any Error>? = now(
            provider.unsafeGetSocketOption(level: level, name: SocketOptionName(SO_PEERCRED)))
        guard case .success(let peer) = peerResult else { return nil }
        var pidfd: SystemPackage.FileDescriptor?
        let pidfdResult: Result<CInt, any Error>? = now(
            provider.unsafeGetSocketOption(level: level, name: SocketOptionName(Self.peerPidfdOption)))
        switch pidfdResult {
        case .success(let raw): pidfd = SystemPackage.FileDescriptor(rawValue: raw)
        case .failure(let error): PidfdSupport.reportMissing(error, log: log)
        case nil: break
        }
        return PeerCredentials(uid: peer.uid, gid: peer.gid, pid: peer.pid, pidfd: pidfd)
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

/// Says once that this kernel gives no pidfd for a peer, and what that means.
enum PidfdSupport {
    private static let reported = Mutex(false)

    static func reportMissing(_ error: any Error, log: @Sendable (String) -> Void) {
        let first = reported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        guard first else { return }
        log(
            "this kernel gives no SO_PEERPIDFD (\(error)); clients are identified from /proc/<pid> without a pidfd "
                + "pinning the process, so a pid reused within the instant of a connection could be misread "
                + "(Linux 6.5 or later closes this)")
    }
}
