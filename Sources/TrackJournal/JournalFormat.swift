// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CZlib
import Crypto
import FoundationEssentials
import GNSSSources

/// The track journal's file format: a directory of segments, `segment-NNNNNNNNNNNNNNNNNNNN.ocj`,
/// numbered from 1, each readable only with the recipient's private key.
///
/// A segment starts with an 88-byte header in the clear: `OCLJ`, the format's version (2) and the
/// header's size (16 bits each, little-endian), the segment's number and its creation time
/// (nanoseconds since 1970; 64 bits each), the first 8 bytes of the SHA-256 of the recipient's
/// public key, the journal's identity (16 random bytes, fixed when the journal is made and
/// carried by each of its segments), the HPKE encapsulated key (32 bytes), and the CRC-32 of the
/// bytes before it and 4 zero bytes. HPKE (RFC 9180, base mode, X25519, HKDF-SHA256,
/// ChaCha20-Poly1305), with the header's bytes before the encapsulated key as its `info`, gives
/// the segment a key from its export interface; the box keeps it in memory only while the
/// segment is open, so it cannot read its own history. Version 1's header (72 bytes, without the
/// journal's identity) is still read.
///
/// Each record is then a frame: its sealed length and the CRC-32 of the sealed bytes (32 bits
/// each), and the record sealed on its own with ChaCha20-Poly1305 under that key, its nonce the
/// record's counter in the segment (from 0), the whole header its associated data. Overhead per
/// record: 8 bytes of frame, 1 of kind, 16 of tag. The CRC lets the box find where a write was torn
/// without the key; the tag, the counter and the header let the recipient see any change, any
/// reordering and any record moved from another segment or another journal. A segment's first
/// record says what came before it; a segment closed on purpose ends with a final record that
/// counts its records.
public enum JournalFormat {
    public static let magic: [UInt8] = LogFormat.trackJournalMagic
    public static let version: UInt16 = 2
    /// The header's size in the version written (88) and in version 1 (72).
    public static let headerSize = 88
    public static let headerSizeVersion1 = 72
    /// The journal's identity in each segment's header.
    public static let journalIDSize = 16
    public static let frameSize = 8
    /// The smallest frame: its 8 bytes, a record's kind, the tag.
    public static let minimumFrame = frameSize + 1 + tagSize
    public static let tagSize = 16
    /// A sealed record longer than this is no record: the length field was torn or altered.
    public static let maximumSealed = 1 << 20
    static let exportContext = Array("OpenCoreLocation journal records".utf8)
    public static var ciphersuite: HPKE.Ciphersuite { .Curve25519_SHA256_ChachaPoly }

    /// A segment's file name for its number.
    public static func fileName(segment: UInt64) -> String {
        let digits = String(segment)
        return "segment-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".ocj"
    }

    /// The number a segment file's name gives, `nil` for any other file.
    public static func segmentNumber(fileName: String) -> UInt64? {
        guard fileName.hasPrefix("segment-"), fileName.hasSuffix(".ocj") else { return nil }
        return UInt64(fileName.dropFirst(8).dropLast(4))
    }

    /// The first 8 bytes of the SHA-256 of a public key: names the key a journal is sealed to.
    public static func keyID(_ key: Curve25519.KeyAgreement.PublicKey) -> [UInt8] {
        Array(SHA256.hash(data: key.rawRepresentation).prefix(8))
    }

    /// `bytes` in lowercase hexadecimal, two digits a byte: how a key's or a journal's identity
    /// is written.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes a ``hex(_:)`` text stands for; `nil` for any other text.
    public static func bytes(hex text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let high = value(characters[index]), let low = value(characters[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// zlib's CRC-32 of `bytes`, read in place (an array or a slice of one: no copy per record).
    static func crc32(_ bytes: some Collection<UInt8>) -> UInt32 {
        let direct = bytes.withContiguousStorageIfAvailable { buffer in
            UInt32(CZlib.crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
        return direct ?? crc32(Array(bytes))
    }

    /// The nonce of record `counter`: 4 zero bytes, then the counter, little-endian.
    static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[4 + index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(index))) }
        return try! ChaChaPoly.Nonce(data: bytes)  // 12 bytes: always a valid nonce
    }
}

/// Where a record is: its segment and its counter there.
public struct JournalPosition: Sendable, Hashable, Comparable {
    public var segment: UInt64
    public var counter: UInt64

    public init(segment: UInt64, counter: UInt64) {
        self.segment = segment
        self.counter = counter
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.segment, a.counter) < (b.segment, b.counter)
    }
}

/// A segment's header.
public struct JournalHeader: Sendable, Hashable {
    public var segment: UInt64
    public var created: Int64
    public var keyID: [UInt8]
    /// The journal the segment belongs to (16 bytes); `nil` in a version-1 segment, which says
    /// nothing of it.
    public var journal: [UInt8]?
    public var encapsulatedKey: [UInt8]

