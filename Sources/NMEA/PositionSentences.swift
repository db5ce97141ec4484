// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

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
