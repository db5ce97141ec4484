// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// A protocol a connection may speak, as the connection code knows it: one entry of a listener's
/// table. A listener of one protocol chooses it when the connection opens; a listener of several
/// chooses once, by the connection's first byte, and the entry then serves the connection to its
/// end. The connection code knows nothing else of any protocol: the entry frames the requests,
/// says refusals in its own words and serves the identified client.
protocol ConnectionProtocol: Sendable {
    /// How the log names it.
    var name: String { get }

    /// Whether a connection whose first byte is `byte` speaks it (a listener of several
    /// protocols asks each in turn; the last one asked takes what no other claims).
    func claims(firstByte byte: UInt8) -> Bool

    /// A new connection's framer: its bytes cut into requests.
    func makeFramer() -> any RequestFramer

    /// The bytes that tell a client why its connection is refused or closed, in the protocol's
    /// words; the connection closes after them. `greeted`: whether its session had begun (and
    /// said what a protocol says first), or the connection is refused before it.
    func refusal(_ message: String, greeted: Bool) -> [UInt8]

    /// What the first request is called ("hello", "command"), for the deadline's refusal.
    var firstRequest: String { get }

    /// Starts serving `identity` on a connection: its session, off the event loop.
    func open(_ identity: PeerIdentity, on connection: ConnectionContext) -> any ProtocolSession
}

/// A connection's bytes cut into requests, on its event loop.
protocol RequestFramer {
    /// The requests `bytes` completes, in order; a refusal when the connection must close (a
    /// request over the protocol's bound), after which nothing more is read.
    mutating func append(_ bytes: ByteBufferView) -> Result<[[UInt8]], FramingRefusal>
}

/// Why a connection's bytes cannot be framed: said in the protocol's words, then it closes.
struct FramingRefusal: Error {
    var message: String
}

/// One connection's protocol session: its requests, in the order they came, off the event loop.
protocol ProtocolSession: Sendable {
    /// Serves one request; `true` once the client has greeted (its hello answered, its first
    /// command taken): it may then stay silent without being closed at the deadline.
    func handle(_ request: [UInt8]) -> Bool
    /// The connection ended.
    func close()
}

/// What a protocol's session reaches of its connection: the hub, where its lines go, the
/// connection's counters, and a way to close it.
struct ConnectionContext: Sendable {
    let hub: Daemon
    let output: ConnectionOutput
    let statistics: ServerStatistics
    let channel: any Channel

    /// Closes the connection (its session is closed after).
    func close() { channel.close(promise: nil) }
}