    /// The header's size: 88 bytes, 72 in version 1.
    public var size: Int { journal == nil ? JournalFormat.headerSizeVersion1 : JournalFormat.headerSize }

    /// The header's bytes.
    public var bytes: [UInt8] {
        var out = JournalFormat.magic
        out.appendLittleEndian(journal == nil ? UInt16(1) : JournalFormat.version)
        out.appendLittleEndian(UInt16(size))
        out.appendLittleEndian(segment)
        out.appendLittleEndian(UInt64(bitPattern: created))
        out += keyID
        if let journal { out += journal }
        out += encapsulatedKey
        out.appendLittleEndian(JournalFormat.crc32(out))
        out += [0, 0, 0, 0]
        return out
    }

    /// HPKE's `info`: the header before the encapsulated key.
    var info: [UInt8] { Array(bytes.prefix(size - 40)) }

    /// Reads a header (version 2, or 1); `nil` when the bytes are not one (wrong magic, version,
    /// size or CRC).
    public init?(_ bytes: some Collection<UInt8>) {
        let b = Array(bytes.prefix(JournalFormat.headerSize))
        guard b.count >= JournalFormat.headerSizeVersion1, Array(b[0..<4]) == JournalFormat.magic else {
            return nil
        }
        let version = b.littleEndian(UInt16.self, at: 4)
        let size = version == 1 ? JournalFormat.headerSizeVersion1 : JournalFormat.headerSize
        guard version == 1 || version == JournalFormat.version, b.count >= size,
            b.littleEndian(UInt16.self, at: 6) == UInt16(size),
            b.littleEndian(UInt32.self, at: size - 8) == JournalFormat.crc32(b[0..<(size - 8)]),
            b[(size - 4)..<size].allSatisfy({ $0 == 0 })
        else { return nil }
        segment = b.littleEndian(UInt64.self, at: 8)
        created = Int64(bitPattern: b.littleEndian(UInt64.self, at: 16))
        keyID = Array(b[24..<32])
        journal = version == 1 ? nil : Array(b[32..<48])
        encapsulatedKey = Array(b[(size - 40)..<(size - 8)])
    }

    init(segment: UInt64, created: Int64, keyID: [UInt8], journal: [UInt8], encapsulatedKey: [UInt8]) {
        self.segment = segment
        self.created = created
        self.keyID = keyID
        self.journal = journal
        self.encapsulatedKey = encapsulatedKey
    }
}

/// What a record holds, once opened.
public enum JournalRecord: Sendable, Hashable {
    /// A segment's first record: what came before it.
    case opening(Opening)
    /// A location update, as the recorder's app received it.
    case location(JournalLocation)
    /// NMEA sentences as the receiver sent them (CRLF-ended lines).
    case nmea([UInt8])
    /// Records the recorder could not write (a full disk), and the time they span.
    case gap(lost: UInt64, from: Int64, to: Int64)
    /// A segment's last record, when it was closed on purpose: its number of records, this one
    /// included.
    case final(records: UInt64, reason: FinalReason)
    /// A message kept to be sent (an uplink's outbox).
    case message([UInt8])

    public enum FinalReason: UInt8, Sendable, Hashable {
        case size = 1, age = 2, stopped = 3
    }

    /// What a segment's first record says of the journal before it.
    public struct Opening: Sendable, Hashable {
        /// The segment before this one (0: none), and what the recorder found of it on opening.
        public var previous: UInt64
        public var previousFrames: UInt64
        /// The byte at which the previous segment was cut after a torn write (0: it was whole).
        public var previousCutAt: UInt64
        /// The oldest segment kept: those before it were removed by the journal's size cap.
        public var oldestKept: UInt64

        public init(previous: UInt64, previousFrames: UInt64, previousCutAt: UInt64, oldestKept: UInt64) {
            self.previous = previous
            self.previousFrames = previousFrames
            self.previousCutAt = previousCutAt
            self.oldestKept = oldestKept
        }
    }

