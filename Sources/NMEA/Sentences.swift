// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// `$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A*25` — course and speed over ground. The NMEA 2.0
/// layout without unit letters (`$GPVTG,054.7,034.4,005.5,010.2`) is read too.
public struct VTG: TypedSentence {
    public static let sentenceType = NMEASentenceType.vtg
    public var talker: Talker
    public var courseTrue: NMEADecimal?
    public var courseMagnetic: NMEADecimal?
    public var speedKnots: NMEADecimal?
    public var speedKilometresPerHour: NMEADecimal?
    public var mode: FAAMode?

    public init(
        talker: Talker = .gps, courseTrue: NMEADecimal? = nil, courseMagnetic: NMEADecimal? = nil,
        speedKnots: NMEADecimal? = nil, speedKilometresPerHour: NMEADecimal? = nil, mode: FAAMode? = nil
    ) {
        self.talker = talker
        self.courseTrue = courseTrue
        self.courseMagnetic = courseMagnetic
        self.speedKnots = speedKnots
        self.speedKilometresPerHour = speedKilometresPerHour
        self.mode = mode
    }

    init(talker: Talker, fields: borrowing Fields) {
        let legacy = fields.count - 1 <= 5 && fields.letter(2) != "T"
        if legacy {
            self.init(
                talker: talker, courseTrue: fields.decimal(1), courseMagnetic: fields.decimal(2),
                speedKnots: fields.decimal(3), speedKilometresPerHour: fields.decimal(4))
        } else {
            self.init(
                talker: talker, courseTrue: fields.decimal(1), courseMagnetic: fields.decimal(3),
                speedKnots: fields.decimal(5), speedKilometresPerHour: fields.decimal(7),
                mode: fields.letter(9))
        }
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(courseTrue)
        writer.field(NMEALetter("T"))
        writer.field(courseMagnetic)
        writer.field(NMEALetter("M"))
        writer.field(speedKnots)
        writer.field(NMEALetter("N"))
        writer.field(speedKilometresPerHour)
        writer.field(NMEALetter("K"))
        if mode != nil { writer.field(mode) }
    }
}

/// `$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A` — pseudorange error statistics:
/// RMS, error ellipse (semi-major, semi-minor, orientation) and 1σ latitude, longitude, altitude
/// errors in metres.
public struct GST: TypedSentence {
    public static let sentenceType = NMEASentenceType.gst
    public var talker: Talker
    public var time: NMEATime?
    public var rms: NMEADecimal?
    public var semiMajor: NMEADecimal?
    public var semiMinor: NMEADecimal?
    public var orientation: NMEADecimal?
    public var latitudeError: NMEADecimal?
    public var longitudeError: NMEADecimal?
    public var altitudeError: NMEADecimal?

    public init(
        talker: Talker = .gps, time: NMEATime? = nil, rms: NMEADecimal? = nil, semiMajor: NMEADecimal? = nil,
        semiMinor: NMEADecimal? = nil, orientation: NMEADecimal? = nil, latitudeError: NMEADecimal? = nil,
        longitudeError: NMEADecimal? = nil, altitudeError: NMEADecimal? = nil
    ) {
        self.talker = talker
        self.time = time
        self.rms = rms
        self.semiMajor = semiMajor
        self.semiMinor = semiMinor
        self.orientation = orientation
        self.latitudeError = latitudeError
        self.longitudeError = longitudeError
        self.altitudeError = altitudeError
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(
            talker: talker, time: fields.time(1), rms: fields.decimal(2), semiMajor: fields.decimal(3),
            semiMinor: fields.decimal(4), orientation: fields.decimal(5), latitudeError: fields.decimal(6),
            longitudeError: fields.decimal(7), altitudeError: fields.decimal(8))
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(time)
        for value in [rms, semiMajor, semiMinor, orientation, latitudeError, longitudeError, altitudeError] {
            writer.field(value)
        }
    }
}

/// `$GPZDA,201530.00,04,07,2002,00,00*60` — UTC time and date with a four-digit year, and the
/// local zone offset.
public struct ZDA: TypedSentence {
    public static let sentenceType = NMEASentenceType.zda
    public var talker: Talker
    public var time: NMEATime?
    public var day: Int?
    public var month: Int?
    public var year: Int?
    public var zoneHours: Int?
    public var zoneMinutes: Int?

    public init(
        talker: Talker = .gps, time: NMEATime? = nil, day: Int? = nil, month: Int? = nil, year: Int? = nil,
        zoneHours: Int? = nil, zoneMinutes: Int? = nil
    ) {
        self.talker = talker
        self.time = time
        self.day = day
        self.month = month
        self.year = year
        self.zoneHours = zoneHours
        self.zoneMinutes = zoneMinutes
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(
            talker: talker, time: fields.time(1), day: fields.integer(2), month: fields.integer(3),
            year: fields.integer(4), zoneHours: fields.wholeNumber(5), zoneMinutes: fields.integer(6))
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(time)
        writer.field(day, width: 2)
        writer.field(month, width: 2)
        writer.field(year, width: 4)
        writer.field(zoneHours, width: 2)
        writer.field(zoneMinutes, width: 2)
    }
}

