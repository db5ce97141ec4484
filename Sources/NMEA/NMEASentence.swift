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
    case proprietary(ProprietarySentence)
    case unknown(UnknownSentence)

    /// Parses a sentence body: the bytes between the start character and the `*` of the
    /// checksum, e.g. `GPGGA,123519,4807.038,N,…`. Checksums are the framer's business.
    public static func parse(
        body: UnsafeBufferPointer<UInt8>, start: UInt8 = UInt8(ascii: "$")
    ) throws(NMEAParseError) -> NMEASentence {
        guard let sentence = Fields.withFields(body, { parse($0, start: start) }) else {
            throw .malformedAddress
        }
        return sentence
    }

    /// The sentence, or `nil` when its address is malformed.
    private static func parse(_ fields: borrowing Fields, start: UInt8) -> NMEASentence? {
        let address = fields[0]
        guard address.count >= 2 else { return nil }
        for byte in address {
            let isUpper = byte &- UInt8(ascii: "A") < 26
            let isDigit = byte &- UInt8(ascii: "0") < 10
            let isLower = byte &- UInt8(ascii: "a") < 26
            guard isUpper || isDigit || isLower else { return nil }
        }
        let first = address[0]
        if first == UInt8(ascii: "P") && start == UInt8(ascii: "$") && !isQuectelTalker(address) {
            return .proprietary(
                ProprietarySentence(
                    address: String(decoding: address, as: UTF8.self), fields: rawFields(fields)))
        }
        guard address.count >= 3 else { return nil }
        let talker = Talker(address[0], address[1])
        if address.count == 5 && start == UInt8(ascii: "$") {
            let code = UInt32(address[2]) << 16 | UInt32(address[3]) << 8 | UInt32(address[4])
            switch code {
            case sentenceCode("RMC"): return .rmc(RMC(talker: talker, fields: fields))
            case sentenceCode("GGA"): return .gga(GGA(talker: talker, fields: fields))
            case sentenceCode("GSA"): return .gsa(GSA(talker: talker, fields: fields))
            case sentenceCode("GSV"): return .gsv(GSV(talker: talker, fields: fields))
            case sentenceCode("VTG"): return .vtg(VTG(talker: talker, fields: fields))
            case sentenceCode("GLL"): return .gll(GLL(talker: talker, fields: fields))
            case sentenceCode("GNS"): return .gns(GNS(talker: talker, fields: fields))
            case sentenceCode("GST"): return .gst(GST(talker: talker, fields: fields))
            case sentenceCode("ZDA"): return .zda(ZDA(talker: talker, fields: fields))
            case sentenceCode("GBS"): return .gbs(GBS(talker: talker, fields: fields))
            case sentenceCode("HDT"): return .hdt(HDT(talker: talker, fields: fields))
            case sentenceCode("TXT"): return .txt(TXT(talker: talker, fields: fields))
            case sentenceCode("DTM"): return .dtm(DTM(talker: talker, fields: fields))
            default: break
            }
        }
        return .unknown(
            UnknownSentence(
                start: start, talker: talker,
                type: String(decoding: UnsafeBufferPointer(rebasing: address[2...]), as: UTF8.self),
                fields: rawFields(fields)))
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

    /// The three-letter type (`"GGA"`), or the whole address for proprietary sentences.
    public var type: String {
        switch self {
        case .rmc: RMC.type
        case .gga: GGA.type
        case .gsa: GSA.type
        case .gsv: GSV.type
        case .vtg: VTG.type
        case .gll: GLL.type
        case .gns: GNS.type
        case .gst: GST.type
        case .zda: ZDA.type
        case .gbs: GBS.type
        case .hdt: HDT.type
        case .txt: TXT.type
        case .dtm: DTM.type
        case .proprietary(let sentence): sentence.address
        case .unknown(let sentence): sentence.type
        }
    }

    /// The talker; ``Talker/proprietary`` for `$P…` sentences.
    public var talker: Talker {
        switch self {
        case .rmc(let s): s.talker
        case .gga(let s): s.talker
        case .gsa(let s): s.talker
        case .gsv(let s): s.talker
        case .vtg(let s): s.talker
        case .gll(let s): s.talker
        case .gns(let s): s.talker
        case .gst(let s): s.talker
        case .zda(let s): s.talker
        case .gbs(let s): s.talker
        case .hdt(let s): s.talker
        case .txt(let s): s.talker
        case .dtm(let s): s.talker
        case .proprietary: .proprietary
        case .unknown(let s): s.talker
        }
    }

    /// The sentence as bytes, `$` to `\r\n`, with a correct checksum.
    public func encoded() -> [UInt8] {
        switch self {
        case .rmc(let s): return s.encoded()
        case .gga(let s): return s.encoded()
        case .gsa(let s): return s.encoded()
        case .gsv(let s): return s.encoded()
        case .vtg(let s): return s.encoded()
        case .gll(let s): return s.encoded()
        case .gns(let s): return s.encoded()
        case .gst(let s): return s.encoded()
        case .zda(let s): return s.encoded()
        case .gbs(let s): return s.encoded()
        case .hdt(let s): return s.encoded()
        case .txt(let s): return s.encoded()
        case .dtm(let s): return s.encoded()
        case .proprietary(let s):
            var writer = NMEAWriter(talker: .proprietary, type: String(s.address.dropFirst()))
            for field in s.fields { writer.field(field) }
            return writer.finish()
        case .unknown(let s):
            var writer = NMEAWriter(start: s.start, talker: s.talker, type: s.type)
            for field in s.fields { writer.field(field) }
            return writer.finish()
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
