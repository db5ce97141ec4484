// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The byte-level fast paths for GSV and GSA as receivers write them: three quarters of the
/// sentences of a multi-constellation epoch, read straight from their bytes without splitting
/// them into fields first. Anything laid out otherwise is read field by field, to the same value
/// (property tests check that both readings agree).

extension GSA {
    /// Reads a GSA body as receivers write it into `gsa`, straight from its bytes without
    /// splitting it into fields: an upper-case talker other than `P…`, a one-character selection
    /// mode, a one-digit fix type, twelve satellite slots of up to three digits, the three DOPs
    /// and, from NMEA 4.10, an optional one-digit system ID. `false` (and `gsa` unspecified) when
    /// the body is laid out otherwise, to be read field by field, to the same value. Not generic,
    /// so that only the caller's few lines are specialised for each visitor.
    @usableFromInline
    static func readStandardLayout(_ body: UnsafeBufferPointer<UInt8>, into gsa: inout GSA) -> Bool {
        let end = body.count
        // The shortest such body is `ttGSA,m,f,` with twelve empty slots and three empty DOPs.
        guard end >= 24, let p = body.baseAddress else { return false }
        let comma = UInt8(ascii: ",")
        guard hasStandardAddress(p, "GSA"), p[6] != comma, p[7] == comma, p[9] == comma else { return false }
        let fixType = p[8] &- 48
        guard fixType < 10 else { return false }
        // Field by field: a new value assigned whole would be built aside and copied in.
        gsa.talker = Talker(p[0], p[1])
        gsa.selectionMode = NMEALetter(rawValue: p[6])
        gsa.fixType = Int(fixType)
        gsa.satellites.removeAll()
        gsa.satelliteSlots = 12
        gsa.systemID = nil
        var index = 10
        for _ in 0..<12 {
            // Up to three digits, then a comma.
            var id = 0
            var digits = 0
            while index < end && p[index] != comma {
                let digit = p[index] &- 48
                guard digit < 10, digits < 3 else { return false }
                id = id &* 10 &+ Int(digit)
                digits &+= 1
                index &+= 1
            }
            guard index < end else { return false }
            if id > 0 { gsa.satellites.append(UInt16(id)) }
            index &+= 1
        }
        /// The decimal up to the next comma or the end; `index` is left on that comma or the end.
        func decimal() -> NMEADecimal? {
            let start = index
            while index < end && p[index] != comma { index &+= 1 }
            return NMEADecimal.parse(UnsafeBufferPointer(start: p + start, count: index &- start))
        }
        gsa.pdop = decimal()
        guard index < end else { return false }
        index &+= 1
        gsa.hdop = decimal()
        guard index < end else { return false }
        index &+= 1
        gsa.vdop = decimal()
        if index &+ 2 == end {
            // `,d`: the system ID.
            let systemID = p[index &+ 1] &- 48
            guard systemID < 10 else { return false }
            gsa.systemID = Int(systemID)
        } else if index != end && index &+ 1 != end {
            return false
        }
        return true
    }
}

