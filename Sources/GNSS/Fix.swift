// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// How many dimensions a fix has.
public enum FixMode: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nothing has said yet.
    case notSeen = 0
    /// The receiver has no position.
    case noFix = 1
    /// Latitude and longitude only.
    case twoDimensional = 2
    /// Latitude, longitude and altitude.
    case threeDimensional = 3

    public static func < (lhs: FixMode, rhs: FixMode) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .notSeen: "not seen"
        case .noFix: "no fix"
        case .twoDimensional: "2D"
        case .threeDimensional: "3D"
        }
    }
}

/// What kind of solution the position is. Raw values are gpsd's `status` numbers.
public enum FixStatus: Int, Sendable, Hashable, CustomStringConvertible {
    case unknown = 0
    case gps = 1
    case dgps = 2
    case rtkFixed = 3
    case rtkFloat = 4
    case deadReckoning = 5
    case gnssDeadReckoning = 6
    /// Surveyed or manually entered position (time-only receivers).
    case manual = 7
    case simulated = 8
    /// GPS PPS (precise positioning service) fix.
    case pps = 9

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .gps: "GPS"
        case .dgps: "DGPS"
        case .rtkFixed: "RTK fixed"
        case .rtkFloat: "RTK float"
        case .deadReckoning: "dead reckoning"
        case .gnssDeadReckoning: "GNSS + dead reckoning"
        case .manual: "manual"
        case .simulated: "simulated"
        case .pps: "PPS"
        }
    }
}

/// Dilutions of precision.
public struct DOP: Sendable, Hashable {
    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?
    public var tdop: Double?
    public var gdop: Double?
    /// East-west (longitude) dilution.
    public var xdop: Double?
    /// North-south (latitude) dilution.
    public var ydop: Double?

    public init(
        pdop: Double? = nil, hdop: Double? = nil, vdop: Double? = nil, tdop: Double? = nil,
        gdop: Double? = nil,
        xdop: Double? = nil, ydop: Double? = nil
    ) {
        self.pdop = pdop
        self.hdop = hdop
        self.vdop = vdop
        self.tdop = tdop
        self.gdop = gdop
        self.xdop = xdop
        self.ydop = ydop
    }
}

/// Where an error estimate came from.
public enum ErrorSource: String, Sendable, Hashable {
    /// The receiver's RAIM statistics (`GBS`): its expected 1σ errors, as sent (gpsd does not
    /// scale them either).
    case receiverGBS
    /// Garmin's `$PGRME` estimated position error.
    case receiverPGRME
    /// Dilution of precision × user equivalent range error, with gpsd's 95% constants.
    case dopModel
}

/// Uncertainty estimates in gpsd's terms: 95% confidence, except position errors from `GBS`,
/// which are the receiver's 1σ values (see ``ErrorSource``).
public struct ErrorEstimates: Sendable, Hashable {
    /// Horizontal position error, metres (gpsd `eph`).
    public var horizontal: Double?
    /// Vertical position error, metres (`epv`).
    public var vertical: Double?
    /// Longitude error, metres (`epx`).
    public var longitude: Double?
    /// Latitude error, metres (`epy`).
    public var latitude: Double?
    /// Spherical position error, metres (`sep`).
    public var spherical: Double?
    /// Speed error, metres per second (`eps`).
    public var speed: Double?
    /// Climb error, metres per second (`epc`).
    public var climb: Double?
    /// Time error, seconds (`ept`).
    public var time: Double?
    /// Where the position estimates came from.
    public var source: ErrorSource?

    public init() {}
}

/// The receiver's pseudorange noise statistics from `GST`, 1σ, kept apart from the error model.
public struct NoiseStatistics: Sendable, Hashable {
    public var rms: Double?
    public var semiMajor: Double?
    public var semiMinor: Double?
    /// Orientation of the semi-major axis, degrees from true north.
    public var orientation: Double?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?

    public init() {}
}

