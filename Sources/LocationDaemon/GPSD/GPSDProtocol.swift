// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NIOCore

/// gpsd's protocol as an entry of a listener's table: a connection whose first byte is `?` on
/// the daemon's own socket, and every connection of gpsd's TCP port. One value serves all of the
/// daemon's gpsd clients, whose precise watchers share the reports it writes once per fix.
struct GPSDProtocol: ConnectionProtocol {
    /// gpsd's reports of each receiver's latest fix, shared by the clients watching it.
    let reports = GPSDReportCache()

    var name: String { "gpsd" }
    var firstRequest: String { "command" }

    func claims(firstByte byte: UInt8) -> Bool { byte == UInt8(ascii: "?") }

    func makeFramer() -> any RequestFramer { GPSDCommandFramer() }

    /// gpsd greets every client with its VERSION: a client refused before its session began is
    /// greeted too, then told why.
    func refusal(_ message: String, greeted: Bool) -> [UInt8] {
        (greeted ? [] : Self.version()) + Self.error(message)
    }

    func open(_ identity: PeerIdentity, on connection: ConnectionContext) -> any ProtocolSession {
        GPSDSession(identity: identity, on: connection, reports: reports)
    }

    /// gpsd's VERSION: the protocol is gpsd's 3.14; the release names gpslocd. A CRLF line.
    static func version() -> [UInt8] {
        var line: [UInt8] = []
        JSONObjectWriter.append(to: &line, estimate: 256) { json in
            json.add("class", string: "VERSION")
            json.add("release", string: "gpslocd-" + ProductVersion.current)
            json.add("rev", string: ProductVersion.current)
            json.add("proto_major", integer: GPSDSession.protocolVersion.major)
            json.add("proto_minor", integer: GPSDSession.protocolVersion.minor)
        }
        return line + [13, 10]
    }

    /// gpsd's ERROR report saying `message`, a CRLF line.
    static func error(_ message: String) -> [UInt8] {
        var line: [UInt8] = []
        JSONObjectWriter.append(to: &line, estimate: 256) { json in
            json.add("class", string: "ERROR")
            json.add("message", string: message)
        }
        return line + [13, 10]
    }
}

/// gpsd's commands: each ends with `;` or a line's end, and is at most ``limit`` bytes; a longer
/// one is refused and the connection closed. Commands of white space alone are dropped.
struct GPSDCommandFramer: RequestFramer {
    /// The longest command taken: gpsd reads its clients' commands in buffers of this size.
    static let limit = 1024

    private var pending: [UInt8] = []

    mutating func append(_ bytes: ByteBufferView) -> Result<[[UInt8]], FramingRefusal> {
        var commands: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: ";") || byte == 10 {
                if !pending.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { commands.append(pending) }
                pending.removeAll(keepingCapacity: true)
                continue
            }
            pending.append(byte)
            if pending.count > Self.limit {
                return .failure(
                    FramingRefusal(message: "request over \(Self.limit) bytes; the connection is closed"))
            }
        }
        return .success(commands)
    }
}
