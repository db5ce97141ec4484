// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Why a sentence body could not be parsed at all.
public enum NMEAParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address (`GPGGA`) is missing, too short, or not letters and digits.
    case malformedAddress

    public var description: String {
        switch self {
        case .malformedAddress: "the address after '$' is not a talker and sentence type"
        }
    }
}

/// One parsed NMEA 0183 sentence.
///
/// Standard sentences become typed values without a heap allocation; proprietary and unknown
/// sentences are passed through with their raw fields rather than treated as errors.
public enum NMEASentence: Sendable, Hashable {
    case rmc(RMC)
    case gga(GGA)
    case gsa(GSA)
    case gsv(GSV)
    case vtg(VTG)
    case gll(GLL)
    case gns(GNS)
    case gst(GST)
    case zda(ZDA)
    case gbs(GBS)
    case hdt(HDT)
    case txt(TXT)
    case dtm(DTM)
    case ths(THS)
    case pgrme(PGRME)
    case pgrmz(PGRMZ)
    /// A proprietary sentence this library does not read into a type of its own.
    case proprietary(ProprietarySentence)
    case unknown(UnknownSentence)

    /// Parses a sentence body: the bytes between the start character and the `*` of the
    /// checksum, e.g. `GPGGA,123519,4807.038,N,…`. Checksums are the framer's business.
    public static func parse(
        body: UnsafeBufferPointer<UInt8>, start: UInt8 = UInt8(ascii: "$")
    ) throws(NMEAParseError) -> NMEASentence {
        var collector = Collector()
        try parse(body: body, start: start, into: &collector)
        return collector.sentence!
    }

    /// Parses a sentence body and hands the typed value to `visitor`, without wrapping it in an
    /// `NMEASentence`.
    ///
    /// Inlinable, so that the visitor's methods for GSV and GSA, most of a stream, are called
    /// directly (and inlined) in the caller's module rather than through its witness table.
    @inlinable
    public static func parse(
        body: UnsafeBufferPointer<UInt8>, start: UInt8 = UInt8(ascii: "$"),
        into visitor: inout some NMEASentenceVisitor
    ) throws(NMEAParseError) {
        // GSV and GSA are most of a multi-constellation stream; as receivers write them, they are
        // read without splitting them into fields first, into a value copied from a constant
        // (only for an address that ends in `GSV` or `GSA`: the copy is not free).
        if start == UInt8(ascii: "$"), body.count > 5, body[2] == UInt8(ascii: "G"),
            body[3] == UInt8(ascii: "S")
        {
            if body[4] == UInt8(ascii: "V") {
                var gsv = GSV.blank
                if GSV.readStandardLayout(body, into: &gsv) {
                    visitor.visit(gsv)
                    return
                }
            } else if body[4] == UInt8(ascii: "A") {
                var gsa = GSA.blank
                if GSA.readStandardLayout(body, into: &gsa) {
                    visitor.visit(gsa)
                    return
                }
            }
        }
        try parseByFields(body: body, start: start, into: &visitor)
    }

    /// Parses a sentence body field by field and hands the typed value to `visitor`.
    @usableFromInline
    static func parseByFields(
        body: UnsafeBufferPointer<UInt8>, start: UInt8, into visitor: inout some NMEASentenceVisitor
    ) throws(NMEAParseError) {
        let parsed = Fields.withFields(body) { fields in parse(fields, start: start, into: &visitor) }
        guard parsed else { throw .malformedAddress }
    }

    /// Keeps the one sentence it is given.
    private struct Collector: NMEASentenceVisitor {
        var sentence: NMEASentence?
        mutating func visit(_ sentence: NMEASentence) { self.sentence = sentence }
    }