/// One satellite in view.
public struct Satellite: Sendable, Hashable {
    /// The system; `nil` when the talker and number do not say.
    public var constellation: Constellation?
    /// The satellite number within its system (PRN for GPS, slot for GLONASS, …).
    public var svid: Int
    /// The number as the receiver sent it.
    public var nmeaID: Int
    /// NMEA 4.10 signal ID; `nil` before 4.10.
    public var signal: Int?
    public var elevation: Double?
    public var azimuth: Double?
    /// Carrier-to-noise density, dB-Hz.
    public var snr: Double?
    /// Whether the receiver used it in the solution (from GSA).
    public var used: Bool

    public init(
        constellation: Constellation?, svid: Int, nmeaID: Int, signal: Int? = nil, elevation: Double? = nil,
        azimuth: Double? = nil, snr: Double? = nil, used: Bool = false
    ) {
        self.constellation = constellation
        self.svid = svid
        self.nmeaID = nmeaID
        self.signal = signal
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
    }
}

extension Collection where Element == Satellite {
    /// How many satellites are marked used, each once however many of its signals are listed.
    public var usedSatelliteCount: Int {
        // A few dozen entries: comparing with the earlier ones allocates nothing.
        var count = 0
        for (index, satellite) in zip(indices, self) where satellite.used {
            let earlier = self[startIndex..<index].contains {
                $0.used && $0.constellation == satellite.constellation && $0.svid == satellite.svid
            }
            if !earlier { count += 1 }
        }
        return count
    }
}

/// One receiver epoch merged from all its sentences. Units are SI: degrees, metres, metres per
/// second; `nil` where the receiver did not say and nothing could be derived.
public struct Fix: Sendable, Hashable {
    /// UTC time of the epoch with its date; `nil` until a date is known (from RMC or ZDA).
    public var time: UTCTimestamp?
    /// The time of day as sent, known even before the date.
    public var timeOfDay: NMEATime?
    public var mode: FixMode = .notSeen
    public var status: FixStatus = .unknown
    /// Degrees north.
    public var latitude: Double?
    /// Degrees east.
    public var longitude: Double?
    /// Altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Altitude above the WGS84 ellipsoid, metres.
    public var altitudeHAE: Double?
    /// Height of the geoid above the ellipsoid, metres.
    public var geoidSeparation: Double?
    /// Speed over ground, metres per second.
    public var speed: Double?
    /// Whether `speed` was derived from the change of position (the receiver gave none).
    public var speedIsDerived = false
    /// Course over ground, degrees true.
    public var course: Double?
    /// Magnetic variation, degrees (east positive).
    public var magneticVariation: Double?
    /// Vertical speed, metres per second (up positive).
    public var climb: Double?
    /// Whether `climb` was derived from the change of altitude.
    public var climbIsDerived = false
    /// True heading from a heading sensor (`HDT`), degrees.
    public var heading: Double?
    public var dop = DOP()
    public var errors = ErrorEstimates()
    /// GST statistics of this epoch, if the receiver sent them.
    public var noise: NoiseStatistics?
    /// Satellites used in the solution, each counted once however many of its signals were used
    /// (GGA's and GPX's meaning; gpsd's `uSat` counts signals, see ``FixFormat``).
    public var satellitesUsed: Int?
    /// Satellites in view, with signal strengths and which are used.
    public var satellites: [Satellite] = []
    /// Age of differential corrections, seconds.
    public var dgpsAge: Double?
    public var dgpsStation: Int?
    /// How many sentences contributed to this epoch.
    public var sentenceCount = 0
    /// The system clock when the read that brought the epoch's first byte returned, for a live
    /// receiver (serial, TCP, UDP); `nil` for a log. Its difference to ``time`` is the offset a
    /// clock discipline (chrony's SOCK refclock, gpsd's TOFF) takes from the receiver.
    public var arrival: UTCTimestamp?

    public init() {}

    /// Whether the fix has a position.
    public var hasPosition: Bool { mode >= .twoDimensional && latitude != nil && longitude != nil }
}
