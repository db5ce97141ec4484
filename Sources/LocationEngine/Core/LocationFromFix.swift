// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS

extension Location {
    /// The 1σ user equivalent range error assumed when a receiver gives only DOPs, metres.
    /// `horizontalAccuracy` is then HDOP × this value: the 2-D RMS error by definition of HDOP.
    public static let assumedRangeError = 5.0
    /// The same with differential corrections (DGPS, SBAS, RTK).
    public static let assumedRangeErrorDifferential = 1.25

    /// The location of a fix, or `nil` when the fix has no position.
    ///
    /// - `horizontalAccuracy` is the 2-D RMS error: from the receiver's GST standard deviations
    ///   when it sent them, else its GBS 1σ errors, else HDOP × ``assumedRangeError``, else half the receiver's own 95%
    ///   estimate (PGRME); with none of these, 50 m for a 3-D fix and 200 m for a 2-D one. It is
    ///   never zero or negative.
    /// - The altitudes are valid only for a 3-D fix with an altitude.
    /// - Speed and course are `-1` when the receiver gave none; their accuracies are `-1` unless
    ///   known.
    /// - `timestamp` is the fix's UTC time, or `fallbackTime` when the receiver gave no date
    ///   (`Fix.bestTime(received:)` makes one).
    ///
    /// The fix is borrowed: each app makes the location of every fix, and taking the fix as its
    /// own copied several hundred bytes each time.
    public init?(fix: borrowing Fix, origin: FixOrigin, fallbackTime: Date) {
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude else {
            return nil
        }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid else { return nil }
        let differential =
            switch fix.status {
            case .dgps, .rtkFixed, .rtkFloat: true
            default: false
            }
        let rangeError = differential ? Self.assumedRangeErrorDifferential : Self.assumedRangeError

        let horizontal: Double = {
            var estimate: Double?
            if let noise = fix.noise, let sLat = noise.latitude, let sLon = noise.longitude {
                estimate = (sLat * sLat + sLon * sLon).squareRoot()
            } else if fix.errors.source == .receiverGBS, let sLat = fix.errors.latitude,
                let sLon = fix.errors.longitude
            {
                estimate = (sLat * sLat + sLon * sLon).squareRoot()
            } else if let hdop = fix.dop.hdop {
                estimate = hdop * rangeError
            } else if fix.errors.source == .receiverPGRME, let eph = fix.errors.horizontal {
                estimate = eph / 2
            }
            if let estimate, estimate > 0 { return estimate }
            return fix.mode == .threeDimensional ? 50 : 200
        }()

        var altitude = 0.0
        var ellipsoidal = 0.0
        var vertical = -1.0
        if fix.mode == .threeDimensional, let msl = fix.altitudeMSL {
            altitude = msl
            ellipsoidal = fix.altitudeHAE ?? msl
            if let sAlt = fix.noise?.altitude, sAlt > 0 {
                vertical = sAlt
            } else if let vdop = fix.dop.vdop, vdop > 0 {
                vertical = vdop * rangeError
            } else if let hdop = fix.dop.hdop, hdop > 0 {
                vertical = 1.5 * hdop * rangeError
            } else {
                vertical = 1.5 * horizontal
            }
        }

        let speed = fix.speed.flatMap { $0 >= 0 ? $0 : nil } ?? -1
        let speedAccuracy = speed >= 0 ? (fix.errors.speed.map { $0 / 2 } ?? -1) : -1
        var course = -1.0
        if let track = fix.course, track.isFinite {
            course = track.truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
        }
        let timestamp =
            fix.time.map { Date(timeIntervalSince1970: $0.secondsSinceEpoch) } ?? fallbackTime
        var heading: Heading?
        if let trueHeading = fix.heading, trueHeading.isFinite, (0..<360).contains(trueHeading) {
            heading = Heading(trueHeading: trueHeading, magneticVariation: fix.magneticVariation)
        }
        self.init(coordinate: coordinate, horizontalAccuracy: horizontal, timestamp: timestamp)
        self.altitude = altitude
        ellipsoidalAltitude = ellipsoidal
        verticalAccuracy = vertical
        self.course = course
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        source = Source(isSimulatedBySoftware: origin == .replay, isProducedByAccessory: true)
        self.heading = heading
    }

    /// The great-circle distance to `other`, metres.
    public func distance(from other: Location) -> Double {
        Geodesy.distance(
            latitude1: coordinate.latitude, longitude1: coordinate.longitude,
            latitude2: other.coordinate.latitude, longitude2: other.coordinate.longitude)
    }
}

extension Fix {
    /// When the fix was taken, as best known: its UTC time; for a receiver that gave only a time
    /// of day (GGA alone, before any RMC or ZDA), that time on the UTC day that puts it nearest
    /// to `received`, since a receiver's clock and this machine's differ by seconds, not by half a
    /// day; with no time at all, `received`. Never 1970.
    public func bestTime(received: Date) -> Date {
        if let time { return Date(timeIntervalSince1970: time.secondsSinceEpoch) }
        guard let timeOfDay else { return received }
        let day = 86_400.0
        let now = received.timeIntervalSince1970
        let offset = Double(timeOfDay.nanosecondsOfDay) / 1e9
        var candidate = (now / day).rounded(.down) * day + offset
        if candidate - now > day / 2 { candidate -= day }
        if now - candidate > day / 2 { candidate += day }
        return Date(timeIntervalSince1970: candidate)
    }
}
