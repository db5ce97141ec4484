/// A sentence type with a fixed field layout that can be parsed and encoded.
public protocol TypedSentence: Sendable, Hashable {
    /// The three-letter type, e.g. `"GGA"`.
    static var type: String { get }
    /// Who sent it (`GP`, `GN`, …).
    var talker: Talker { get }
    /// Writes the fields after the address.
    func writeFields(to writer: inout NMEAWriter)
}

extension TypedSentence {
    /// The sentence as bytes, `$` to `\r\n`, with a correct checksum.
    public func encoded() -> [UInt8] {
        var writer = NMEAWriter(talker: talker, type: Self.type)
        writeFields(to: &writer)
        return writer.finish()
    }
}

/// `$GPRMC,225446.33,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E,A,V*68` — recommended
/// minimum data: time, status, position, speed and course over ground, date, magnetic variation,
/// and in NMEA 2.3+ the FAA mode, in 4.10+ the navigational status.
public struct RMC: TypedSentence {
    public static let type = "RMC"
    public var talker: Talker
    public var time: NMEATime?
    /// `A` valid, `V` warning.
    public var status: NMEALetter?
    public var latitude: NMEACoordinate?
    public var longitude: NMEACoordinate?
    /// Speed over ground in knots.
    public var speedKnots: NMEADecimal?
    /// Course over ground, degrees true.
    public var courseTrue: NMEADecimal?
    public var date: NMEADate?
    public var magneticVariation: NMEADecimal?
    /// `E` or `W`.
    public var magneticVariationDirection: NMEALetter?
    public var mode: FAAMode?
    /// NMEA 4.10: `S` safe, `C` caution, `U` unsafe, `V` not valid.
    public var navigationStatus: NMEALetter?

    public init(
        talker: Talker = .gps, time: NMEATime? = nil, status: NMEALetter? = nil,
        latitude: NMEACoordinate? = nil, longitude: NMEACoordinate? = nil, speedKnots: NMEADecimal? = nil,
        courseTrue: NMEADecimal? = nil, date: NMEADate? = nil, magneticVariation: NMEADecimal? = nil,
        magneticVariationDirection: NMEALetter? = nil, mode: FAAMode? = nil,
        navigationStatus: NMEALetter? = nil
    ) {
        self.talker = talker
        self.time = time
        self.status = status
        self.latitude = latitude
        self.longitude = longitude
        self.speedKnots = speedKnots
        self.courseTrue = courseTrue
        self.date = date
        self.magneticVariation = magneticVariation
        self.magneticVariationDirection = magneticVariationDirection
        self.mode = mode
        self.navigationStatus = navigationStatus
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(
            talker: talker, time: fields.time(1), status: fields.letter(2), latitude: fields.coordinate(3),
            longitude: fields.coordinate(5), speedKnots: fields.decimal(7), courseTrue: fields.decimal(8),
            date: NMEADate.parse(fields[9]), magneticVariation: fields.decimal(10),
            magneticVariationDirection: fields.letter(11), mode: fields.letter(12),
            navigationStatus: fields.letter(13))
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(time)
        writer.field(status)
        writer.field(latitude)
        writer.field(longitude)
        writer.field(speedKnots)
        writer.field(courseTrue)
        writer.field(date?.description)
        writer.field(magneticVariation)
        writer.field(magneticVariationDirection)
        if mode != nil || navigationStatus != nil { writer.field(mode) }
        if navigationStatus != nil { writer.field(navigationStatus) }
    }
}