    /// Hands the sentence to `visitor`; `false` when its address is malformed.
    private static func parse<Visitor: NMEASentenceVisitor>(
        _ fields: borrowing Fields, start: UInt8, into visitor: inout Visitor
    ) -> Bool {
        let address = fields[0]
        guard address.count >= 2 else { return false }
        for byte in address {
            let isUpper = byte &- UInt8(ascii: "A") < 26
            let isDigit = byte &- UInt8(ascii: "0") < 10
            let isLower = byte &- UInt8(ascii: "a") < 26
            guard isUpper || isDigit || isLower else { return false }
        }
        let first = address[0]
        if first == UInt8(ascii: "P") && start == UInt8(ascii: "$") && !isQuectelTalker(address) {
            if let type = NMEASentenceType.proprietary(address: address) {
                type.read(fields, talker: .proprietary, into: &visitor)
            } else {
                visitor.visit(
                    .proprietary(
                        ProprietarySentence(
                            address: String(decoding: address, as: UTF8.self), fields: rawFields(fields))))
            }
            return true
        }
        guard address.count >= 3 else { return false }
        let talker = Talker(address[0], address[1])
        if address.count == 5 && start == UInt8(ascii: "$") {
            let code = UInt32(address[2]) << 16 | UInt32(address[3]) << 8 | UInt32(address[4])
            if let type = NMEASentenceType.standard(code: code) {
                type.read(fields, talker: talker, into: &visitor)
                return true
            }
        }
        visitor.visit(.unknown(unknownSentence(fields, start: start, talker: talker)))
        return true
    }

    private static func unknownSentence(_ fields: borrowing Fields, start: UInt8, talker: Talker)
        -> UnknownSentence
    {
        let address = fields[0]
        return UnknownSentence(
            start: start, talker: talker,
            type: String(decoding: UnsafeBufferPointer(rebasing: address[2...]), as: UTF8.self),
            fields: rawFields(fields))
    }