/// `$GPGBS,125027,23.43,M,13.91,M,34.01,M*07` — RAIM fault detection: expected 1σ errors in
/// latitude, longitude and altitude (metres), the most likely failed satellite, and in NMEA 4.10
/// its system and signal.
public struct GBS: TypedSentence {
    public static let sentenceType = NMEASentenceType.gbs
    public var talker: Talker
    public var time: NMEATime?
    public var latitudeError: NMEADecimal?
    public var longitudeError: NMEADecimal?
    public var altitudeError: NMEADecimal?
    public var failedSatellite: Int?
    public var missedDetectionProbability: NMEADecimal?
    public var bias: NMEADecimal?
    public var biasStandardDeviation: NMEADecimal?
    public var systemID: Int?
    public var signalID: Int?

    public init(
        talker: Talker = .gps, time: NMEATime? = nil, latitudeError: NMEADecimal? = nil,
        longitudeError: NMEADecimal? = nil, altitudeError: NMEADecimal? = nil, failedSatellite: Int? = nil,
        missedDetectionProbability: NMEADecimal? = nil, bias: NMEADecimal? = nil,
        biasStandardDeviation: NMEADecimal? = nil, systemID: Int? = nil, signalID: Int? = nil
    ) {
        self.talker = talker
        self.time = time
        self.latitudeError = latitudeError
        self.longitudeError = longitudeError
        self.altitudeError = altitudeError
        self.failedSatellite = failedSatellite
        self.missedDetectionProbability = missedDetectionProbability
        self.bias = bias
        self.biasStandardDeviation = biasStandardDeviation
        self.systemID = systemID
        self.signalID = signalID
    }

    init(talker: Talker, fields: borrowing Fields) {
        // Some receivers put a unit letter after each error (`23.43,M,`); skip them.
        var index = 2
        func next() -> NMEADecimal? {
            let value = fields.decimal(index)
            index += 1
            if fields.letter(index) == "M" && fields[index].count == 1 { index += 1 }
            return value
        }
        let time = fields.time(1)
        let lat = next()
        let lon = next()
        let alt = next()
        self.init(talker: talker, time: time, latitudeError: lat, longitudeError: lon, altitudeError: alt)
        failedSatellite = fields.integer(index)
        missedDetectionProbability = fields.decimal(index + 1)
        bias = fields.decimal(index + 2)
        biasStandardDeviation = fields.decimal(index + 3)
        systemID = fields.integer(index + 4)
        if fields[index + 5].count == 1, let value = hexValue(fields[index + 5][0]) { signalID = Int(value) }
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(time)
        writer.field(latitudeError)
        writer.field(longitudeError)
        writer.field(altitudeError)
        writer.field(failedSatellite, width: 2)
        writer.field(missedDetectionProbability)
        writer.field(bias)
        writer.field(biasStandardDeviation)
        if systemID != nil || signalID != nil {
            writer.field(systemID)
            writer.field(signalID.map { String($0, radix: 16, uppercase: true) })
        }
    }
}

/// `$HEHDT,274.07,T*03` — true heading.
public struct HDT: TypedSentence {
    public static let sentenceType = NMEASentenceType.hdt
    public var talker: Talker
    public var heading: NMEADecimal?

    public init(talker: Talker = Talker("HE")!, heading: NMEADecimal? = nil) {
        self.talker = talker
        self.heading = heading
    }

    init(talker: Talker, fields: borrowing Fields) { self.init(talker: talker, heading: fields.decimal(1)) }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(heading)
        writer.field(NMEALetter("T"))
    }
}

/// `$GNTHS,77.52,A*1F` — true heading with its mode: `A` autonomous, `E` estimated (dead
/// reckoning), `M` manual input, `S` simulator, `V` not valid.
public struct THS: TypedSentence {
    public static let sentenceType = NMEASentenceType.ths
    public var talker: Talker
    public var heading: NMEADecimal?
    public var mode: NMEALetter?

    public init(talker: Talker = Talker("GN")!, heading: NMEADecimal? = nil, mode: NMEALetter? = nil) {
        self.talker = talker
        self.heading = heading
        self.mode = mode
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(talker: talker, heading: fields.decimal(1), mode: fields.letter(2))
    }

    /// The heading, unless the mode says it is not valid.
    public var validHeading: NMEADecimal? { mode == NMEALetter("V") ? nil : heading }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(heading)
        writer.field(mode)
    }
}

