// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The two-letter talker of a sentence (`GP` in `$GPGGA`), or `P` for proprietary sentences.
public struct Talker: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The two ASCII letters, first in the high byte. A proprietary sentence has `P` and 0.
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(_ first: UInt8, _ second: UInt8) { rawValue = UInt16(first) << 8 | UInt16(second) }

    /// Creates a talker from its two letters, e.g. `Talker("GN")`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 2 else { return nil }
        self.init(bytes[0], bytes[1])
    }

    public static let gps = Talker(UInt8(ascii: "G"), UInt8(ascii: "P"))
    public static let glonass = Talker(UInt8(ascii: "G"), UInt8(ascii: "L"))
    public static let galileo = Talker(UInt8(ascii: "G"), UInt8(ascii: "A"))
    public static let beidou = Talker(UInt8(ascii: "G"), UInt8(ascii: "B"))
    public static let beidouLegacy = Talker(UInt8(ascii: "B"), UInt8(ascii: "D"))
    public static let qzss = Talker(UInt8(ascii: "G"), UInt8(ascii: "Q"))
    public static let qzssLegacy = Talker(UInt8(ascii: "Q"), UInt8(ascii: "Z"))
    public static let qzssQuectel = Talker(UInt8(ascii: "P"), UInt8(ascii: "Q"))
    public static let navic = Talker(UInt8(ascii: "G"), UInt8(ascii: "I"))
    /// Combined solution from several systems.
    public static let gnss = Talker(UInt8(ascii: "G"), UInt8(ascii: "N"))
    /// Proprietary sentences (`$PGRME`, `$PUBX`, …).
    public static let proprietary = Talker(UInt8(ascii: "P"), 0)

    /// The constellation this talker speaks for; `nil` for `GN` (several), marine and other talkers.
    public var constellation: Constellation? {
        switch self {
        case .gps: .gps
        case .glonass: .glonass
        case .galileo: .galileo
        case .beidou, .beidouLegacy: .beidou
        case .qzss, .qzssLegacy, .qzssQuectel: .qzss
        case .navic: .navic
        default: nil
        }
    }

    /// Whether the sentence is proprietary (`$P…`).
    public var isProprietary: Bool { self == .proprietary }

    public var description: String {
        let second = UInt8(truncatingIfNeeded: rawValue)
        let first = UInt8(truncatingIfNeeded: rawValue >> 8)
        return second == 0 ? String(UnicodeScalar(first)) : String(decoding: [first, second], as: UTF8.self)
    }

    func appendASCII(to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: rawValue >> 8))
        let second = UInt8(truncatingIfNeeded: rawValue)
        if second != 0 { out.append(second) }
    }
}

/// A single-letter field (status, mode indicator, unit) kept as the byte that was sent, so that a
/// letter this library does not know is still data rather than an error.
public struct NMEALetter: RawRepresentable, Sendable, Hashable, BitwiseCopyable, CustomStringConvertible,
    ExpressibleByUnicodeScalarLiteral
{
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(unicodeScalarLiteral value: Unicode.Scalar) {
        rawValue = UInt8(truncatingIfNeeded: value.value)
    }
    public var description: String { String(UnicodeScalar(rawValue)) }
}

/// An FAA mode indicator (NMEA 2.3+): `A` autonomous, `D` differential, `E` estimated (dead
/// reckoning), `F` float RTK, `M` manual, `N` not valid, `P` precise, `R` RTK fixed, `S` simulator.
public typealias FAAMode = NMEALetter

extension NMEALetter {
    public static let autonomous: NMEALetter = "A"
    public static let differential: NMEALetter = "D"
    public static let estimated: NMEALetter = "E"
    public static let floatRTK: NMEALetter = "F"
    public static let manual: NMEALetter = "M"
    public static let notValid: NMEALetter = "N"
    public static let precise: NMEALetter = "P"
    public static let fixedRTK: NMEALetter = "R"
    public static let simulator: NMEALetter = "S"
    /// RMC/GLL status `A`: data valid.
    public static let valid: NMEALetter = "A"
    /// RMC/GLL status `V`: data invalid (warning).
    public static let invalid: NMEALetter = "V"
}