    /// Parses a whole sentence given as text, `$GPGGA,…*hh` (the checksum, if any, is not checked
    /// here; frame bytes with ``NMEAFramer`` to have it checked).
    public static func parse(_ sentence: String) throws(NMEAParseError) -> NMEASentence {
        var bytes = Array(sentence.utf8)
        while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
        var start = UInt8(ascii: "$")
        if let first = bytes.first, first == UInt8(ascii: "$") || first == UInt8(ascii: "!") {
            start = first
            bytes.removeFirst()
        }
        if let star = bytes.lastIndex(of: UInt8(ascii: "*")) { bytes.removeSubrange(star...) }
        let startByte = start
        let result: Result<NMEASentence, NMEAParseError> = bytes.withUnsafeBufferPointer { body in
            do throws(NMEAParseError) {
                return .success(try parse(body: body, start: startByte))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The typed value of a sentence the catalogue lists; `nil` for proprietary and unknown ones.
    public var typed: (any TypedSentence)? {
        switch self {
        case .rmc(let s): s
        case .gga(let s): s
        case .gsa(let s): s
        case .gsv(let s): s
        case .vtg(let s): s
        case .gll(let s): s
        case .gns(let s): s
        case .gst(let s): s
        case .zda(let s): s
        case .gbs(let s): s
        case .hdt(let s): s
        case .txt(let s): s
        case .dtm(let s): s
        case .ths(let s): s
        case .pgrme(let s): s
        case .pgrmz(let s): s
        case .proprietary, .unknown: nil
        }
    }

    /// The sentence's entry in the catalogue; `nil` for proprietary and unknown ones it lacks.
    public var sentenceType: NMEASentenceType? { typed.map { Swift.type(of: $0).sentenceType } }

    /// The three-letter type (`"GGA"`), or the whole address for proprietary sentences.
    public var type: String {
        switch self {
        case .proprietary(let sentence): sentence.address
        case .unknown(let sentence): sentence.type
        default: sentenceType!.name
        }
    }

    /// The talker; ``Talker/proprietary`` for `$P…` sentences.
    public var talker: Talker {
        switch self {
        case .proprietary: .proprietary
        case .unknown(let s): s.talker
        default: typed!.talker
        }
    }

    /// The sentence as bytes, `$` to `\r\n`, with a correct checksum.
    public func encoded() -> [UInt8] {
        switch self {
        case .proprietary(let s):
            var writer = NMEAWriter(talker: .proprietary, type: String(s.address.dropFirst()))
            for field in s.fields { writer.field(field) }
            return writer.finish()
        case .unknown(let s):
            var writer = NMEAWriter(start: s.start, talker: s.talker, type: s.type)
            for field in s.fields { writer.field(field) }
            return writer.finish()
        default:
            return typed!.encoded()
        }
    }
}

@inline(__always)
private func sentenceCode(_ type: StaticString) -> UInt32 {
    let pointer = type.utf8Start
    return UInt32(pointer[0]) << 16 | UInt32(pointer[1]) << 8 | UInt32(pointer[2])
}

/// Quectel receivers use the talker `PQ` for QZSS: `$PQGSV`, `$PQGSA` are standard sentences.
private func isQuectelTalker(_ address: UnsafeBufferPointer<UInt8>) -> Bool {
    guard address.count == 5, address[1] == UInt8(ascii: "Q") else { return false }
    let code = UInt32(address[2]) << 16 | UInt32(address[3]) << 8 | UInt32(address[4])
    return code == sentenceCode("GSV") || code == sentenceCode("GSA") || code == sentenceCode("RMC")
        || code == sentenceCode("GGA")
}

private func rawFields(_ fields: borrowing Fields) -> [String] {
    // Split the body itself: proprietary sentences may have more fields than `Fields` indexes.
    var result: [String] = []
    var start = 0
    var seenAddress = false
    let body = fields.body
    for index in 0...body.count where index == body.count || body[index] == UInt8(ascii: ",") {
        if seenAddress {
            result.append(String(decoding: UnsafeBufferPointer(rebasing: body[start..<index]), as: UTF8.self))
        }
        seenAddress = true
        start = index + 1
    }
    return result
}

/// Receives each parsed sentence as its typed value (``NMEASentence/parse(body:start:into:)``,
/// ``FramedSentence/parse(into:)``).
///
/// A decoder that treats each sentence type on its own implements the methods for the types it
/// wants and so never copies a sentence into and out of an `NMEASentence`. Every typed method
/// defaults to wrapping the value and calling ``visit(_:)-(NMEASentence)``, which also receives
/// proprietary and unknown sentences.
public protocol NMEASentenceVisitor {
    /// A sentence without a method of its own in this visitor.
    mutating func visit(_ sentence: NMEASentence)
    mutating func visit(_ rmc: RMC)
    mutating func visit(_ gga: GGA)
    mutating func visit(_ gsa: GSA)
    mutating func visit(_ gsv: GSV)
    mutating func visit(_ vtg: VTG)
    mutating func visit(_ gll: GLL)
    mutating func visit(_ gns: GNS)
    mutating func visit(_ gst: GST)
    mutating func visit(_ zda: ZDA)
    mutating func visit(_ gbs: GBS)
    mutating func visit(_ hdt: HDT)
    mutating func visit(_ txt: TXT)
    mutating func visit(_ dtm: DTM)
    mutating func visit(_ ths: THS)
    mutating func visit(_ pgrme: PGRME)
    mutating func visit(_ pgrmz: PGRMZ)
}

extension NMEASentenceVisitor {
    public mutating func visit(_ rmc: RMC) { visit(NMEASentence.rmc(rmc)) }
    public mutating func visit(_ gga: GGA) { visit(NMEASentence.gga(gga)) }
    public mutating func visit(_ gsa: GSA) { visit(NMEASentence.gsa(gsa)) }
    public mutating func visit(_ gsv: GSV) { visit(NMEASentence.gsv(gsv)) }
    public mutating func visit(_ vtg: VTG) { visit(NMEASentence.vtg(vtg)) }
    public mutating func visit(_ gll: GLL) { visit(NMEASentence.gll(gll)) }
    public mutating func visit(_ gns: GNS) { visit(NMEASentence.gns(gns)) }
    public mutating func visit(_ gst: GST) { visit(NMEASentence.gst(gst)) }
    public mutating func visit(_ zda: ZDA) { visit(NMEASentence.zda(zda)) }
    public mutating func visit(_ gbs: GBS) { visit(NMEASentence.gbs(gbs)) }
    public mutating func visit(_ hdt: HDT) { visit(NMEASentence.hdt(hdt)) }
    public mutating func visit(_ txt: TXT) { visit(NMEASentence.txt(txt)) }
    public mutating func visit(_ dtm: DTM) { visit(NMEASentence.dtm(dtm)) }
    public mutating func visit(_ ths: THS) { visit(NMEASentence.ths(ths)) }
    public mutating func visit(_ pgrme: PGRME) { visit(NMEASentence.pgrme(pgrme)) }
    public mutating func visit(_ pgrmz: PGRMZ) { visit(NMEASentence.pgrmz(pgrmz)) }
}
