import NMEA

/// Text encodings of fixes: gpsd's `TPV`/`SKY` reports, this library's JSON record, and CSV.
public enum FixFormat {
    /// gpsd's TPV report for a fix (`{"class":"TPV",…}`), with gpsd's field names, units and
    /// number formats, so that it can be compared with gpsd's output line by line.
    public static func gpsdTPV(_ fix: Fix) -> String {
        var json = JSONObjectWriter()
        json.add("class", string: "TPV")
        if fix.status.rawValue >= 2 { json.add("status", integer: fix.status.rawValue) }
        json.add("mode", integer: fix.mode.rawValue)
        if let time = fix.time {
            json.add("time", string: time.iso8601)
            if let ept = fix.errors.time { json.add("ept", ept, decimals: 3) }
        }
        if fix.mode >= .twoDimensional {
            json.add("lat", fix.latitude, decimals: 9)
            json.add("lon", fix.longitude, decimals: 9)
            json.add("altHAE", fix.altitudeHAE, decimals: 4)
            json.add("altMSL", fix.altitudeMSL, decimals: 4)
            json.add("alt", fix.altitudeMSL, decimals: 4)
            json.add("epx", fix.errors.longitude, decimals: 3)
            json.add("epy", fix.errors.latitude, decimals: 3)
            json.add("epv", fix.errors.vertical, decimals: 3)
            json.add("track", fix.course, decimals: 4)
        }
        json.add("magvar", fix.magneticVariation, decimals: 1)
        if fix.mode >= .twoDimensional {
            json.add("speed", fix.speed, decimals: 3)
        }
        if fix.mode == .threeDimensional {
            json.add("climb", fix.climb, decimals: 3)
        }
        if fix.mode >= .twoDimensional {
            json.add("eps", fix.errors.speed, decimals: 2)
        }
        if fix.mode == .threeDimensional {
            json.add("epc", fix.errors.climb, decimals: 2)
            json.add("geoidSep", fix.geoidSeparation, decimals: 3)
        }
        if fix.mode >= .twoDimensional {
            json.add("eph", fix.errors.horizontal, decimals: 3)
            json.add("sep", fix.errors.spherical, decimals: 3)
        }
        return json.finish()
    }

    /// gpsd's SKY report: DOPs and the satellites in view.
    public static func gpsdSKY(_ fix: Fix) -> String {
        var json = JSONObjectWriter()
        json.add("class", string: "SKY")
        if let time = fix.time { json.add("time", string: time.iso8601) }
        json.add("gdop", fix.dop.gdop, decimals: 2)
        json.add("hdop", fix.dop.hdop, decimals: 2)
        json.add("pdop", fix.dop.pdop, decimals: 2)
        json.add("tdop", fix.dop.tdop, decimals: 2)
        json.add("xdop", fix.dop.xdop, decimals: 2)
        json.add("ydop", fix.dop.ydop, decimals: 2)
        json.add("vdop", fix.dop.vdop, decimals: 2)
        if !fix.satellites.isEmpty { json.add("nSat", integer: fix.satellites.count) }
        if let used = fix.satellitesUsed { json.add("uSat", integer: used) }
        if !fix.satellites.isEmpty {
            json.add("satellites", raw: "[" + fix.satellites.map(gpsdSatellite).joined(separator: ",") + "]")
        }
        return json.finish()
    }

    private static func gpsdSatellite(_ satellite: Satellite) -> String {
        var json = JSONObjectWriter()
        json.add("PRN", integer: satellite.nmeaID)
        if let constellation = satellite.constellation {
            json.add("gnssid", integer: gpsdGNSSID(constellation))
        }
        json.add("svid", integer: satellite.svid)
        if let signal = satellite.signal { json.add("sigid", integer: signal) }
        json.add("az", satellite.azimuth, decimals: 1)
        json.add("el", satellite.elevation, decimals: 1)
        json.add("ss", satellite.snr, decimals: 1)
        json.add("used", bool: satellite.used)
        return json.finish()
    }

    /// u-blox GNSS identifiers, as gpsd reports them.
    private static func gpsdGNSSID(_ constellation: Constellation) -> Int {
        switch constellation {
        case .gps: 0
        case .sbas: 1
        case .galileo: 2
        case .beidou: 3
        case .qzss: 5
        case .glonass: 6
        case .navic: 7
        }
    }

