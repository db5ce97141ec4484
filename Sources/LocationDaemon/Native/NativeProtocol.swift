// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_spi(FrontEnd) import LocationWire
import Locking
import NIOCore

/// gpslocd's own protocol (``LocationWire``'s JSON lines) as an entry of a listener's table: what
/// the daemon's socket speaks unless a connection's first byte says gpsd's.
struct NativeProtocol: ConnectionProtocol {
    var name: String { "native" }
    var firstRequest: String { "hello" }

    func claims(firstByte byte: UInt8) -> Bool { byte != UInt8(ascii: "?") }

    func makeFramer() -> any RequestFramer { NativeLineFramer() }

    func refusal(_ message: String, greeted: Bool) -> [UInt8] {
        WireEvent.error(id: nil, message: message).encoded()
    }

    func open(_ identity: PeerIdentity, on connection: ConnectionContext) -> any ProtocolSession {
        NativeConnection(identity: identity, on: connection)
    }
}

/// The native protocol's lines, at most ``WireProtocol/maximumRequestLength`` bytes each; blank
/// lines are dropped.
struct NativeLineFramer: RequestFramer {
    private var splitter = LineSplitter(maximumLength: WireProtocol.maximumRequestLength)

    mutating func append(_ bytes: ByteBufferView) -> Result<[[UInt8]], FramingRefusal> {
        do {
            let lines = try splitter.append(bytes)
            return .success(
                lines.filter { !$0.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } })
        } catch {
            return .failure(FramingRefusal(message: error.description + "; the connection is closed"))
        }
    }
}

/// A native connection: its hello first, which attaches the app, then its ``NativeSession``.
final class NativeConnection: ProtocolSession {
    private let identity: PeerIdentity
    private let connection: ConnectionContext
    private let session = Mutex<NativeSession?>(nil)
    private let closed = Atomic<Bool>(false)

    init(identity: PeerIdentity, on connection: ConnectionContext) {
        self.identity = identity
        self.connection = connection
    }

    private func send(_ event: WireEvent) { connection.output.send(event.encoded()) }

    func handle(_ line: [UInt8]) -> Bool {
        let parsed: (id: Int?, request: WireRequest)
        do {
            parsed = try WireRequest.parse(line)
        } catch {
            connection.statistics.refused()
            send(.error(id: nil, message: error.description))
            return session.withLock { $0 != nil }
        }
        if let session = session.withLock({ $0 }) {
            session.handle(parsed.request, id: parsed.id)
            return true
        }
        return hello(parsed.request, id: parsed.id)
    }

    /// The first request: a hello of this protocol's version, which attaches the app.
    private func hello(_ request: WireRequest, id: Int?) -> Bool {
        guard case .hello(let version, let receiver) = request else {
            connection.statistics.refused()
            send(.error(id: id, message: "send {\"op\":\"hello\",\"version\":\(WireProtocol.version)} first"))
            return false
        }
        guard version == WireProtocol.version else {
            send(
                .error(
                    id: id,
                    message:
                        "this daemon speaks version \(WireProtocol.version) of the protocol, not \(version); "
                        + "use a library and a daemon of the same release"))
            connection.close()
            return false
        }
        let hub = connection.hub
        let client: HostedClient
        let number: Int
        do throws(WireError) {
            (client, number) = try hub.attach(identity, receiver: receiver)
        } catch {
            send(.error(id: id, message: error.description))
            return false
        }
        send(.hello(id: id, identity: identity.wire, client.app.authorization))
        let made = NativeSession(
            identity: identity, client: client, connection: number, hub: hub, output: connection.output)
        let late = session.withLock { session -> Bool in
            if closed.load(ordering: .relaxed) { return true }
            session = made
            return false
        }
        // The connection ended while it was attached: nothing will close the session but this.
        if late {
            made.close()
            return false
        }
        return true
    }

    func close() {
        let ended = session.withLock { session -> NativeSession? in
            closed.store(true, ordering: .relaxed)
            defer { session = nil }
            return session
        }
        ended?.close()
    }
}