/// `$GPGGA,123519,4807.038,N,01131.324,E,1,08,0.9,545.4,M,46.9,M,,*47` — fix data: time,
/// position, quality, satellites used, HDOP, altitude above mean sea level, geoid separation,
/// age of differential corrections and reference station.
public struct GGA: TypedSentence {
    public static let type = "GGA"
    public var talker: Talker
    public var time: NMEATime?
    public var latitude: NMEACoordinate?
    public var longitude: NMEACoordinate?
    /// 0 invalid, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 estimated, 7 manual, 8 simulator.
    public var quality: Int?
    public var satellitesUsed: Int?
    public var hdop: NMEADecimal?
    /// Altitude above mean sea level, metres.
    public var altitude: NMEADecimal?
    public var altitudeUnit: NMEALetter?
    /// Height of the geoid above the WGS84 ellipsoid, metres.
    public var geoidSeparation: NMEADecimal?
    public var geoidSeparationUnit: NMEALetter?
    /// Seconds since the last differential correction.
    public var dgpsAge: NMEADecimal?
    public var dgpsStation: Int?

    public init(
        talker: Talker = .gps, time: NMEATime? = nil, latitude: NMEACoordinate? = nil,
        longitude: NMEACoordinate? = nil, quality: Int? = nil, satellitesUsed: Int? = nil,
        hdop: NMEADecimal? = nil, altitude: NMEADecimal? = nil, altitudeUnit: NMEALetter? = nil,
        geoidSeparation: NMEADecimal? = nil, geoidSeparationUnit: NMEALetter? = nil,
        dgpsAge: NMEADecimal? = nil, dgpsStation: Int? = nil
    ) {
        self.talker = talker
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.quality = quality
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
        self.altitude = altitude
        self.altitudeUnit = altitudeUnit
        self.geoidSeparation = geoidSeparation
        self.geoidSeparationUnit = geoidSeparationUnit
        self.dgpsAge = dgpsAge
        self.dgpsStation = dgpsStation
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(
            talker: talker, time: fields.time(1), latitude: fields.coordinate(2),
            longitude: fields.coordinate(4), quality: fields.integer(6), satellitesUsed: fields.integer(7),
            hdop: fields.decimal(8), altitude: fields.decimal(9), altitudeUnit: fields.letter(10),
            geoidSeparation: fields.decimal(11), geoidSeparationUnit: fields.letter(12),
            dgpsAge: fields.decimal(13), dgpsStation: fields.integer(14))
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(time)
        writer.field(latitude)
        writer.field(longitude)
        writer.field(quality)
        writer.field(satellitesUsed, width: 2)
        writer.field(hdop)
        writer.field(altitude)
        writer.field(altitudeUnit)
        writer.field(geoidSeparation)
        writer.field(geoidSeparationUnit)
        writer.field(dgpsAge)
        writer.field(dgpsStation, width: 4)
    }
}

/// `$GNGSA,A,3,13,12,22,19,08,21,,,,,,,1.05,0.64,0.83,4*0B` — DOP and satellites used; NMEA 4.10
/// adds the GNSS system ID. Up to 24 satellite fields are read (some receivers send more than 12).
public struct GSA: TypedSentence {
    public static let type = "GSA"
    public var talker: Talker
    /// `A` automatic, `M` manual.
    public var selectionMode: NMEALetter?
    /// 1 no fix, 2 2D, 3 3D.
    public var fixType: Int?
    /// The satellite IDs used in the solution, in order, without the empty slots.
    public var satellites: FixedList<24, UInt16>
    /// How many satellite fields were on the wire (12 in the standard; some receivers send
    /// fewer or more).
    public var satelliteSlots: Int
    public var pdop: NMEADecimal?
    public var hdop: NMEADecimal?
    public var vdop: NMEADecimal?
    /// NMEA 4.10 GNSS system ID (see ``Constellation/init(systemID:)``).
    public var systemID: Int?

    public init(
        talker: Talker = .gps, selectionMode: NMEALetter? = nil, fixType: Int? = nil,
        satellites: [UInt16] = [],
        satelliteSlots: Int = 12, pdop: NMEADecimal? = nil, hdop: NMEADecimal? = nil,
        vdop: NMEADecimal? = nil,
        systemID: Int? = nil
    ) {
        self.talker = talker
        self.selectionMode = selectionMode
        self.fixType = fixType
        self.satellites = FixedList(filler: 0)
        for id in satellites { self.satellites.append(id) }
        self.satelliteSlots = max(satelliteSlots, self.satellites.count)
        self.pdop = pdop
        self.hdop = hdop
        self.vdop = vdop
        self.systemID = systemID
    }

