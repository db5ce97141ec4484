// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import LocationWire
import Locking
import NIOCore

/// One connection's work off the event loop, in the order its requests came: who the client is
/// (`/proc` reads), its hello, then each request, with whatever they read and write (decisions,
/// monitors). The event loop only cuts lines and hands them over, so a client whose requests are
/// slow to serve, or whose identification is, delays nobody else. A client that sends faster than
/// its requests are served is paused (its socket is not read) until it is caught up.
final class ConnectionWorker: Sendable {
    enum Item: Sendable {
        case request(id: Int?, WireRequest)
        /// A line that is not a request: its error, in its turn among the replies.
        case malformed(String)
        /// A command of gpsd's protocol (`?WATCH={…}`, without its `;`).
        case gpsd(String)
    }

    /// Requests waiting before the socket is no longer read, and the number it is read again at.
    static let pauseAt = 64
    static let resumeAt = 16

    private struct State {
        var identity: PeerIdentity?
        var session: ClientSession?
        var gpsd: GPSDSession?
        var closed = false
        var paused = false
        /// The connection's hello deadline, cancelled once it is greeted or closed.
        var helloDeadline: Scheduled<Void>?
    }

    private let channel: any Channel
    private let output: ConnectionOutput
    private let daemon: Daemon
    private let statistics: ServerStatistics
    private let state = Mutex(State())
    private let waiting = Atomic<Int>(0)
    private let hasSession = Atomic<Bool>(false)
    private let continuation: AsyncStream<Item>.Continuation

    /// Where a connection's peer is known from.
    enum Peer: Sendable {
        /// A Unix socket's: the kernel named it (`SO_PEERCRED`, `SO_PEERPIDFD`), and the
        /// connection was admitted against its uid's limit already.
        case unix(PeerCredentials)
        /// A TCP client of gpsd's protocol: traced to its process here, then admitted.
        case tcp(client: TCPPeer.Endpoint, server: TCPPeer.Endpoint, limits: ConnectionLimits)
    }

    /// Starts the worker for a connection from `peer` on `channel`, whose socket is `descriptor`.
    init(channel: any Channel, descriptor: CInt, peer: Peer, daemon: Daemon, statistics: ServerStatistics) {
        self.channel = channel
        output = ConnectionOutput(channel: channel, descriptor: descriptor)
        self.daemon = daemon
        self.statistics = statistics
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        Task { [self] in
            var admitted: (ConnectionLimits, UInt32)?
            let credentials: PeerCredentials?
            switch peer {
            case .unix(let known):
                credentials = known
                identify(known)
            case .tcp(let client, let server, let limits):
                credentials = trace(client: client, server: server, limits: limits, admitted: &admitted)
            }
            for await item in stream {
                let skip = state.withLock { $0.closed || $0.identity == nil }
                if !skip { process(item) }
                served()
            }
            finish(credentials)
            if let (limits, uid) = admitted { limits.release(uid: uid) }
        }
    }

    /// A TCP client: traced to its process, admitted against its uid's limit, identified, and
    /// greeted at once with gpsd's VERSION, as gpsd greets its clients.
    private func trace(
        client: TCPPeer.Endpoint, server: TCPPeer.Endpoint, limits: ConnectionLimits,
        admitted: inout (ConnectionLimits, UInt32)?
    ) -> PeerCredentials? {
        let credentials: PeerCredentials
        switch TCPPeer.credentials(client: client, server: server) {
        case .success(let traced): credentials = traced
        case .failure(let refusal) where refusal.isNetworkClient:
            return admitNetworkClient(client, refusal: refusal, limits: limits, admitted: &admitted)
        case .failure(let refusal):
            statistics.refused()
            daemon.logOnce("tcp \(refusal.description)", "gpsd client refused: \(refusal.description)")
            refuse(refusal.description)
            return nil
        }
        if let refusal = limits.admit(uid: credentials.uid) {
            statistics.refused()
            daemon.logOnce("uid \(credentials.uid) reached its connection limit", refusal)
            try? credentials.pidfd?.close()
            refuse(refusal)
            return nil
        }
        admitted = (limits, credentials.uid)
        identify(credentials)
        if state.withLock({ $0.identity != nil }) { _ = gpsdSession() }
        return credentials
    }

    /// A client no process of this machine owns: served as the app of the address block an
    /// administrator decided on, all such clients together within one user's connection limit;
    /// refused when no decision covers its address.
    private func admitNetworkClient(
        _ client: TCPPeer.Endpoint, refusal: TCPPeer.Refusal, limits: ConnectionLimits,
        admitted: inout (ConnectionLimits, UInt32)?
    ) -> PeerCredentials? {
        guard let identity = daemon.networkIdentity(of: client) else {
            statistics.refused()
            let single =
                AddressBlock(client.host).map { NetworkClients.prefix + $0.description } ?? "network:…"
            let message =
                "\(refusal.description); a network client gets nothing unless an administrator allows its "
                + "address: `sudo gpsloc auth grant '\(single)' always --approximate` (or without --approximate)"
            daemon.logOnce("tcp \(client.host)", "gpsd client refused: \(message)")
            refuse(message)
            return nil
        }
        if let refusal = limits.admit(uid: NetworkClients.uid) {
            statistics.refused()
            daemon.logOnce("network clients reached their connection limit", "network clients: \(refusal)")
            refuse(refusal)
            return nil
        }
        admitted = (limits, NetworkClients.uid)
        daemon.logOnce("tcp \(client.host) as \(identity.app)", "gpsd client \(identity.summary)")
        state.withLock { $0.identity = identity }
        _ = gpsdSession()
        return identity.credentials
    }

