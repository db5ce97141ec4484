// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NMEA

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Simulates a vehicle driving a route with stops, turns and climbs, and writes what a modern
/// multi-constellation receiver (NMEA 4.10) would send for it: RMC, VTG, GGA, one GSA per system,
/// GSV per system and signal, GLL, GST and ZDA each epoch.
public struct RouteSimulator: Sendable {
    /// Faults that real receivers and links produce, injected at the given rates (0…1 per
    /// sentence, except `noFixEvery`).
    public struct Faults: Sendable, Hashable {
        /// Sentences sent with a wrong checksum.
        public var badChecksum = 0.0
        /// Sentences cut short (no line end before the next one starts).
        public var truncated = 0.0
        /// Bursts of binary bytes (as from a receiver mixing in its binary protocol).
        public var binaryGarbage = 0.0
        /// Every this many epochs, a stretch of `noFixLength` epochs without a fix (0: never).
        public var noFixEvery = 0
        public var noFixLength = 10

        public init() {}

        /// Frequent faults of every kind, for tests that need many of each in a short log.
        public static var heavy: Faults {
            var faults = Faults()
            faults.badChecksum = 0.01
            faults.truncated = 0.01
            faults.binaryGarbage = 0.005
            faults.noFixEvery = 60
            faults.noFixLength = 10
            return faults
        }

        /// A realistic mixture for stress tests.
        public static var realistic: Faults {
            var faults = Faults()
            faults.badChecksum = 0.001
            faults.truncated = 0.001
            faults.binaryGarbage = 0.0005
            faults.noFixEvery = 600
            faults.noFixLength = 15
            return faults
        }
    }

    private struct SimSatellite: Sendable {
        var system: Constellation
        var id: Int
        var azimuth: Double
        var elevation: Double
        var azimuthRate: Double
        var elevationRate: Double
    }

    public var start: UTCTimestamp
    public var rate: Int
    public var faults: Faults
    private var generator: SeededGenerator
    private var latitude: Double
    private var longitude: Double
    private var altitude: Double
    private var speed = 0.0
    private var course: Double
    private var targetSpeed = 13.0
    private var turnRate = 0.0
    private var stopRemaining = 0
    private var epoch = 0
    private var satellites: [SimSatellite] = []

    /// - Parameters:
    ///   - seed: the same seed gives the same log.
    ///   - start: the UTC time of the first epoch.
    ///   - rate: epochs per second (1 or 10 are typical).
    public init(
        seed: UInt64 = 1,
        start: UTCTimestamp = UTCTimestamp(
            date: CivilDate(year: 2026, month: 3, day: 14), nanosecondsOfDay: 8 * 3_600_000_000_000)!,
        latitude: Double = 52.3731, longitude: Double = 4.8926, altitude: Double = 12, rate: Int = 1,
        faults: Faults = Faults()
    ) {
        precondition(rate >= 1 && rate <= 50, "rate must be 1…50 epochs per second")
        generator = SeededGenerator(seed: seed)
        self.start = start
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.rate = rate
        self.faults = faults
        course = Double.random(in: 0..<360, using: &generator)
        let counts: [(Constellation, Int, ClosedRange<Int>)] = [
            (.gps, 10, 1...32), (.glonass, 7, 65...88), (.galileo, 8, 1...36), (.beidou, 8, 1...63),
        ]
        for (system, count, ids) in counts {
            var used = Set<Int>()
            while used.count < count { used.insert(Int.random(in: ids, using: &generator)) }
            for id in used.sorted() {
                satellites.append(
                    SimSatellite(
                        system: system, id: id, azimuth: Double.random(in: 0..<360, using: &generator),
                        elevation: Double.random(in: 5...85, using: &generator),
                        azimuthRate: Double.random(in: -0.004...0.004, using: &generator),
                        elevationRate: Double.random(in: -0.002...0.002, using: &generator)))
            }
        }
    }

    /// The time of the next epoch.
    public var time: UTCTimestamp {
        UTCTimestamp(
            nanosecondsSinceEpoch: start.nanosecondsSinceEpoch + Int64(epoch) * 1_000_000_000 / Int64(rate))
    }

    /// Appends the bytes of the next epoch to `output`.
    public mutating func appendEpoch(to output: inout [UInt8]) {
        let dt = 1.0 / Double(rate)
        advance(dt)
        let now = time
        epoch += 1
        let noFix = faults.noFixEvery > 0 && epoch % faults.noFixEvery < faults.noFixLength
        for sentence in sentences(at: now, noFix: noFix) {
            emit(sentence.encoded(), to: &output)
        }
    }

    /// The whole log for `epochs` epochs.
    public mutating func log(epochs: Int) -> [UInt8] {
        var output: [UInt8] = []
        for _ in 0..<epochs { appendEpoch(to: &output) }
        return output
    }