    /// The record's plaintext: its kind, then its fields, little-endian.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .opening(let opening):
            out.append(1)
            for value in [
                opening.previous, opening.previousFrames, opening.previousCutAt, opening.oldestKept,
            ] {
                out.appendLittleEndian(value)
            }
        case .location(let location):
            out.append(2)
            location.append(to: &out)
        case .nmea(let bytes):
            out.append(3)
            out += bytes
        case .gap(let lost, let from, let to):
            out.append(4)
            out.appendLittleEndian(lost)
            out.appendLittleEndian(UInt64(bitPattern: from))
            out.appendLittleEndian(UInt64(bitPattern: to))
        case .final(let records, let reason):
            out.append(5)
            out.appendLittleEndian(records)
            out.append(reason.rawValue)
        case .message(let bytes):
            out.append(6)
            out += bytes
        }
        return out
    }

    /// Reads a record's plaintext; `nil` when it is not one (which an authentic record never is).
    public init?(_ bytes: [UInt8]) {
        guard let kind = bytes.first else { return nil }
        let body = Array(bytes.dropFirst())
        switch kind {
        case 1 where body.count == 32:
            self = .opening(
                Opening(
                    previous: body.littleEndian(UInt64.self, at: 0),
                    previousFrames: body.littleEndian(UInt64.self, at: 8),
                    previousCutAt: body.littleEndian(UInt64.self, at: 16),
                    oldestKept: body.littleEndian(UInt64.self, at: 24)))
        case 2:
            guard let location = JournalLocation(body) else { return nil }
            self = .location(location)
        case 3:
            self = .nmea(body)
        case 4 where body.count == 24:
            self = .gap(
                lost: body.littleEndian(UInt64.self, at: 0),
                from: Int64(bitPattern: body.littleEndian(UInt64.self, at: 8)),
                to: Int64(bitPattern: body.littleEndian(UInt64.self, at: 16)))
        case 5 where body.count == 9:
            guard let reason = FinalReason(rawValue: body[8]) else { return nil }
            self = .final(records: body.littleEndian(UInt64.self, at: 0), reason: reason)
        case 6:
            self = .message(body)
        default:
            return nil
        }
    }
}

/// A location as a journal keeps it: 54 bytes. Values that are not known are −1 (accuracies,
/// speed, course), as Core Location says them.
public struct JournalLocation: Sendable, Hashable {
    /// Seconds since 1970.
    public var time: Double
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Float
    public var altitude: Float
    public var verticalAccuracy: Float
    public var speed: Float
    public var speedAccuracy: Float
    public var course: Float
    public var courseAccuracy: Float
    /// Bit 0: reduced accuracy (`accuracyLimited`); bit 1: simulated by software; bit 2: produced
    /// by an accessory.
    public var flags: UInt16

    public var isReduced: Bool { flags & 1 != 0 }

    public init(
        time: Double, latitude: Double, longitude: Double, horizontalAccuracy: Float, altitude: Float,
        verticalAccuracy: Float, speed: Float, speedAccuracy: Float, course: Float, courseAccuracy: Float,
        flags: UInt16
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.flags = flags
    }

    func append(to out: inout [UInt8]) {
        for value in [time, latitude, longitude] { out.appendLittleEndian(value.bitPattern) }
        for value in [
            horizontalAccuracy, altitude, verticalAccuracy, speed, speedAccuracy, course, courseAccuracy,
        ] {
            out.appendLittleEndian(value.bitPattern)
        }
        out.appendLittleEndian(flags)
    }

    init?(_ body: [UInt8]) {
        guard body.count == 54 else { return nil }
        time = Double(bitPattern: body.littleEndian(UInt64.self, at: 0))
        latitude = Double(bitPattern: body.littleEndian(UInt64.self, at: 8))
        longitude = Double(bitPattern: body.littleEndian(UInt64.self, at: 16))
        let floats = (0..<7).map { Float(bitPattern: body.littleEndian(UInt32.self, at: 24 + 4 * $0)) }
        (horizontalAccuracy, altitude, verticalAccuracy) = (floats[0], floats[1], floats[2])
        (speed, speedAccuracy, course, courseAccuracy) = (floats[3], floats[4], floats[5], floats[6])
        flags = body.littleEndian(UInt16.self, at: 52)
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        for index in 0..<(T.bitWidth / 8) { value |= T(self[offset + index]) << (8 * index) }
        return value
    }
}