    /// A GSA body as receivers write it, read straight from its bytes without splitting it into
    /// fields: an upper-case talker other than `P…`, a one-character selection mode, a one-digit
    /// fix type, twelve satellite slots of up to three digits, the three DOPs and, from NMEA 4.10,
    /// an optional one-digit system ID. Hands the sentence to `visitor` and returns `true` when
    /// the body is laid out so; anything else is read field by field, to the same value.
    static func visitStandardLayout(
        _ body: UnsafeBufferPointer<UInt8>, _ visitor: inout some NMEASentenceVisitor
    ) -> Bool {
        let end = body.count
        // The shortest such body is `ttGSA,m,f,` with twelve empty slots and three empty DOPs.
        guard end >= 24, let p = body.baseAddress else { return false }
        let comma = UInt8(ascii: ",")
        guard hasStandardAddress(p, "GSA"), p[6] != comma, p[7] == comma, p[9] == comma else { return false }
        let fixType = p[8] &- 48
        guard fixType < 10 else { return false }
        var gsa = GSA(
            talker: Talker(p[0], p[1]), selectionMode: NMEALetter(rawValue: p[6]), fixType: Int(fixType))
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
        visitor.visit(gsa)
        return true
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(talker: talker, selectionMode: fields.letter(1), fixType: fields.integer(2))
        let last = fields.count - 1
        let dopStart: Int
        if last == 18 {
            systemID = fields.integer(18)
            dopStart = 15
        } else {
            dopStart = max(3, last - 2)
        }
        satelliteSlots = dopStart - 3
        if dopStart > 3 {
            for index in 3..<dopStart {
                if let id = fields.integer(index), id > 0, id <= Int(UInt16.max) {
                    satellites.append(UInt16(id))
                }
            }
        }
        pdop = fields.decimal(dopStart)
        hdop = fields.decimal(dopStart + 1)
        vdop = fields.decimal(dopStart + 2)
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(selectionMode)
        writer.field(fixType)
        for slot in 0..<max(satelliteSlots, satellites.count) {
            writer.field(slot < satellites.count ? Int(satellites[slot]) : nil, width: 2)
        }
        writer.field(pdop)
        writer.field(hdop)
        writer.field(vdop)
        if let systemID {
            writer.field(systemID)
        }
    }
}

/// One satellite of a GSV sentence.
public struct GSVSatellite: Sendable, Hashable, BitwiseCopyable {
    /// The satellite ID as sent (PRN, or the NMEA number for the talker's system).
    public var id: UInt16
    /// Degrees above the horizon.
    public var elevation: Int16?
    /// Degrees from true north.
    public var azimuth: Int16?
    /// Carrier-to-noise density, dB-Hz; `nil` when not tracked.
    public var snr: Int16?