    private mutating func advance(_ dt: Double) {
        // Stops, then acceleration toward a target speed; gentle random turns.
        if stopRemaining > 0 {
            stopRemaining -= 1
            speed = max(0, speed - 3 * dt)
        } else {
            if Double.random(in: 0..<1, using: &generator) < 0.002 * dt * Double(rate) {
                stopRemaining = Int.random(in: 10...40, using: &generator) * rate
            }
            if Double.random(in: 0..<1, using: &generator) < 0.01 * dt {
                targetSpeed = Double.random(in: 5...30, using: &generator)
            }
            speed += max(-3 * dt, min(2 * dt, targetSpeed - speed))
        }
        if Double.random(in: 0..<1, using: &generator) < 0.02 * dt {
            turnRate = Double.random(in: -15...15, using: &generator)
        }
        if Double.random(in: 0..<1, using: &generator) < 0.05 * dt { turnRate = 0 }
        if speed > 0.5 {
            course = (course + turnRate * dt).truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
        }
        let climb = sin(Double(epoch) / Double(rate) / 120) * 0.4 * min(1, speed / 10)
        altitude += climb * dt
        let next = Geodesy.destination(
            latitude: latitude, longitude: longitude, bearing: course, distance: speed * dt)
        latitude = next.latitude
        longitude = next.longitude
        for index in satellites.indices {
            satellites[index].azimuth = (satellites[index].azimuth + satellites[index].azimuthRate * dt * 60)
                .truncatingRemainder(dividingBy: 360)
            if satellites[index].azimuth < 0 { satellites[index].azimuth += 360 }
            var elevation = satellites[index].elevation + satellites[index].elevationRate * dt * 60
            if elevation > 88 || elevation < 2 {
                satellites[index].elevationRate = -satellites[index].elevationRate
                elevation = max(2, min(88, elevation))
            }
            satellites[index].elevation = elevation
        }
    }