    /// This library's record of a fix, one JSON object (schema in README.md).
    public static func jsonRecord(_ fix: Fix) -> String {
        var json = JSONObjectWriter()
        json.add("time", string: fix.time?.iso8601)
        json.add("timeOfDay", string: fix.timeOfDay?.description)
        json.add("mode", integer: fix.mode.rawValue)
        json.add("status", string: fix.status.jsonName)
        json.add("latitude", fix.latitude, decimals: 9)
        json.add("longitude", fix.longitude, decimals: 9)
        json.add("altitudeMSL", fix.altitudeMSL, decimals: 3)
        json.add("altitudeHAE", fix.altitudeHAE, decimals: 3)
        json.add("geoidSeparation", fix.geoidSeparation, decimals: 3)
        json.add("speed", fix.speed, decimals: 3)
        if fix.speed != nil { json.add("speedDerived", bool: fix.speedIsDerived) }
        json.add("course", fix.course, decimals: 2)
        json.add("climb", fix.climb, decimals: 3)
        if fix.climb != nil { json.add("climbDerived", bool: fix.climbIsDerived) }
        json.add("magneticVariation", fix.magneticVariation, decimals: 1)
        json.add("heading", fix.heading, decimals: 2)
        var dop = JSONObjectWriter()
        dop.add("pdop", fix.dop.pdop, decimals: 2)
        dop.add("hdop", fix.dop.hdop, decimals: 2)
        dop.add("vdop", fix.dop.vdop, decimals: 2)
        dop.add("tdop", fix.dop.tdop, decimals: 2)
        dop.add("gdop", fix.dop.gdop, decimals: 2)
        dop.add("xdop", fix.dop.xdop, decimals: 2)
        dop.add("ydop", fix.dop.ydop, decimals: 2)
        json.add("dop", raw: dop.finish())
        var errors = JSONObjectWriter()
        errors.add("horizontal", fix.errors.horizontal, decimals: 3)
        errors.add("vertical", fix.errors.vertical, decimals: 3)
        errors.add("latitude", fix.errors.latitude, decimals: 3)
        errors.add("longitude", fix.errors.longitude, decimals: 3)
        errors.add("spherical", fix.errors.spherical, decimals: 3)
        errors.add("speed", fix.errors.speed, decimals: 3)
        errors.add("climb", fix.errors.climb, decimals: 3)
        errors.add("time", fix.errors.time, decimals: 3)
        errors.add("source", string: fix.errors.source?.rawValue)
        json.add("errors", raw: errors.finish())
        if let noise = fix.noise {
            var gst = JSONObjectWriter()
            gst.add("rms", noise.rms, decimals: 3)
            gst.add("semiMajor", noise.semiMajor, decimals: 3)
            gst.add("semiMinor", noise.semiMinor, decimals: 3)
            gst.add("orientation", noise.orientation, decimals: 1)
            gst.add("latitude", noise.latitude, decimals: 3)
            gst.add("longitude", noise.longitude, decimals: 3)
            gst.add("altitude", noise.altitude, decimals: 3)
            json.add("noise", raw: gst.finish())
        }
        json.add("satellitesUsed", integer: fix.satellitesUsed)
        json.add("satellitesInView", integer: fix.satellites.count)
        if !fix.satellites.isEmpty {
            let satellites = fix.satellites.map { satellite in
                var entry = JSONObjectWriter()
                entry.add("system", string: satellite.constellation?.description)
                entry.add("svid", integer: satellite.svid)
                entry.add("signal", integer: satellite.signal)
                entry.add("elevation", satellite.elevation, decimals: 0)
                entry.add("azimuth", satellite.azimuth, decimals: 0)
                entry.add("snr", satellite.snr, decimals: 0)
                entry.add("used", bool: satellite.used)
                return entry.finish()
            }
            json.add("satellites", raw: "[" + satellites.joined(separator: ",") + "]")
        }
        json.add("sentences", integer: fix.sentenceCount)
        return json.finish()
    }

    /// The CSV columns, in order.
    public static let csvHeader =
        "time,mode,status,latitude,longitude,altitude_msl,altitude_hae,speed_mps,course_deg,climb_mps,"
        + "hdop,vdop,pdop,eph_m,epv_m,satellites_used,satellites_in_view"

    /// One CSV row; empty cells where a value is unknown.
    public static func csvRow(_ fix: Fix) -> String {
        func cell(_ value: Double?, _ decimals: Int) -> String {
            value.map { formatFixed($0, decimals) } ?? ""
        }
        return [
            fix.time?.iso8601 ?? "", String(fix.mode.rawValue), fix.status.jsonName,
            cell(fix.latitude, 9), cell(fix.longitude, 9), cell(fix.altitudeMSL, 3), cell(fix.altitudeHAE, 3),
            cell(fix.speed, 3), cell(fix.course, 2), cell(fix.climb, 3), cell(fix.dop.hdop, 2),
            cell(fix.dop.vdop, 2), cell(fix.dop.pdop, 2), cell(fix.errors.horizontal, 3),
            cell(fix.errors.vertical, 3), fix.satellitesUsed.map(String.init) ?? "",
            String(fix.satellites.count),
        ].joined(separator: ",")
    }
}

extension FixStatus {
    /// The status's name in this library's JSON and CSV records.
    public var jsonName: String {
        switch self {
        case .unknown: "unknown"
        case .gps: "gps"
        case .dgps: "dgps"
        case .rtkFixed: "rtkFixed"
        case .rtkFloat: "rtkFloat"
        case .deadReckoning: "deadReckoning"
        case .gnssDeadReckoning: "gnssDeadReckoning"
        case .manual: "manual"
        case .simulated: "simulated"
        case .pps: "pps"
        }
    }
}

/// JSON string literals.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result +=
                        "\\u00" + String(scalar.value >> 4, radix: 16) + String(scalar.value & 15, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// Builds one JSON object, skipping `nil` values.
struct JSONObjectWriter {
    private var text = "{"
    private var first = true

    private mutating func key(_ name: String) {
        if !first { text += "," }
        first = false
        text += "\"" + name + "\":"
    }

    mutating func add(_ name: String, string value: String?) {
        guard let value else { return }
        key(name)
        text += JSONText.quoted(value)
    }

    mutating func add(_ name: String, integer value: Int?) {
        guard let value else { return }
        key(name)
        text += String(value)
    }

    mutating func add(_ name: String, bool value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    mutating func add(_ name: String, _ value: Double?, decimals: Int) {
        guard let value, value.isFinite else { return }
        key(name)
        text += formatFixed(value, decimals)
    }

    mutating func add(_ name: String, raw: String) {
        key(name)
        text += raw
    }

    func finish() -> String { text + "}" }
}

/// `value` with exactly `decimals` decimals, rounded half away from zero (as `%.Nf` prints it
/// for all but exact binary ties).
public func formatFixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9.0e15 else { return String(value) }
    let integer = UInt64(scaled)
    let unit = UInt64(scale)
    let whole = integer / unit
    let fraction = integer % unit
    var text = value < 0 && integer != 0 ? "-" : ""
    text += String(whole)
    if decimals > 0 {
        let digits = String(fraction)
        text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
}