/// `$GPTXT,01,01,02,ANTSTATUS=OK*3B` — text from the receiver, in a numbered series.
public struct TXT: TypedSentence {
    public static let sentenceType = NMEASentenceType.txt
    public var talker: Talker
    public var messageCount: Int?
    public var messageNumber: Int?
    /// 00 error, 01 warning, 02 notice, 07 user.
    public var identifier: Int?
    public var text: String

    public init(
        talker: Talker = .gps, messageCount: Int? = nil, messageNumber: Int? = nil, identifier: Int? = nil,
        text: String = ""
    ) {
        self.talker = talker
        self.messageCount = messageCount
        self.messageNumber = messageNumber
        self.identifier = identifier
        self.text = text
    }

    init(talker: Talker, fields: borrowing Fields) {
        // The text may itself hold commas: it is everything after the third field.
        var text = ""
        if fields.count > 4 {
            let start = fields[4].baseAddress.map { $0 - fields.body.baseAddress! } ?? fields.body.count
            text = String(decoding: UnsafeBufferPointer(rebasing: fields.body[start...]), as: UTF8.self)
        }
        self.init(
            talker: talker, messageCount: fields.integer(1), messageNumber: fields.integer(2),
            identifier: fields.integer(3), text: text)
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(messageCount, width: 2)
        writer.field(messageNumber, width: 2)
        writer.field(identifier, width: 2)
        writer.field(text)
    }
}

/// `$GPDTM,W84,,0.0,N,0.0,E,0.0,W84*6F` — the datum of the positions that follow and its offsets
/// (minutes of latitude and longitude, metres of altitude) from the reference datum.
public struct DTM: TypedSentence {
    public static let sentenceType = NMEASentenceType.dtm
    public var talker: Talker
    /// `W84`, `W72`, `S85`, `P90`, `999` (user defined), …
    public var datum: String
    public var subdivision: String
    public var latitudeOffset: NMEADecimal?
    public var latitudeOffsetDirection: NMEALetter?
    public var longitudeOffset: NMEADecimal?
    public var longitudeOffsetDirection: NMEALetter?
    public var altitudeOffset: NMEADecimal?
    public var referenceDatum: String

    public init(
        talker: Talker = .gps, datum: String = "", subdivision: String = "",
        latitudeOffset: NMEADecimal? = nil,
        latitudeOffsetDirection: NMEALetter? = nil, longitudeOffset: NMEADecimal? = nil,
        longitudeOffsetDirection: NMEALetter? = nil, altitudeOffset: NMEADecimal? = nil,
        referenceDatum: String = ""
    ) {
        self.talker = talker
        self.datum = datum
        self.subdivision = subdivision
        self.latitudeOffset = latitudeOffset
        self.latitudeOffsetDirection = latitudeOffsetDirection
        self.longitudeOffset = longitudeOffset
        self.longitudeOffsetDirection = longitudeOffsetDirection
        self.altitudeOffset = altitudeOffset
        self.referenceDatum = referenceDatum
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(
            talker: talker, datum: fields.string(1), subdivision: fields.string(2),
            latitudeOffset: fields.decimal(3), latitudeOffsetDirection: fields.letter(4),
            longitudeOffset: fields.decimal(5), longitudeOffsetDirection: fields.letter(6),
            altitudeOffset: fields.decimal(7), referenceDatum: fields.string(8))
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(datum)
        writer.field(subdivision)
        writer.field(latitudeOffset)
        writer.field(latitudeOffsetDirection)
        writer.field(longitudeOffset)
        writer.field(longitudeOffsetDirection)
        writer.field(altitudeOffset)
        writer.field(referenceDatum)
    }
}

/// A proprietary sentence the catalogue lacks (`$PUBX,00,…`, `$PMTK001,…`), kept as
/// its address and raw fields.
public struct ProprietarySentence: Sendable, Hashable {
    /// The address after `$`, e.g. `"PUBX"`, `"PMTK001"`.
    public var address: String
    public var fields: [String]

    public init(address: String, fields: [String]) {
        self.address = address
        self.fields = fields
    }

    /// The three-letter manufacturer code (`GRM` for Garmin, `UBX` for u-blox, `MTK` for MediaTek).
    public var manufacturer: Substring { address.dropFirst().prefix(3) }
}

/// A sentence of a type this library does not decode, kept as talker, type and raw fields.
public struct UnknownSentence: Sendable, Hashable {
    /// `$` for ordinary sentences, `!` for encapsulated ones (AIS `!AIVDM`).
    public var start: UInt8
    public var talker: Talker
    public var type: String
    public var fields: [String]

    public init(start: UInt8 = UInt8(ascii: "$"), talker: Talker, type: String, fields: [String]) {
        self.start = start
        self.talker = talker
        self.type = type
        self.fields = fields
    }
}
