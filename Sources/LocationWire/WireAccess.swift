// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS

/// One entry of a program's use of location, as the daemon keeps it in its access history and
/// tells it to an indicator: a period of use beginning or ending, or a refusal. It holds who (the
/// verified identity and its proof, never a name the program chose), when, through which
/// front-end and how precisely — never a coordinate, nor anything derived from one.
public struct WireAccess: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        /// A period of use began: the program was given its first location of it.
        case begin
        /// The period `id` ended: the program stopped asking, left, or was refused.
        case end
        /// The program asked and got nothing (``reason``).
        case refusal
    }

    /// The front-ends, as the history names them.
    public enum FrontEnd: String, Codable, Sendable, CaseIterable {
        case native
        case gpsd
        case geoclue = "GeoClue2"
    }

    public var kind: Kind
    /// The period's identifier (a begin and its end share it), or the refusal's.
    public var id: String
    /// Seconds since 1970, to the millisecond.
    public var time: Double
    public var uid: UInt32
    /// The app as the daemon knows it (`desktop:org.gnome.Maps`, `/usr/bin/cgps`, …).
    public var app: String
    /// How the kernel's word proved it (``PeerIdentity/proof`` in the daemon).
    public var proof: String
    public var frontEnd: FrontEnd
    /// `true` for precise locations, `false` for approximate ones (a begin).
    public var precise: Bool?
    /// How many locations the period delivered (an end; none when the daemon stopped without
    /// counting them: ``interrupted``).
    public var updates: Int?
    /// The period's end was not seen: the daemon stopped (a crash, a power cut) while it lasted,
    /// and ended it when it started again, at that time.
    public var interrupted: Bool?
    /// Why a refusal: `denied`, `notInUse`, `noUsageDescription`, … (``RefusalReason``).
    public var reason: String?
    /// A refusal in words, as the program's front-end told it or would have.
    public var text: String?

    public init(
        kind: Kind, id: String, time: Double, uid: UInt32, app: String, proof: String, frontEnd: FrontEnd,
        precise: Bool? = nil, updates: Int? = nil, interrupted: Bool? = nil, reason: String? = nil,
        text: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.time = time
        self.uid = uid
        self.app = app
        self.proof = proof
        self.frontEnd = frontEnd
        self.precise = precise
        self.updates = updates
        self.interrupted = interrupted
        self.reason = reason
        self.text = text
    }

    /// The entry as one JSON object (no newline): a line of the history, or the `access` member
    /// of the event that carries it.
    package func write(_ json: inout JSONObjectWriter) {
        json.add("kind", string: kind.rawValue)
        json.add("id", string: id)
        json.add("time", time, decimals: 3)
        json.add("uid", integer: Int(uid))
        json.add("app", string: app)
        json.add("proof", string: proof)
        json.add("frontEnd", string: frontEnd.rawValue)
        if let precise { json.add("precise", bool: precise) }
        json.add("updates", integer: updates)
        if interrupted == true { json.add("interrupted", bool: true) }
        json.add("reason", string: reason)
        json.add("text", string: text)
    }

    /// The entry as one line of the history, `\n` included.
    public func line() -> [UInt8] {
        var bytes: [UInt8] = []
        JSONObjectWriter.append(to: &bytes, estimate: 256) { write(&$0) }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Reads a line of the history (without its newline); `nil` when it is not one (a line
    /// cut off by a power cut, or damage).
    public static func parse(_ line: some Collection<UInt8>) -> WireAccess? {
        guard let first = line.first, first == UInt8(ascii: "{") else { return nil }
        return try? JSONDecoder().decode(WireAccess.self, from: Data(line))
    }
}

/// Why a program got nothing, as the access history names it: one word a tool can count by.
public enum RefusalReason: String, Sendable, CaseIterable {
    /// Its user (or an administrator) denied it.
    case denied
    /// Location services are off.
    case servicesOff
    /// An administrator restricted it.
    case restricted
    /// Authorized while in use, and not in use.
    case notInUse
    /// Not decided yet, and waiting for its user's answer.
    case undecided
    /// Not decided, and it cannot be asked: no usage description.
    case noUsageDescription
    /// Its requests need a service session it did not open.
    case sessionRequired
    /// A client on the network, which no decision covers.
    case networkClient
    /// It runs in a sandbox that may not do what it asked.
    case sandboxed
    /// Anything else its front-end refused, said in ``WireAccess/text``.
    case other
}
