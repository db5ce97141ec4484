// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// One client connection on the daemon's event loop: who it is by the kernel's word (before a
/// byte is read, for a Unix socket), its limits, the protocol it speaks (chosen once: when it
/// opens on a listener of one protocol, else by its first byte), its requests cut by that
/// protocol's framer and handed to its ``ConnectionWorker``, which serves them in order off the
/// loop. A client that stops reading is cut off when its unsent lines pass the buffer's bound;
/// nothing it does reaches another connection.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How the handler learns who is at the other end.
    enum Peer {
        /// A Unix socket's peer: the kernel names it (`SO_PEERCRED`, `SO_PEERPIDFD`).
        case unixSocket
        /// A TCP client, its two ends, and what the kernel said of its socket when it was asked as
        /// the connection was accepted (`nil`: it could not be asked): traced by its worker.
        case tcp(client: TCPPeer.Endpoint, server: TCPPeer.Endpoint, kernelSaid: TCPPeer.Owner?)
        /// A TCP client whose socket the kernel named, counted against its uid's limit already
        /// (by the server, as it was accepted): its worker finds and pins its process.
        case tcpAdmitted(uid: UInt32, inode: UInt64, client: TCPPeer.Endpoint)
    }

    private let hub: Daemon
    private let statistics: ServerStatistics
    private let limits: ConnectionLimits
    /// The protocols the listener serves, the first being the one refusals are said in before a
    /// connection has chosen.
    private let protocols: [any ConnectionProtocol]
    private let peer: Peer
    private var chosen: (any ConnectionProtocol)?
    private var framer: (any RequestFramer)?
    private var worker: ConnectionWorker?
    /// What this connection is counted against, once admitted here.
    private var admitted: ConnectionLimits.Holder?
    /// The connection's socket, which its channel owns: where its output writes while it is open.
    private let descriptor: CInt

    init(
        hub: Daemon, statistics: ServerStatistics, limits: ConnectionLimits,
        protocols: [any ConnectionProtocol], peer: Peer, descriptor: CInt
    ) {
        precondition(!protocols.isEmpty, "a listener serves at least one protocol")
        self.hub = hub
        self.statistics = statistics
        self.limits = limits
        self.protocols = protocols
        self.peer = peer
        self.descriptor = descriptor
    }

    /// The protocol refusals are said in: the connection's, or the listener's first.
    private var words: any ConnectionProtocol { chosen ?? protocols[0] }

    func channelActive(context: ChannelHandlerContext) {
        statistics.connected()
        let channel = context.channel
        let known: ConnectionWorker.Peer
        switch peer {
        case .unixSocket:
            let credentials: PeerCredentials
            switch SocketCredentials.ofPeer(of: descriptor) {
            case .success(let read): credentials = read
            case .failure(let refusal):
                statistics.refused()
                hub.log("a connection was refused: \(refusal.description)")
                refuse(context, refusal.description)
                return
            }
            if let refusal = ConnectionWorker.admit(.user(credentials.uid), limits: limits, hub, statistics) {
                try? credentials.pidfd?.close()
                refuse(context, refusal)
                return
            }
            admitted = .user(credentials.uid)
            known = .identified(credentials)
        case .tcp(let client, let server, let kernelSaid):
            known = .tcp(client: client, server: server, kernelSaid: kernelSaid, limits: limits)
        case .tcpAdmitted(let uid, let inode, let client):
            admitted = .user(uid)
            known = .tcpSocket(uid: uid, inode: inode, client: client)
        }
        let worker = ConnectionWorker(
            channel: channel, descriptor: descriptor, peer: known, hub: hub, statistics: statistics,
            words: words)
        self.worker = worker
        if protocols.count == 1 { choose(protocols[0]) }
        scheduleHelloDeadline(context: context, worker: worker)
        context.fireChannelActive()
        _ = channel.setOption(ChannelOptions.autoRead, value: true)
    }

    /// The connection speaks `chosen` from now on: its framer cuts the bytes, and its worker
    /// opens its session as soon as the client is identified.
    private func choose(_ chosen: any ConnectionProtocol) {
        self.chosen = chosen
        framer = chosen.makeFramer()
        worker?.speak(chosen)
    }

    /// Closes the connection if its first request has not come within the deadline.
    private func scheduleHelloDeadline(context: ChannelHandlerContext, worker: ConnectionWorker) {
        let channel = context.channel
        let timeout = limits.settings.helloTimeout
        let deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .init(timeout)) { [weak self] in
            guard let self, !worker.isGreeted, channel.isActive else { return }
            self.statistics.refused()
            let words = self.words
            self.refuse(
                context,
                "no \(words.firstRequest) came within \(timeout) of connecting; the connection is closed")
        }
        worker.holdHelloDeadline(deadline)
    }

    /// Says why in the connection's protocol (or the listener's first, before it has chosen),
    /// then closes.
    private func refuse(_ context: ChannelHandlerContext, _ message: String) {
        context.writeAndFlush(
            wrapOutboundOut(
                context.channel.allocator.buffer(
                    bytes: words.refusal(message, greeted: worker?.hasSession ?? false))), promise: nil)
        worker?.close()
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let bytes = buffer.readableBytesView
        if chosen == nil, let first = bytes.first {
            choose(protocols.first { $0.claims(firstByte: first) } ?? protocols[protocols.count - 1])
        }
        guard var framer else { return }
        let framed = framer.append(bytes)
        self.framer = framer
        switch framed {
        case .success(let requests):
            for request in requests { worker?.enqueue(request) }
        case .failure(let refusal):
            statistics.refused()
            self.framer = nil
            refuse(context, refusal.message)
        }
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
        hub.log("\(who) stopped reading; \(why), and it was cut off")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // First of all: the channel has closed the socket, and its number may be another file's.
        worker?.socketClosed()
        if let holder = admitted { limits.release(holder) }
        admitted = nil
        worker?.close()
        worker = nil
        statistics.disconnected()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
