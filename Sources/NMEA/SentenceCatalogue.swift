// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The sentence types this library reads into typed values, declared once.
///
/// Everything that goes by sentence type follows this list: parsing finds a type by its
/// address and reads it into its struct (`read(_:talker:into:)`, the one place a case is tied
/// to its struct), ``NMEASentence`` gives its type, talker and bytes through it, a decoder's
/// counts have a slot per case, and the fix assembler knows sentences by it. Adding a type is
/// its struct (conforming to ``TypedSentence``), a case here with its struct in `read`, a case of
/// ``NMEASentence`` with its method in ``NMEASentenceVisitor``, and its rule in the assembler;
/// the compiler points at each place a new case is still missing. A standard type's three
/// letters also go in `standard(code:)`, which the catalogue's test of every type checks.
public enum NMEASentenceType: UInt8, CaseIterable, Sendable, Hashable {
    case rmc, gga, gsa, gsv, vtg, gll, gns, gst, zda, gbs, hdt, txt, dtm, ths
    /// Garmin's proprietary sentences that carry fix data.
    case pgrme, pgrmz

    /// How the type is named: the three letters of a standard sentence (`"GGA"`), the whole
    /// address of a proprietary one (`"PGRME"`).
    public var name: String { Self.names[Int(rawValue)] }

    /// Whether the type is proprietary: its address is `P` and the manufacturer's letters, with
    /// no talker.
    public var isProprietary: Bool { name.utf8.first == UInt8(ascii: "P") }

    /// What follows the talker in the address: the name, less the `P` of a proprietary one.
    var addressAfterTalker: String { isProprietary ? String(name.dropFirst()) : name }

    /// The case names in capitals. (The type is deliberately not `CustomStringConvertible`:
    /// `String(describing:)` gives the case's own name.)
    private static let names: [String] = allCases.map { String(describing: $0).uppercased() }

    /// The standard type whose three letters, first in the high byte, are `code`. A switch of
    /// constants rather than a table built from ``name``: a table is a lazily made global, checked
    /// on every read, and this runs for every sentence read field by field. The catalogue's tests
    /// read a sample of every case by its address.
    @inline(__always)
    static func standard(code: UInt32) -> NMEASentenceType? {
        func letters(_ text: StaticString) -> UInt32 {
            let bytes = text.utf8Start
            return UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2])
        }
        switch code {
        case letters("GSV"): return .gsv
        case letters("GSA"): return .gsa
        case letters("GGA"): return .gga
        case letters("RMC"): return .rmc
        case letters("VTG"): return .vtg
        case letters("GLL"): return .gll
        case letters("GNS"): return .gns
        case letters("GST"): return .gst
        case letters("ZDA"): return .zda
        case letters("GBS"): return .gbs
        case letters("HDT"): return .hdt
        case letters("TXT"): return .txt
        case letters("DTM"): return .dtm
        case letters("THS"): return .ths
        default: return nil
        }
    }

    /// The proprietary type with this address (`PGRME`), if it is one this library reads.
    static func proprietary(address: UnsafeBufferPointer<UInt8>) -> NMEASentenceType? {
        guard address.count == 5, address[1] == UInt8(ascii: "G"), address[2] == UInt8(ascii: "R"),
            address[3] == UInt8(ascii: "M")
        else { return nil }
        switch address[4] {
        case UInt8(ascii: "E"): return .pgrme
        case UInt8(ascii: "Z"): return .pgrmz
        default: return nil
        }
    }

    /// Reads `fields` as this type's struct and hands it to `visitor`.
    @inline(__always)
    func read(_ fields: borrowing Fields, talker: Talker, into visitor: inout some NMEASentenceVisitor) {
        switch self {
        case .rmc: visitor.visit(RMC(talker: talker, fields: fields))
        case .gga: visitor.visit(GGA(talker: talker, fields: fields))
        case .gsa: visitor.visit(GSA(talker: talker, fields: fields))
        case .gsv: visitor.visit(GSV(talker: talker, fields: fields))
        case .vtg: visitor.visit(VTG(talker: talker, fields: fields))
        case .gll: visitor.visit(GLL(talker: talker, fields: fields))
        case .gns: visitor.visit(GNS(talker: talker, fields: fields))
        case .gst: visitor.visit(GST(talker: talker, fields: fields))
        case .zda: visitor.visit(ZDA(talker: talker, fields: fields))
        case .gbs: visitor.visit(GBS(talker: talker, fields: fields))
        case .hdt: visitor.visit(HDT(talker: talker, fields: fields))
        case .txt: visitor.visit(TXT(talker: talker, fields: fields))
        case .dtm: visitor.visit(DTM(talker: talker, fields: fields))
        case .ths: visitor.visit(THS(talker: talker, fields: fields))
        case .pgrme: visitor.visit(PGRME(fields: fields))
        case .pgrmz: visitor.visit(PGRMZ(fields: fields))
        }
    }
}

/// A sentence type with a fixed field layout that can be parsed and encoded.
public protocol TypedSentence: Sendable, Hashable {
    /// Its entry in the catalogue.
    static var sentenceType: NMEASentenceType { get }
    /// Who sent it (`GP`, `GN`, …); ``Talker/proprietary`` for a proprietary sentence.
    var talker: Talker { get }
    /// Writes the fields after the address.
    func writeFields(to writer: inout NMEAWriter)
}

extension TypedSentence {
    /// The type's name, e.g. `"GGA"`, or `"PGRME"` for a proprietary one.
    public static var type: String { sentenceType.name }

    /// The sentence as bytes, `$` to `\r\n`, with a correct checksum.
    public func encoded() -> [UInt8] {
        var writer = NMEAWriter(talker: talker, type: Self.sentenceType.addressAfterTalker)
        writeFields(to: &writer)
        return writer.finish()
    }
}
