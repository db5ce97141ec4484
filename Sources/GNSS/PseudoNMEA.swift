// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// A fix written back as NMEA 0183, as gpsd writes its "pseudo-NMEA" for a watcher that asks for
/// `nmea`: `$GPRMC`, `$GPGGA`, `$GPGSA`, `$GPGSV` (four satellites each), `$GPGST` when the
/// receiver reported noise and `$GPHDT` when it reported a true heading, each with its checksum
/// and CRLF. A sky of several systems or signals is written as an NMEA 4.10 receiver sends it: a
/// `$GNGSA` per system with its system ID and a GSV series per system and signal under the
/// system's talker, so that decoding the sentences again gives the sky they were made from. Only what the fix holds is written: a receiver's own sentences (proprietary ones,
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
        let countedUsed = fix.satellites.usedSatelliteCount
        output += GGA(
            time: time, latitude: valid ? latitude : nil, longitude: valid ? longitude : nil,
            quality: quality,
            satellitesUsed: fix.satellitesUsed ?? (countedUsed > 0 ? countedUsed : nil),
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
        appendSky(
            fix,
            gsa: GSA(
                selectionMode: "A", fixType: fixType, pdop: decimal(fix.dop.pdop, 2),
                hdop: decimal(fix.dop.hdop, 2), vdop: decimal(fix.dop.vdop, 2)),
            to: &output)
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

    /// The sky's GSA and GSV sentences: each GSA is `gsa` with a system's used satellites, twelve
    /// at most per sentence, each satellite once however many of its signals were used.
    private static func appendSky(_ fix: Fix, gsa: GSA, to output: inout [UInt8]) {
        let several = fix.satellites.contains {
            $0.signal != nil || (system(of: $0) != .gps)
        }
        // The systems in the order the receiver listed them, and each system's series by signal.
        var systems: [Constellation] = []
        var series: [(system: Constellation, signal: Int?, satellites: [Satellite])] = []
        for satellite in fix.satellites {
            let system = system(of: satellite)
            if !systems.contains(system) { systems.append(system) }
            if let index = series.firstIndex(where: { $0.system == system && $0.signal == satellite.signal })
            {
                series[index].satellites.append(satellite)
            } else {
                series.append((system, satellite.signal, [satellite]))
            }
        }
        if systems.isEmpty { systems = [.gps] }
        for system in systems {
            var used: [UInt16] = []
            for satellite in fix.satellites where satellite.used && self.system(of: satellite) == system {
                let id = UInt16(clamping: satellite.nmeaID)
                if !used.contains(id) { used.append(id) }
            }
            var start = 0
            repeat {
                var sentence = gsa
                if several {
                    sentence.talker = .gnss
                    sentence.systemID = Int(system.rawValue)
                }
                sentence.satellites = FixedList(filler: 0)
                for id in used[start..<min(start + 12, used.count)] { sentence.satellites.append(id) }
                output += sentence.encoded()
                start += 12
            } while start < used.count
        }
        for (system, signal, inView) in series {
            let parts = (inView.count + 3) / 4
            for part in 0..<parts {
                output += GSV(
                    talker: several ? talker(of: system) : .gps, messageCount: parts, messageNumber: part + 1,
                    satellitesInView: inView.count,
                    satellites: inView.dropFirst(part * 4).prefix(4).map { satellite in
                        GSVSatellite(
                            id: UInt16(clamping: satellite.nmeaID),
                            elevation: satellite.elevation.map { Int16(clamping: Int($0.rounded())) },
                            azimuth: satellite.azimuth.map { Int16(clamping: Int($0.rounded())) },
                            snr: satellite.snr.map { Int16(clamping: Int($0.rounded())) })
                    }, signalID: signal
                ).encoded()
            }
        }
    }

    /// The system a satellite is reported under: SBAS satellites, and those of no known system,
    /// travel with GPS, as receivers send them.
    private static func system(of satellite: Satellite) -> Constellation {
        switch satellite.constellation {
        case nil, .gps?, .sbas?: .gps
        case let system?: system
        }
    }

    private static func talker(of system: Constellation) -> Talker {
        switch system {
        case .glonass: .glonass
        case .galileo: .galileo
        case .beidou: .beidou
        case .qzss: .qzss
        case .navic: .navic
        case .gps, .sbas: .gps
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
