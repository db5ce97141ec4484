/// `$GPRMC,225446.33,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E,A,V*68` — recommended
/// minimum data: time, status, position, speed and course over ground, date, magnetic variation,
/// and in NMEA 2.3+ the FAA mode, in 4.10+ the navigational status.
public struct RMC: TypedSentence {
    public static let sentenceType = NMEASentenceType.rmc
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
    public static let sentenceType = NMEASentenceType.gga
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
    public static let sentenceType = NMEASentenceType.gsa
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

/// `$GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00*74` — satellites in view,
/// up to four per sentence, in a numbered series; NMEA 4.10 adds the signal ID after them.
public struct GSV: TypedSentence {
    public static let sentenceType = NMEASentenceType.gsv
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

/// `$GPGLL,4916.45,N,12311.12,W,225444,A,A*5C` — position, time, status and FAA mode.
public struct GLL: TypedSentence {
    public static let sentenceType = NMEASentenceType.gll
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
    public static let sentenceType = NMEASentenceType.gns
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
