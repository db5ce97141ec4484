// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Locking
import NIOCore

/// One connection's work off the event loop, in the order its requests came: who the client is
/// (`/proc` reads), then its protocol's session, which serves each request with whatever it reads
/// and writes (decisions, monitors). The event loop only cuts requests and hands them over, so a
/// client whose requests are slow to serve, or whose identification is, delays nobody else. A
/// client that sends faster than its requests are served is paused (its socket is not read) until
/// it is caught up.
final class ConnectionWorker: Sendable {
    private enum Item: Sendable {
        /// The protocol the connection speaks, chosen on the loop.
        case speak(any ConnectionProtocol)
        case request([UInt8])
    }

    /// Requests waiting before the socket is no longer read, and the number it is read again at.
    static let pauseAt = 64
    static let resumeAt = 16

    private struct State {
        var identity: PeerIdentity?
        var session: (any ProtocolSession)?
        var closed = false
        var paused = false
        /// The connection's hello deadline, cancelled once it is greeted or closed.
        var helloDeadline: Scheduled<Void>?
    }

    private let channel: any Channel
    private let context: ConnectionContext
    private let state = Mutex(State())
    private let waiting = Atomic<Int>(0)
    private let greetedFlag = Atomic<Bool>(false)
    private let continuation: AsyncStream<Item>.Continuation
    /// The protocol the connection chose, once it has, and the listener's first, which speaks
    /// for it until then.
    private let chosenWords = Mutex<(any ConnectionProtocol)?>(nil)
    private let listenerWords: any ConnectionProtocol

    /// Where a connection's peer is known from.
    enum Peer: Sendable {
        /// A Unix socket's: the kernel named it (`SO_PEERCRED`, `SO_PEERPIDFD`), and the
        /// connection was admitted against its uid's limit already.
        case identified(PeerCredentials)
        /// A TCP client: traced to its process here, then admitted.
        case tcp(
            client: TCPPeer.Endpoint, server: TCPPeer.Endpoint, kernelSaid: TCPPeer.Owner?,
            limits: ConnectionLimits)
        /// A TCP client whose socket the kernel named, admitted against its uid's limit already:
        /// its process is found and pinned here.
        case tcpSocket(uid: UInt32, inode: UInt64, client: TCPPeer.Endpoint)
    }

    /// Starts the worker for a connection from `peer` on `channel`, whose socket is `descriptor`;
    /// a refusal before the connection has chosen its protocol is said in `words`'.
    init(
        channel: any Channel, descriptor: CInt, peer: Peer, hub: Daemon, statistics: ServerStatistics,
        words: any ConnectionProtocol
    ) {
        self.channel = channel
        listenerWords = words
        context = ConnectionContext(
            hub: hub, output: ConnectionOutput(channel: channel, descriptor: descriptor),
            statistics: statistics, channel: channel)
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        Task { [self] in
            var admitted: (ConnectionLimits, ConnectionLimits.Holder)?
            var credentials: PeerCredentials?
            switch peer {
            case .identified(let known):
                credentials = known
                identify(known)
            case .tcp(let client, let server, let kernelSaid, let limits):
                credentials = await trace(
                    client: client, server: server, kernelSaid: kernelSaid, limits: limits,
                    admitted: &admitted)
            case .tcpSocket(let uid, let inode, let client):
                credentials = await pin(uid: uid, inode: inode, client: client)
            }
            for await item in stream {
                switch item {
                case .speak(let chosen): open(chosen)
                case .request(let request):
                    serve(request)
                    served()
                }
            }
            finish(credentials)
            if let (limits, holder) = admitted { limits.release(holder) }
        }
    }

    /// A TCP client: traced to its process (or known as a network client by its address),
    /// admitted against its uid's limit, and identified.
    private func trace(
        client: TCPPeer.Endpoint, server: TCPPeer.Endpoint, kernelSaid: TCPPeer.Owner?,
        limits: ConnectionLimits,
        admitted: inout (ConnectionLimits, ConnectionLimits.Holder)?
    ) async -> PeerCredentials? {
        let hub = context.hub
        let traced = TCPPeer.trace(
            client: client, server: server, known: kernelSaid,
            networkDecisions: hub.stores.store(uid: NetworkClients.uid))
        switch traced {
        case .failure(let refusal):
            context.statistics.refused()
            hub.logOnce(refusal.logKey, "TCP client refused: \(refusal.description)")
            refuse(refusal.description)
            return nil
        case .success(.socket(let uid, let inode)):
            // Admitted against its uid's limit before its process is looked for: a user's flood
            // of connections costs that user's limit, not a trace each.
            guard admit(.user(uid), limits: limits) else { return nil }
            admitted = (limits, .user(uid))
            return await pin(uid: uid, inode: inode, client: client)
        case .success(.network(let identity)):
            // Each address and each granted block within its budget: a flooding host is refused
            // while the others are served.
            let holder = ConnectionLimits.Holder.network(address: client.host, block: identity.app)
            guard admit(holder, limits: limits) else { return nil }
            admitted = (limits, holder)
            hub.logOnce(
                "tcp \(identity.wire.proof ?? "") as \(identity.app)", "TCP client \(identity.summary)")
            state.withLock { $0.identity = identity }
            return identity.credentials
        }
    }

    /// The process holding an admitted TCP client's socket, pinned and identified; refused, saying
    /// why, when it cannot be.
    private func pin(uid: UInt32, inode: UInt64, client: TCPPeer.Endpoint) async -> PeerCredentials? {
        switch await TCPPeer.pin(uid: uid, inode: inode, client: client) {
        case .success(let credentials):
            identify(credentials)
            return credentials
        case .failure(let refusal):
            context.statistics.refused()
            context.hub.logOnce(refusal.logKey, "TCP client refused: \(refusal.description)")
            refuse(refusal.description)
            return nil
        }
    }