    private mutating func sentences(at now: UTCTimestamp, noFix: Bool) -> [NMEASentence] {
        let ofDay = now.nanosecondsOfDay
        let centis = UInt32(ofDay / 10_000_000 % 100)
        let seconds = Int(ofDay / 1_000_000_000)
        let time = NMEATime(
            hour: UInt8(seconds / 3600), minute: UInt8(seconds / 60 % 60), second: UInt8(seconds % 60),
            nanoseconds: centis * 10_000_000, fractionDigits: 2)
        let date = now.date
        let nmeaDate = NMEADate(
            day: UInt8(date.day), month: UInt8(date.month), yearOfCentury: UInt8(date.year % 100))
        let noise = { (generator: inout SeededGenerator, scale: Double) in
            Double.random(in: -scale...scale, using: &generator)
        }
        let reportedLatitude = latitude + noise(&generator, 0.000002)
        let reportedLongitude = longitude + noise(&generator, 0.000003)
        let lat = NMEACoordinate(degrees: reportedLatitude, isLatitude: true)
        let lon = NMEACoordinate(degrees: reportedLongitude, isLatitude: false)
        let knots = speed * 3600 / 1852
        let speedKnots = NMEADecimal(mantissa: Int64((knots * 1000).rounded()), scale: 3)
        let speedKmh = NMEADecimal(mantissa: Int64((speed * 3.6 * 1000).rounded()), scale: 3)
        let courseValue = NMEADecimal(mantissa: Int64((course * 100).rounded()), scale: 2)

        // Which satellites are tracked and used.
        var snr: [Int] = []
        var used: [Bool] = []
        for satellite in satellites {
            let strength = Int(22 + satellite.elevation / 4 + noise(&generator, 3))
            snr.append(strength)
            used.append(!noFix && satellite.elevation > 10 && strength > 26)
        }
        let geometry = Geodesy.dilution(
            azimuthsAndElevations: zip(satellites, used).filter(\.1).map { ($0.0.azimuth, $0.0.elevation) })
        let usedCount = used.filter { $0 }.count
        func dop(_ value: Double?) -> NMEADecimal? {
            value.map { NMEADecimal(mantissa: Int64(($0 * 100).rounded()), scale: 2) }
        }

        var result: [NMEASentence] = []
        if noFix {
            result.append(
                .rmc(
                    RMC(
                        talker: .gnss, time: time, status: .invalid, date: nmeaDate, mode: .notValid,
                        navigationStatus: "V")))
            result.append(.vtg(VTG(talker: .gnss, mode: .notValid)))
            result.append(
                .gga(
                    GGA(
                        talker: .gnss, time: time, quality: 0, satellitesUsed: 0,
                        hdop: NMEADecimal(mantissa: 9999, scale: 2))))
        } else {
            result.append(
                .rmc(
                    RMC(
                        talker: .gnss, time: time, status: .valid, latitude: lat, longitude: lon,
                        speedKnots: speedKnots, courseTrue: courseValue, date: nmeaDate, mode: .autonomous,
                        navigationStatus: "V")))
            result.append(
                .vtg(
                    VTG(
                        talker: .gnss, courseTrue: courseValue, speedKnots: speedKnots,
                        speedKilometresPerHour: speedKmh, mode: .autonomous)))
            result.append(
                .gga(
                    GGA(
                        talker: .gnss, time: time, latitude: lat, longitude: lon, quality: 1,
                        satellitesUsed: usedCount, hdop: dop(geometry?.hdop),
                        altitude: NMEADecimal(mantissa: Int64((altitude * 10).rounded()), scale: 1),
                        altitudeUnit: "M",
                        geoidSeparation: NMEADecimal(mantissa: 469, scale: 1), geoidSeparationUnit: "M")))
        }
        for system in [Constellation.gps, .glonass, .galileo, .beidou] {
            let ids = satellites.indices.filter { satellites[$0].system == system && used[$0] }.map {
                UInt16(satellites[$0].id)
            }
            result.append(
                .gsa(
                    GSA(
                        talker: .gnss, selectionMode: "A", fixType: noFix ? 1 : 3,
                        satellites: Array(ids.prefix(12)),
                        pdop: dop(geometry?.pdop), hdop: dop(geometry?.hdop), vdop: dop(geometry?.vdop),
                        systemID: Int(system.rawValue))))
        }
        let signals: [(Constellation, Talker, [Int])] = [
            (.gps, .gps, [1, 5]), (.glonass, .glonass, [1]), (.galileo, .galileo, [7]),
            (.beidou, .beidou, [1]),
        ]
        for (system, talker, signalIDs) in signals {
            let members = satellites.indices.filter { satellites[$0].system == system }
            for signal in signalIDs {
                let count = (members.count + 3) / 4
                for part in 0..<count {
                    let slice = members.dropFirst(part * 4).prefix(4)
                    result.append(
                        .gsv(
                            GSV(
                                talker: talker, messageCount: count, messageNumber: part + 1,
                                satellitesInView: members.count,
                                satellites: slice.map { index in
                                    GSVSatellite(
                                        id: UInt16(satellites[index].id),
                                        elevation: Int16(satellites[index].elevation.rounded()),
                                        azimuth: Int16(satellites[index].azimuth.rounded()) % 360,
                                        snr: noFix ? nil : Int16(clamping: snr[index] - (signal == 5 ? 4 : 0))
                                    )
                                }, signalID: signal)))
                }
            }
        }
        if !noFix {
            result.append(
                .gll(
                    GLL(
                        talker: .gnss, latitude: lat, longitude: lon, time: time, status: .valid,
                        mode: .autonomous)))
            result.append(
                .gst(
                    GST(
                        talker: .gnss, time: time, rms: NMEADecimal(mantissa: 18, scale: 1),
                        semiMajor: NMEADecimal(mantissa: 21, scale: 1),
                        semiMinor: NMEADecimal(mantissa: 15, scale: 1),
                        orientation: NMEADecimal(mantissa: 453, scale: 1),
                        latitudeError: NMEADecimal(mantissa: 17, scale: 1),
                        longitudeError: NMEADecimal(mantissa: 19, scale: 1),
                        altitudeError: NMEADecimal(mantissa: 32, scale: 1))))
        }
        result.append(
            .zda(
                ZDA(
                    talker: .gnss, time: time, day: date.day, month: date.month, year: date.year,
                    zoneHours: 0, zoneMinutes: 0)))
        return result
    }

    private mutating func emit(_ sentence: [UInt8], to output: inout [UInt8]) {
        if faults.binaryGarbage > 0, Double.random(in: 0..<1, using: &generator) < faults.binaryGarbage {
            for _ in 0..<Int.random(in: 8...64, using: &generator) {
                output.append(UInt8.random(in: 0...255, using: &generator))
            }
        }
        if faults.truncated > 0, Double.random(in: 0..<1, using: &generator) < faults.truncated {
            output.append(
                contentsOf: sentence.prefix(Int.random(in: 5..<(sentence.count - 5), using: &generator)))
            return
        }
        if faults.badChecksum > 0, Double.random(in: 0..<1, using: &generator) < faults.badChecksum {
            var corrupted = sentence
            corrupted[corrupted.count - 3] =
                corrupted[corrupted.count - 3] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            output.append(contentsOf: corrupted)
            return
        }
        output.append(contentsOf: sentence)
    }
}
