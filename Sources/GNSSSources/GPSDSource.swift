// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import Logging
import NMEA

/// Turns gpsd's JSON reports into fixes: one `Fix` per `TPV`, carrying the satellites and
/// dilutions of the latest `SKY` and the latest `GST` statistics of the same device.
///
/// ```
/// {"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2026-03-01T08:00:01.000Z","lat":52.37,…}
/// ```
///
/// Bytes arrive in chunks of any size; reports are lines. A line that is not JSON, or longer than
/// ``maximumLineLength``, is counted and skipped. `VERSION`, `DEVICES` and `ERROR` reports are
/// passed to `notice` as text for the log.
public struct GPSDDecoder: IncrementalDecoder, Sendable {
    /// Counts of what was read.
    public struct Statistics: Sendable, Hashable {
        public var reports = 0
        public var fixes = 0
        /// Lines that were not a JSON object with a `class`.
        public var unparsable = 0
        /// Lines dropped for being longer than ``GPSDDecoder/maximumLineLength``.
        public var overlong = 0
        public var errors = 0
    }

    /// gpsd's longest reports (SKY with many signals) are a few kilobytes.
    public static let maximumLineLength = 1 << 16

    /// Only reports from this device count, when given.
    public var device: String?
    public private(set) var statistics = Statistics()
    private var line: [UInt8] = []
    private var discarding = false
    private var sky: (satellites: [Satellite], dop: DOP, used: Int?) = ([], DOP(), nil)
    private var noise: (time: UTCTimestamp?, value: NoiseStatistics)?

    public init(device: String? = nil) {
        self.device = device
    }

    /// What a chunk of gpsd's reports gives.
    public enum Output: Sendable {
        case fix(Fix)
        /// A message worth logging (gpsd's version, its devices, an error it reported).
        case notice(String)
    }

    /// Feeds a chunk; `output` gets each completed fix and each message worth logging.
    public mutating func append(_ chunk: UnsafeRawBufferPointer, _ output: (Output) -> Void) {
        decode(chunk, notice: { output(.notice($0)) }) { output(.fix($0)) }
    }

    /// Ends the input: a last report without its line end is read.
    public mutating func finish(_ output: (Output) -> Void) {
        if !discarding && !line.isEmpty {
            report(line, notice: { output(.notice($0)) }) { output(.fix($0)) }
        }
        line.removeAll(keepingCapacity: true)
        discarding = false
    }

    /// Feeds a chunk, with fixes and messages apart: `emit` gets each completed fix, `notice` each
    /// message worth logging.
    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, notice: (String) -> Void = { _ in }, _ emit: (Fix) -> Void
    ) {
        for byte in chunk {
            if byte == 10 || byte == 13 {
                if !discarding && !line.isEmpty { report(line, notice: notice, emit) }
                line.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                if line.count >= Self.maximumLineLength {
                    statistics.overlong += 1
                    discarding = true
                    line.removeAll(keepingCapacity: true)
                } else {
                    line.append(byte)
                }
            }
        }
    }

    private mutating func report(_ bytes: [UInt8], notice: (String) -> Void, _ emit: (Fix) -> Void) {
        guard
            let object = JSONValue.parse(bytes),
            let kind = object["class"]?.string
        else {
            statistics.unparsable += 1
            return
        }
        statistics.reports += 1
        if let device, let from = object["device"]?.string, from != device { return }
        switch kind {
        case "TPV":
            var fix = Self.fix(object)
            fix.satellites = sky.satellites
            fix.dop = sky.dop
            fix.satellitesUsed = sky.used
            if let noise, noise.time == nil || noise.time == fix.time { fix.noise = noise.value }
            statistics.fixes += 1
            emit(fix)
        case "SKY":
            // gpsd sends a SKY without satellites to update only the dilutions.
            if let list = object["satellites"]?.array {
                sky.satellites = list.compactMap(Self.satellite)
                // gpsd's uSat counts signals; the fix counts satellites.
                let used = sky.satellites.usedSatelliteCount
                sky.used = used > 0 ? used : object["uSat"]?.int
            }
            sky.dop = DOP(
                pdop: object["pdop"]?.double, hdop: object["hdop"]?.double,
                vdop: object["vdop"]?.double, tdop: object["tdop"]?.double,
                gdop: object["gdop"]?.double, xdop: object["xdop"]?.double,
                ydop: object["ydop"]?.double)
        case "GST":
            var value = NoiseStatistics()
            value.rms = object["rms"]?.double
            value.semiMajor = object["major"]?.double
            value.semiMinor = object["minor"]?.double
            value.orientation = object["orient"]?.double
            value.latitude = object["lat"]?.double
            value.longitude = object["lon"]?.double
            value.altitude = object["alt"]?.double
            noise = ((object["time"]?.string).flatMap { UTCTimestamp(iso8601: $0) }, value)
        case "VERSION":
            notice(
                "gpsd \(object["release"]?.string ?? "?") (protocol \(object["proto_major"]?.int.map(String.init) ?? "?").\(object["proto_minor"]?.int.map(String.init) ?? "?"))"
            )
        case "DEVICES":
            let paths = (object["devices"]?.array ?? []).compactMap { $0["path"]?.string }
            notice(paths.isEmpty ? "gpsd has no receiver yet" : "gpsd reads " + paths.joined(separator: ", "))
        case "ERROR":
            statistics.errors += 1
            notice("gpsd says: \(object["message"]?.string ?? "an unspecified error")")
        default:
            break
        }
    }

    /// A fix from a TPV report: gpsd's units are already degrees, metres and metres per second.
    static func fix(_ tpv: JSONValue) -> Fix {
        var fix = Fix()
        fix.time = (tpv["time"]?.string).flatMap { UTCTimestamp(iso8601: $0) }
        fix.timeOfDay = fix.time.map(NMEATime.init(millisecondsOf:))
        fix.mode = FixMode(rawValue: tpv["mode"]?.int ?? 0) ?? .notSeen
        if let status = tpv["status"]?.int {
            fix.status = FixStatus(rawValue: status) ?? .unknown
        } else if fix.mode >= .twoDimensional {
            // gpsd leaves out the status of a plain GPS fix.
            fix.status = .gps
        }
        fix.latitude = tpv["lat"]?.double
        fix.longitude = tpv["lon"]?.double
        fix.altitudeMSL = tpv["altMSL"]?.double ?? tpv["alt"]?.double
        fix.altitudeHAE = tpv["altHAE"]?.double
        fix.geoidSeparation = tpv["geoidSep"]?.double
        fix.speed = tpv["speed"]?.double
        fix.course = tpv["track"]?.double
        fix.magneticVariation = tpv["magvar"]?.double
        fix.climb = tpv["climb"]?.double
        fix.errors.horizontal = tpv["eph"]?.double
        fix.errors.vertical = tpv["epv"]?.double
        fix.errors.longitude = tpv["epx"]?.double
        fix.errors.latitude = tpv["epy"]?.double
        fix.errors.spherical = tpv["sep"]?.double
        fix.errors.speed = tpv["eps"]?.double
        fix.errors.climb = tpv["epc"]?.double
        fix.errors.time = tpv["ept"]?.double
        fix.dgpsAge = tpv["dgpsAge"]?.double
        fix.dgpsStation = tpv["dgpsSta"]?.int
        fix.sentenceCount = 1
        return fix
    }

    /// A satellite from a SKY report; gpsd's `gnssid` numbers are u-blox's.
    static func satellite(_ entry: JSONValue) -> Satellite? {
        guard let prn = entry["PRN"]?.int else { return nil }
        let constellation = entry["gnssid"]?.int.flatMap(Constellation.init(gnssID:))
        return Satellite(
            constellation: constellation, svid: entry["svid"]?.int ?? prn, nmeaID: prn,
            signal: entry["sigid"]?.int, elevation: entry["el"]?.double,
            azimuth: entry["az"]?.double,
            snr: entry["ss"]?.double, used: entry["used"]?.bool ?? false)
    }
}