    /// Counts a connection against `holder`'s limits, or refuses it, saying why.
    private func admit(_ holder: ConnectionLimits.Holder, limits: ConnectionLimits) -> Bool {
        guard let refusal = Self.admit(holder, limits: limits, context.hub, context.statistics) else {
            return true
        }
        refuse(refusal)
        return false
    }

    /// Counts a connection against `holder`'s limits; or, when one is reached, counts the
    /// refusal, logs it once per offender (a user, an address, a block) and returns what the
    /// client is told.
    static func admit(
        _ holder: ConnectionLimits.Holder, limits: ConnectionLimits, _ hub: Daemon,
        _ statistics: ServerStatistics
    ) -> String? {
        guard let reached = limits.admit(holder) else { return nil }
        statistics.refused()
        hub.logOnce(
            "\(reached.offender) reached its connection limit",
            "\(reached.offender) reached its connection limit: \(reached.text)")
        return reached.text
    }

    /// Says why in the connection's protocol (the listener's first, before it has chosen),
    /// then closes.
    private func refuse(_ message: String) {
        let words = chosenWords.withLock { $0 } ?? listenerWords
        let greeted = state.withLock { $0.session != nil }
        channel.writeAndFlush(
            channel.allocator.buffer(bytes: words.refusal(message, greeted: greeted)), promise: nil)
        channel.close(promise: nil)
    }

    /// Whether the connection's protocol session has begun (and said what it says first).
    var hasSession: Bool { state.withLock { $0.session != nil } }

    /// Whether the client has greeted: the connection then may stay silent.
    var isGreeted: Bool { greetedFlag.load(ordering: .relaxed) }

    /// `deadline` closes the connection unless it is greeted first; it is cancelled when the
    /// connection is greeted or closes. Left to fire, each greeted connection's deadline would
    /// wake its event loop for nothing, a thousand times over for a thousand clients.
    func holdHelloDeadline(_ deadline: Scheduled<Void>) {
        let over = state.withLock { state -> Bool in
            if greetedFlag.load(ordering: .relaxed) || state.closed { return true }
            state.helloDeadline = deadline
            return false
        }
        if over { deadline.cancel() }
    }

    /// The client greeted: the connection may stay silent.
    private func greeted() {
        guard !greetedFlag.load(ordering: .relaxed) else { return }
        let deadline = state.withLock { state -> Scheduled<Void>? in
            greetedFlag.store(true, ordering: .relaxed)
            return state.helloDeadline.take()
        }
        deadline?.cancel()
    }

    /// The client, once identified, for the log.
    var summary: String? { state.withLock { $0.identity?.summary } }

    /// The connection speaks `chosen` (on the loop, once).
    func speak(_ chosen: any ConnectionProtocol) {
        chosenWords.withLock { $0 = chosen }
        continuation.yield(.speak(chosen))
    }

    /// Queues a request; pauses reading the socket when too many wait.
    func enqueue(_ request: [UInt8]) {
        if waiting.add(1, ordering: .relaxed).newValue >= Self.pauseAt {
            let pause = state.withLock { state -> Bool in
                defer { state.paused = true }
                return !state.paused
            }
            if pause { _ = channel.setOption(ChannelOptions.autoRead, value: false) }
        }
        continuation.yield(.request(request))
    }

    /// On the event loop, as the channel closes: nothing is written to its socket any more.
    func socketClosed() { context.output.socketClosed() }

    /// The connection ended: what waits is dropped, and the session ends once the request being
    /// served (if any) is done.
    func close() {
        let deadline = state.withLock { state -> Scheduled<Void>? in
            state.closed = true
            return state.helloDeadline.take()
        }
        deadline?.cancel()
        continuation.finish()
    }

    private func served() {
        guard waiting.subtract(1, ordering: .relaxed).newValue <= Self.resumeAt else { return }
        let resume = state.withLock { state -> Bool in
            defer { state.paused = false }
            return state.paused && !state.closed
        }
        if resume { _ = channel.setOption(ChannelOptions.autoRead, value: true) }
    }

    private func identify(_ credentials: PeerCredentials) {
        let hub = context.hub
        guard let identity = PeerIdentity.identify(credentials, registry: hub.registry) else {
            hub.log("pid \(credentials.pid) exited while it was identified; its connection was closed")
            channel.close(promise: nil)
            return
        }
        hub.logNotes(of: identity)
        state.withLock { $0.identity = identity }
    }

    /// Opens the chosen protocol's session for the identified client (none for a client that
    /// was refused, or whose connection ended).
    private func open(_ chosen: any ConnectionProtocol) {
        guard let identity = state.withLock({ $0.closed ? nil : $0.identity }) else { return }
        let session = chosen.open(identity, on: context)
        let late = state.withLock { state -> Bool in
            if state.closed { return true }
            state.session = session
            return false
        }
        if late { session.close() }
    }

    private func serve(_ request: [UInt8]) {
        guard let session = state.withLock({ $0.closed ? nil : $0.session }) else { return }
        if session.handle(request) { greeted() }
    }

    private func finish(_ credentials: PeerCredentials?) {
        let session = state.withLock { state -> (any ProtocolSession)? in
            state.closed = true
            defer { state.session = nil }
            return state.session
        }
        session?.close()
        try? credentials?.pidfd?.close()
    }
}