extension GSV {
    /// Reads a GSV body as receivers write it into `gsv`, straight from its bytes without
    /// splitting it into fields: an upper-case talker other than `P…`, one-digit message count and
    /// number, one or two digits of satellites in view, one to four satellites `nn,ee,aaa,ss` (or
    /// `nn,ee,aaa,`) and, from NMEA 4.10, a one-character signal ID. `false` (and `gsv`
    /// unspecified) when the body is laid out otherwise, to be read field by field, to the same
    /// value.
    @usableFromInline
    static func readStandardLayout(_ body: UnsafeBufferPointer<UInt8>, into gsv: inout GSV) -> Bool {
        let end = body.count
        // The shortest such body is `ttGSV,c,n,v,nn,ee,aaa,`.
        guard end >= 22, let p = body.baseAddress else { return false }
        guard hasStandardAddress(p, "GSV"), p[7] == UInt8(ascii: ","), p[9] == UInt8(ascii: ",") else {
            return false
        }
        let count = p[6] &- 48
        let number = p[8] &- 48
        let inView = p[10] &- 48
        guard count < 10, number < 10, inView < 10 else { return false }
        var index = 11
        var satellitesInView = Int(inView)
        if p[11] != UInt8(ascii: ",") {
            let units = p[11] &- 48
            guard units < 10, p[12] == UInt8(ascii: ",") else { return false }
            satellitesInView = satellitesInView &* 10 &+ Int(units)
            index = 12
        }
        index += 1
        gsv.talker = Talker(p[0], p[1])
        gsv.messageCount = Int(count)
        gsv.messageNumber = Int(number)
        gsv.satellitesInView = satellitesInView
        gsv.satellites.removeAll()
        gsv.signalID = nil
        var blocks = 0
        while true {
            // `nn,ee,aaa,` and then the signal strength: none, or two digits.
            guard index &+ 10 <= end, p[index &+ 2] == UInt8(ascii: ","), p[index &+ 5] == UInt8(ascii: ","),
                p[index &+ 9] == UInt8(ascii: ",")
            else { return false }
            let snrDigits: Int
            let next: Int
            if index &+ 10 == end {
                snrDigits = 0
                next = end
            } else if p[index &+ 10] == UInt8(ascii: ",") {
                snrDigits = 0
                next = index &+ 11
            } else if index &+ 12 == end {
                snrDigits = 2
                next = end
            } else if index &+ 12 < end && p[index &+ 12] == UInt8(ascii: ",") {
                snrDigits = 2
                next = index &+ 13
            } else {
                return false
            }
            guard let satellite = GSVSatellite(standardBlock: p + index, snrDigits: snrDigits) else {
                return false
            }
            if satellite.id > 0 { gsv.satellites.append(satellite) }
            blocks &+= 1
            if next &+ 1 == end { gsv.signalID = hexValue(p[next]).map(Int.init) }
            if next &+ 1 >= end { return true }
            guard blocks < 4 else { return false }
            index = next
        }
    }
}

extension GSVSatellite {
    /// A satellite written `nn,ee,aaa,ss` (`snrDigits` 2) or `nn,ee,aaa,` (`snrDigits` 0) at
    /// `field`, read eight bytes at a time; `nil` when the bytes are not digits where digits go
    /// (the commas are the caller's to check). The ten bytes from `field` (and the signal
    /// strength's) must be readable.
    @inline(__always)
    init?(standardBlock field: UnsafePointer<UInt8>, snrDigits: Int) {
        let digits = Bytes8.load(field) ^ Bytes8.repeating(48)
        // Bytes 0, 1, 3, 4, 6 and 7 must be digits (0…9 once '0' is taken away); 2 and 5 are commas.
        let notDigits = (((digits & Bytes8.low7) &+ Bytes8.repeating(0x76)) | digits) & 0x8080_0080_8000_8080
        let lastAzimuthDigit = field[8] &- 48
        guard notDigits == 0, lastAzimuthDigit < 10 else { return nil }
        func digit(_ byte: Int) -> Int16 { Int16(truncatingIfNeeded: digits &>> UInt64(byte &* 8) & 0xFF) }
        var snr: Int16?
        if snrDigits == 2 {
            let tens = field[10] &- 48
            let units = field[11] &- 48
            guard max(tens, units) < 10 else { return nil }
            snr = Int16(tens) &* 10 &+ Int16(units)
        }
        self.init(
            id: UInt16(digit(0) &* 10 &+ digit(1)), elevation: digit(3) &* 10 &+ digit(4),
            azimuth: digit(6) &* 100 &+ digit(7) &* 10 &+ Int16(lastAzimuthDigit), snr: snr)
    }
}

/// Whether a body begins with an upper-case talker, the three letters of `type` and a comma, as
/// the sentences read straight from their bytes require. A talker beginning with `P` is left to
/// field-by-field reading, which tells proprietary addresses from Quectel's `PQ` talker.
@inline(__always)
private func hasStandardAddress(_ p: UnsafePointer<UInt8>, _ type: StaticString) -> Bool {
    let letters = type.utf8Start
    return p[0] &- UInt8(ascii: "A") < 26 && p[1] &- UInt8(ascii: "A") < 26 && p[0] != UInt8(ascii: "P")
        && p[2] == letters[0] && p[3] == letters[1] && p[4] == letters[2] && p[5] == UInt8(ascii: ",")
}