    public init(id: UInt16, elevation: Int16? = nil, azimuth: Int16? = nil, snr: Int16? = nil) {
        self.id = id
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
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

/// `$GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00*74` — satellites in view,
/// up to four per sentence, in a numbered series; NMEA 4.10 adds the signal ID after them.
public struct GSV: TypedSentence {
    public static let type = "GSV"
    public var talker: Talker
    public var messageCount: Int?
    public var messageNumber: Int?
    public var satellitesInView: Int?
    public var satellites: FixedList<4, GSVSatellite>
    /// NMEA 4.10 signal ID (hexadecimal digit on the wire).
    public var signalID: Int?

    public init(
        talker: Talker = .gps, messageCount: Int? = nil, messageNumber: Int? = nil,
        satellitesInView: Int? = nil,
        satellites: [GSVSatellite] = [], signalID: Int? = nil
    ) {
        self.talker = talker
        self.messageCount = messageCount
        self.messageNumber = messageNumber
        self.satellitesInView = satellitesInView
        self.satellites = FixedList(filler: GSVSatellite(id: 0))
        for satellite in satellites { self.satellites.append(satellite) }
        self.signalID = signalID
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.talker = talker
        messageCount = fields.integer(1)
        messageNumber = fields.integer(2)
        satellitesInView = fields.integer(3)
        satellites = FixedList(filler: GSVSatellite(id: 0))
        signalID = nil
        let last = fields.count - 1
        var blockEnd = last
        if last >= 4 && (last - 3) % 4 == 1 {
            let field = fields[last]
            if field.count == 1, let value = hexValue(field[0]) { signalID = Int(value) }
            blockEnd = last - 1
        }
        var index = 4
        while index <= blockEnd {
            if let id = fields.integer(index), id > 0, id <= Int(UInt16.max) {
                satellites.append(
                    GSVSatellite(
                        id: UInt16(id), elevation: fields.smallWholeNumber(index + 1),
                        azimuth: fields.smallWholeNumber(index + 2), snr: fields.smallWholeNumber(index + 3)))
            }
            index += 4
            if satellites.isFull { break }
        }
    }

    /// A GSV body as receivers write it, read straight from its bytes without splitting it into
    /// fields: an upper-case talker other than `P…`, one-digit message count and number, one or two
    /// digits of satellites in view, one to four satellites `nn,ee,aaa,ss` (or `nn,ee,aaa,`) and,
    /// from NMEA 4.10, a one-character signal ID. Hands the sentence to `visitor` and returns
    /// `true` when the body is laid out so; anything else is read field by field, to the same value.
    static func visitStandardLayout(
        _ body: UnsafeBufferPointer<UInt8>, _ visitor: inout some NMEASentenceVisitor
    ) -> Bool {
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
        var gsv = GSV(
            talker: Talker(p[0], p[1]), messageCount: Int(count), messageNumber: Int(number),
            satellitesInView: satellitesInView)
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
            if next &+ 1 >= end {
                visitor.visit(gsv)
                return true
            }
            guard blocks < 4 else { return false }
            index = next
        }
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(messageCount)
        writer.field(messageNumber)
        writer.field(satellitesInView, width: 2)
        for satellite in satellites {
            writer.field(Int(satellite.id), width: 2)
            writer.field(satellite.elevation.map(Int.init), width: 2)
            writer.field(satellite.azimuth.map(Int.init), width: 3)
            writer.field(satellite.snr.map(Int.init), width: 2)
        }
        if let signalID {
            writer.field(String(signalID, radix: 16, uppercase: true))
        }
    }
}

/// `$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A*25` — course and speed over ground. The NMEA 2.0
/// layout without unit letters (`$GPVTG,054.7,034.4,005.5,010.2`) is read too.
public struct VTG: TypedSentence {
    public static let type = "VTG"
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

/// `$GPGLL,4916.45,N,12311.12,W,225444,A,A*5C` — position, time, status and FAA mode.
public struct GLL: TypedSentence {
    public static let type = "GLL"
    public var talker: Talker
    public var latitude: NMEACoordinate?
    public var longitude: NMEACoordinate?
    public var time: NMEATime?
    public var status: NMEALetter?
    public var mode: FAAMode?