/// Fixes from a gpsd daemon over its JSON protocol: `gpsd://host:port[/device]` (default
/// `localhost:2947`, every device).
///
/// Each run connects, asks for reports with `?WATCH={"enable":true,"json":true}` (naming the
/// device when one was given) and reads until gpsd closes the connection, as it does when it
/// stops or restarts; that is reported by throwing ``DisconnectError``, and the location service
/// reconnects with backoff.
public struct GPSDSource: ConnectingFixSource {
    public let host: String
    public let port: Int
    public let device: String?
    public let connectTimeout: Duration
    private let logger: Logger
    public var origin: FixOrigin { .receiver }
    public var name: String { "gpsd://\(host):\(port)\(device ?? "")" }

    public init(
        host: String = "localhost", port: Int = 2947, device: String? = nil,
        connectTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "OpenCoreLocation.gpsd")
    ) {
        self.host = host
        self.port = port
        self.device = device
        self.connectTimeout = connectTimeout
        self.logger = logger
    }

    /// The watch request sent after connecting.
    var watchCommand: String {
        var request = #"?WATCH={"enable":true,"json":true"#
        if let device { request += #","device":"# + JSONText.quoted(device) }
        return request + "};\n"
    }

    public func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws {
        let socket = try await Socket.connect(host: host, port: port, timeout: connectTimeout, name: name)
        let reader = try DescriptorReader(descriptor: socket, name: name)
        try reader.write(Array(watchCommand.utf8))
        logger.debug("\(name): connected")
        connected(name)
        let decoder = GPSDStreamDecoder(device: device, logger: logger, name: name)
        try await reader.run({ decoder.decode($0) }, delivery: delivery)
    }
}

/// A ``GPSDDecoder`` owned by one reading thread.
final class GPSDStreamDecoder: @unchecked Sendable {
    // Only the reading thread touches it, one chunk at a time.
    private var decoder: GPSDDecoder
    private var fixes: [Fix] = []
    private let logger: Logger
    private let name: String

    init(device: String?, logger: Logger, name: String) {
        decoder = GPSDDecoder(device: device)
        self.logger = logger
        self.name = name
    }

    func decode(_ chunk: UnsafeRawBufferPointer) -> [Fix] {
        fixes.removeAll(keepingCapacity: true)
        decoder.decode(chunk, notice: { logger.info("\(name): \($0)") }) { fixes.append($0) }
        return fixes
    }
}

extension Constellation {
    /// The system of a gpsd (u-blox) `gnssid`: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 5 QZSS,
    /// 6 GLONASS, 7 NavIC; `nil` for IMES (4) and anything else.
    init?(gnssID: Int) {
        switch gnssID {
        case 0: self = .gps
        case 1: self = .sbas
        case 2: self = .galileo
        case 3: self = .beidou
        case 5: self = .qzss
        case 6: self = .glonass
        case 7: self = .navic
        default: return nil
        }
    }
}

extension NMEATime {
    /// The time of day of `time`, as gpsd reports it: to the millisecond.
    init(millisecondsOf time: UTCTimestamp) {
        let ofDay = time.nanosecondsOfDay
        self.init(
            hour: UInt8(ofDay / 3_600_000_000_000), minute: UInt8(ofDay / 60_000_000_000 % 60),
            second: UInt8(ofDay / 1_000_000_000 % 60), nanoseconds: UInt32(ofDay % 1_000_000_000),
            fractionDigits: 3)
    }
}