    /// gpsd's ERROR, then the connection closes.
    private func refuse(_ message: String) {
        var line: [UInt8] = []
        JSONObjectWriter.append(to: &line, estimate: 256) { json in
            json.add("class", string: "ERROR")
            json.add("message", string: message)
        }
        channel.writeAndFlush(channel.allocator.buffer(bytes: line + [13, 10]), promise: nil)
        channel.close(promise: nil)
    }

    /// Whether the hello was answered: the connection then may stay silent.
    var isGreeted: Bool { hasSession.load(ordering: .relaxed) }

    /// `deadline` closes the connection unless it is greeted first; it is cancelled when the
    /// connection is greeted or closes. Left to fire, each greeted connection's deadline would
    /// wake its event loop for nothing, a thousand times over for a thousand clients.
    func holdHelloDeadline(_ deadline: Scheduled<Void>) {
        let over = state.withLock { state -> Bool in
            if hasSession.load(ordering: .relaxed) || state.closed { return true }
            state.helloDeadline = deadline
            return false
        }
        if over { deadline.cancel() }
    }

    /// The hello was answered (or gpsd's first command came): the connection may stay silent.
    private func greeted() {
        guard !hasSession.load(ordering: .relaxed) else { return }
        let deadline = state.withLock { state -> Scheduled<Void>? in
            hasSession.store(true, ordering: .relaxed)
            return state.helloDeadline.take()
        }
        deadline?.cancel()
    }

    /// The client, once identified, for the log.
    var summary: String? { state.withLock { $0.identity?.summary } }

    /// Queues a request; pauses reading the socket when too many wait.
    func enqueue(_ item: Item) {
        if waiting.add(1, ordering: .relaxed).newValue >= Self.pauseAt {
            let pause = state.withLock { state -> Bool in
                defer { state.paused = true }
                return !state.paused
            }
            if pause { _ = channel.setOption(ChannelOptions.autoRead, value: false) }
        }
        continuation.yield(item)
    }

    /// On the event loop, as the channel closes: nothing is written to its socket any more.
    func socketClosed() { output.socketClosed() }

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
        guard let identity = PeerIdentity.identify(credentials, registry: daemon.registry) else {
            daemon.log("pid \(credentials.pid) exited while it was identified; its connection was closed")
            channel.close(promise: nil)
            return
        }
        daemon.logNotes(of: identity)
        state.withLock { $0.identity = identity }
    }

    private func finish(_ credentials: PeerCredentials?) {
        let (session, gpsd) = state.withLock { state -> (ClientSession?, GPSDSession?) in
            state.closed = true
            defer {
                state.session = nil
                state.gpsd = nil
            }
            return (state.session, state.gpsd)
        }
        session?.close()
        gpsd?.close()
        try? credentials?.pidfd?.close()
    }

    private func send(_ event: WireEvent) {
        output.send(event.encoded())
    }

    /// A gpsd command: the first one starts the connection's gpsd session (its VERSION first).
    private func gpsd(_ command: String) {
        guard let session = gpsdSession() else { return }
        // Its first command, as a hello, lets the connection stay silent after.
        greeted()
        session.handle(command)
    }

    /// The connection's gpsd session, started (with its VERSION) the first time.
    private func gpsdSession() -> GPSDSession? {
        let (existing, identity) = state.withLock { ($0.gpsd, $0.identity) }
        if let existing { return existing }
        guard let identity else { return nil }
        let session = GPSDSession(identity: identity, daemon: daemon, output: output)
        let late = state.withLock { state -> Bool in
            if state.closed { return true }
            state.gpsd = session
            return false
        }
        if late {
            session.close()
            return nil
        }
        return session
    }

    private func process(_ item: Item) {
        let (id, request): (Int?, WireRequest)
        switch item {
        case .malformed(let message):
            statistics.refused()
            send(.error(id: nil, message: message))
            return
        case .request(let number, let parsed):
            (id, request) = (number, parsed)
        case .gpsd(let command):
            gpsd(command)
            return
        }
        let (session, identity) = state.withLock { ($0.session, $0.identity) }
        if let session {
            session.handle(request, id: id)
            return
        }
        guard case .hello(let version, let receiver) = request, let identity else {
            statistics.refused()
            send(.error(id: id, message: "send {\"op\":\"hello\",\"version\":\(WireProtocol.version)} first"))
            return
        }
        guard version == WireProtocol.version else {
            send(
                .error(
                    id: id,
                    message:
                        "this daemon speaks version \(WireProtocol.version) of the protocol, not \(version); "
                        + "use a library and a daemon of the same release"))
            channel.close(promise: nil)
            return
        }
        let client: HostedClient
        let connection: Int
        do throws(WireError) {
            (client, connection) = try daemon.attach(identity, receiver: receiver)
        } catch {
            send(.error(id: id, message: error.description))
            return
        }
        send(.hello(id: id, identity: identity.wire, client.app.authorization))
        let made = ClientSession(
            identity: identity, client: client, connection: connection, daemon: daemon, output: output)
        let late = state.withLock { state -> Bool in
            if state.closed { return true }
            state.session = made
            return false
        }
        // The connection ended while it was attached: nothing will close the session but this.
        if late { made.close() } else { greeted() }
    }
}