    public init(
        talker: Talker = .gps, latitude: NMEACoordinate? = nil, longitude: NMEACoordinate? = nil,
        time: NMEATime? = nil, status: NMEALetter? = nil, mode: FAAMode? = nil
    ) {
        self.talker = talker
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.status = status
        self.mode = mode
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(
            talker: talker, latitude: fields.coordinate(1), longitude: fields.coordinate(3),
            time: fields.time(5),
            status: fields.letter(6), mode: fields.letter(7))
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(latitude)
        writer.field(longitude)
        writer.field(time)
        writer.field(status)
        if mode != nil { writer.field(mode) }
    }
}

/// `$GNGNS,224749.00,3333.4268304,N,11153.3538273,W,DAN,19,0.6,406.110,-26.294,6.0,0138,S*6A` — fix
/// data with one mode letter per system (GPS, GLONASS, Galileo, BeiDou, QZSS, NavIC) and in NMEA
/// 4.10 the navigational status.
public struct GNS: TypedSentence {
    public static let type = "GNS"
    public var talker: Talker
    public var time: NMEATime?
    public var latitude: NMEACoordinate?
    public var longitude: NMEACoordinate?
    /// One FAA mode letter per system, in the order GPS, GLONASS, Galileo, BeiDou, QZSS, NavIC.
    public var modes: FixedList<8, NMEALetter>
    public var satellitesUsed: Int?
    public var hdop: NMEADecimal?
    /// Altitude above mean sea level, metres.
    public var altitude: NMEADecimal?
    public var geoidSeparation: NMEADecimal?
    public var dgpsAge: NMEADecimal?
    public var dgpsStation: Int?
    public var navigationStatus: NMEALetter?

    public init(
        talker: Talker = .gnss, time: NMEATime? = nil, latitude: NMEACoordinate? = nil,
        longitude: NMEACoordinate? = nil, modes: [NMEALetter] = [], satellitesUsed: Int? = nil,
        hdop: NMEADecimal? = nil, altitude: NMEADecimal? = nil, geoidSeparation: NMEADecimal? = nil,
        dgpsAge: NMEADecimal? = nil, dgpsStation: Int? = nil, navigationStatus: NMEALetter? = nil
    ) {
        self.talker = talker
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.modes = FixedList(filler: NMEALetter(rawValue: 0))
        for mode in modes { self.modes.append(mode) }
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
        self.altitude = altitude
        self.geoidSeparation = geoidSeparation
        self.dgpsAge = dgpsAge
        self.dgpsStation = dgpsStation
        self.navigationStatus = navigationStatus
    }

    init(talker: Talker, fields: borrowing Fields) {
        self.init(
            talker: talker, time: fields.time(1), latitude: fields.coordinate(2),
            longitude: fields.coordinate(4),
            satellitesUsed: fields.integer(7), hdop: fields.decimal(8), altitude: fields.decimal(9),
            geoidSeparation: fields.decimal(10), dgpsAge: fields.decimal(11), dgpsStation: fields.integer(12),
            navigationStatus: fields.letter(13))
        for byte in fields[6] where !modes.isFull { modes.append(NMEALetter(rawValue: byte)) }
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(time)
        writer.field(latitude)
        writer.field(longitude)
        writer.field(String(decoding: modes.map(\.rawValue), as: UTF8.self))
        writer.field(satellitesUsed, width: 2)
        writer.field(hdop)
        writer.field(altitude)
        writer.field(geoidSeparation)
        writer.field(dgpsAge)
        writer.field(dgpsStation, width: 4)
        if navigationStatus != nil { writer.field(navigationStatus) }
    }
}

/// `$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A` — pseudorange error statistics:
/// RMS, error ellipse (semi-major, semi-minor, orientation) and 1σ latitude, longitude, altitude
/// errors in metres.
public struct GST: TypedSentence {
    public static let type = "GST"
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
    public static let type = "ZDA"
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
    public static let type = "GBS"
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
    public static let type = "HDT"
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

/// `$GPTXT,01,01,02,ANTSTATUS=OK*3B` — text from the receiver, in a numbered series.
public struct TXT: TypedSentence {
    public static let type = "TXT"
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
    public static let type = "DTM"
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

/// A proprietary sentence (`$PGRME,15.0,M,45.0,M,25.0,M*1C`, `$PUBX,00,…`, `$PMTK001,…`), kept as
/// its address and raw fields.
public struct ProprietarySentence: Sendable, Hashable {
    /// The address after `$`, e.g. `"PGRME"`, `"PUBX"`, `"PMTK001"`.
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
