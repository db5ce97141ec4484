// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// A fix written back as NMEA 0183, as gpsd writes its "pseudo-NMEA" for a watcher that asks for
/// `nmea`: `$GPRMC`, `$GPGGA`, `$GPGSA`, `$GPGSV` (four satellites each), `$GPGST` when the
/// receiver reported noise and `$GPHDT` when it reported a true heading, each with its checksum
/// and CRLF. Only what the fix holds is written: a receiver's own sentences (proprietary ones,
/// with serial numbers and configuration) never pass through.
public enum PseudoNMEA {
    /// Appends the fix's sentences to `output`.
    public static func append(_ fix: Fix, to output: inout [UInt8]) {
        let (time, date) = Self.time(fix)
        let latitude = fix.latitude.map { NMEACoordinate(degrees: $0, isLatitude: true, minuteDecimals: 6) }
        let longitude = fix.longitude.map {
            NMEACoordinate(degrees: $0, isLatitude: false, minuteDecimals: 6)
        }
        let valid = fix.hasPosition
        let mode: FAAMode =
            switch fix.status {
            case _ where !valid: .notValid
            case .dgps: .differential
            case .rtkFixed: .fixedRTK
            case .rtkFloat: .floatRTK
            case .deadReckoning, .gnssDeadReckoning: .estimated
            case .manual: .manual
            case .simulated: .simulator
            default: .autonomous
            }
        output += RMC(
            time: time, status: valid ? .valid : .invalid, latitude: valid ? latitude : nil,
            longitude: valid ? longitude : nil, speedKnots: decimal(fix.speed.map { $0 * 3600 / 1852 }, 3),
            courseTrue: decimal(fix.course, 2), date: date, mode: mode
        ).encoded()
        let quality: Int =
            switch fix.status {
            case _ where !valid: 0
            case .dgps: 2
            case .pps: 3
            case .rtkFixed: 4
            case .rtkFloat: 5
            case .deadReckoning, .gnssDeadReckoning: 6
            case .manual: 7
            case .simulated: 8
            default: 1
            }
        let used = fix.satellites.filter(\.used).map { UInt16(clamping: $0.nmeaID) }
        output += GGA(
            time: time, latitude: valid ? latitude : nil, longitude: valid ? longitude : nil,
            quality: quality,
            satellitesUsed: fix.satellitesUsed ?? (used.isEmpty ? nil : used.count),
            hdop: decimal(fix.dop.hdop, 2),
            altitude: decimal(fix.altitudeMSL, 2), altitudeUnit: fix.altitudeMSL == nil ? nil : "M",
            geoidSeparation: decimal(fix.geoidSeparation, 2),
            geoidSeparationUnit: fix.geoidSeparation == nil ? nil : "M", dgpsAge: decimal(fix.dgpsAge, 1),
            dgpsStation: fix.dgpsStation
        ).encoded()
        let fixType =
            switch fix.mode {
            case .threeDimensional: 3
            case .twoDimensional: 2
            default: 1
            }
        output += GSA(
            selectionMode: "A", fixType: fixType, satellites: Array(used.prefix(12)),
            pdop: decimal(fix.dop.pdop, 2),
            hdop: decimal(fix.dop.hdop, 2), vdop: decimal(fix.dop.vdop, 2)
        ).encoded()
        let inView = fix.satellites
        let parts = (inView.count + 3) / 4
        for part in 0..<parts {
            output += GSV(
                messageCount: parts, messageNumber: part + 1, satellitesInView: inView.count,
                satellites: inView.dropFirst(part * 4).prefix(4).map { satellite in
                    GSVSatellite(
                        id: UInt16(clamping: satellite.nmeaID),
                        elevation: satellite.elevation.map { Int16(clamping: Int($0.rounded())) },
                        azimuth: satellite.azimuth.map { Int16(clamping: Int($0.rounded())) },
                        snr: satellite.snr.map { Int16(clamping: Int($0.rounded())) })
                }
            ).encoded()
        }
        if let noise = fix.noise {
            output += GST(
                time: time, rms: decimal(noise.rms, 3), semiMajor: decimal(noise.semiMajor, 3),
                semiMinor: decimal(noise.semiMinor, 3), orientation: decimal(noise.orientation, 1),
                latitudeError: decimal(noise.latitude, 3), longitudeError: decimal(noise.longitude, 3),
                altitudeError: decimal(noise.altitude, 3)
            ).encoded()
        }
        if let heading = fix.heading {
            output += HDT(talker: .gps, heading: decimal(heading, 2)).encoded()
        }
    }

    private static func time(_ fix: Fix) -> (NMEATime?, NMEADate?) {
        guard let timestamp = fix.time else { return (fix.timeOfDay, nil) }
        let ofDay = timestamp.nanosecondsOfDay
        let seconds = ofDay / 1_000_000_000
        let centiseconds = ofDay / 10_000_000 % 100
        let time = NMEATime(
            hour: UInt8(seconds / 3600), minute: UInt8(seconds / 60 % 60), second: UInt8(seconds % 60),
            nanoseconds: UInt32(centiseconds * 10_000_000), fractionDigits: 2)
        let civil = timestamp.date
        let date = NMEADate(
            day: UInt8(civil.day), month: UInt8(civil.month),
            yearOfCentury: UInt8(((civil.year % 100) + 100) % 100))
        return (time, date)
    }

    private static func decimal(_ value: Double?, _ decimals: UInt8) -> NMEADecimal? {
        guard let value, value.isFinite, abs(value) < 1e12 else { return nil }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return NMEADecimal(mantissa: Int64((value * scale).rounded()), scale: decimals)
    }
}
