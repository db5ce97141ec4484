import NMEA

/// Text encodings of fixes: gpsd's `TPV`/`SKY` reports, this library's JSON record, and CSV.
public enum FixFormat {
    /// gpsd's TPV report for a fix (`{"class":"TPV",…}`), with gpsd's field names, units and
    /// number formats, so that it can be compared with gpsd's output line by line.
    public static func gpsdTPV(_ fix: Fix) -> String {
        var bytes: [UInt8] = []
        appendGPSDTPV(fix, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends gpsd's reports for a fix to `output`, one per line: the TPV, then the SKY when
    /// the fix has DOPs or satellites (as `gpsloc decode --format gpsd` prints them).
    public static func appendGPSDReports(_ fix: Fix, to output: inout [UInt8]) {
        appendGPSDTPV(fix, to: &output)
        output.append(10)
        if fix.dop.hdop != nil || fix.dop.pdop != nil || !fix.satellites.isEmpty {
            appendGPSDSKY(fix, to: &output)
            output.append(10)
        }
    }

    static func appendGPSDTPV(_ fix: Fix, to output: inout [UInt8]) {
        var json = JSONObjectWriter(takingOver: &output)
        defer { json.finish(handingBackTo: &output) }
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
    }

    /// gpsd's SKY report: DOPs and the satellites in view.
    public static func gpsdSKY(_ fix: Fix) -> String {
        var bytes: [UInt8] = []
        appendGPSDSKY(fix, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendGPSDSKY(_ fix: Fix, to output: inout [UInt8]) {
        var json = JSONObjectWriter(takingOver: &output)
        defer { json.finish(handingBackTo: &output) }
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
            json.openArray("satellites")
            for satellite in fix.satellites { gpsdSatellite(satellite, &json) }
            json.closeArray()
        }
    }

    private static func gpsdSatellite(_ satellite: Satellite, _ json: inout JSONObjectWriter) {
        json.openObject()
        defer { json.closeObject() }
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
        var bytes: [UInt8] = []
        appendJSONRecord(fix, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``jsonRecord(_:)``'s object to `output`, without a line end.
    public static func appendJSONRecord(_ fix: Fix, to output: inout [UInt8]) {
        var json = JSONObjectWriter(takingOver: &output)
        defer { json.finish(handingBackTo: &output) }
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
        json.openObject("dop")
        json.add("pdop", fix.dop.pdop, decimals: 2)
        json.add("hdop", fix.dop.hdop, decimals: 2)
        json.add("vdop", fix.dop.vdop, decimals: 2)
        json.add("tdop", fix.dop.tdop, decimals: 2)
        json.add("gdop", fix.dop.gdop, decimals: 2)
        json.add("xdop", fix.dop.xdop, decimals: 2)
        json.add("ydop", fix.dop.ydop, decimals: 2)
        json.closeObject()
        json.openObject("errors")
        json.add("horizontal", fix.errors.horizontal, decimals: 3)
        json.add("vertical", fix.errors.vertical, decimals: 3)
        json.add("latitude", fix.errors.latitude, decimals: 3)
        json.add("longitude", fix.errors.longitude, decimals: 3)
        json.add("spherical", fix.errors.spherical, decimals: 3)
        json.add("speed", fix.errors.speed, decimals: 3)
        json.add("climb", fix.errors.climb, decimals: 3)
        json.add("time", fix.errors.time, decimals: 3)
        json.add("source", string: fix.errors.source?.rawValue)
        json.closeObject()
        if let noise = fix.noise {
            json.openObject("noise")
            json.add("rms", noise.rms, decimals: 3)
            json.add("semiMajor", noise.semiMajor, decimals: 3)
            json.add("semiMinor", noise.semiMinor, decimals: 3)
            json.add("orientation", noise.orientation, decimals: 1)
            json.add("latitude", noise.latitude, decimals: 3)
            json.add("longitude", noise.longitude, decimals: 3)
            json.add("altitude", noise.altitude, decimals: 3)
            json.closeObject()
        }
        json.add("satellitesUsed", integer: fix.satellitesUsed)
        json.add("satellitesInView", integer: fix.satellites.count)
        if !fix.satellites.isEmpty {
            json.openArray("satellites")
            for satellite in fix.satellites {
                json.openObject()
                json.add("system", string: satellite.constellation?.description)
                json.add("svid", integer: satellite.svid)
                json.add("signal", integer: satellite.signal)
                json.add("elevation", satellite.elevation, decimals: 0)
                json.add("azimuth", satellite.azimuth, decimals: 0)
                json.add("snr", satellite.snr, decimals: 0)
                json.add("used", bool: satellite.used)
                json.closeObject()
            }
            json.closeArray()
        }
        json.add("sentences", integer: fix.sentenceCount)
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
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal, quotes included.
    public static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 48, 48])
                output.append(lowercaseHexDigit(byte >> 4))
                output.append(lowercaseHexDigit(byte & 15))
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 48 : nibble + 87
    }
}

/// Builds JSON objects into a byte buffer, skipping `nil` values; objects and arrays nest.
struct JSONObjectWriter {
    private var bytes: [UInt8]
    /// Whether nothing has been written yet at the current level.
    private var first = true

    /// Starts an object at the end of `buffer`, which the writer holds (moved, not copied) until
    /// ``finish(handingBackTo:)`` moves it back.
    init(takingOver buffer: inout [UInt8]) {
        bytes = []
        swap(&bytes, &buffer)
        bytes.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ name: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func add(_ name: StaticString, string value: String?) {
        guard let value else { return }
        key(name)
        JSONText.appendQuoted(value, to: &bytes)
    }

    mutating func add(_ name: StaticString, integer value: Int?) {
        guard let value else { return }
        key(name)
        appendInteger(value, to: &bytes)
    }

    mutating func add(_ name: StaticString, bool value: Bool) {
        key(name)
        if value {
            bytes.append(contentsOf: [
                UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e"),
            ])
        } else {
            bytes.append(contentsOf: [
                UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e"),
            ])
        }
    }

    mutating func add(_ name: StaticString, _ value: Double?, decimals: Int) {
        guard let value, value.isFinite else { return }
        key(name)
        appendFixed(value, decimals, to: &bytes)
    }

    /// Opens an object as the value of `name`; ``closeObject()`` ends it.
    mutating func openObject(_ name: StaticString) {
        key(name)
        bytes.append(UInt8(ascii: "{"))
        first = true
    }

    /// Opens an object as the next element of an array.
    mutating func openObject() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "{"))
        first = true
    }

    mutating func closeObject() {
        bytes.append(UInt8(ascii: "}"))
        first = false
    }

    /// Opens an array as the value of `name`; ``closeArray()`` ends it.
    mutating func openArray(_ name: StaticString) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        first = true
    }

    mutating func closeArray() {
        bytes.append(UInt8(ascii: "]"))
        first = false
    }

    /// Closes the object and moves the buffer back to `buffer`.
    mutating func finish(handingBackTo buffer: inout [UInt8]) {
        bytes.append(UInt8(ascii: "}"))
        swap(&bytes, &buffer)
    }
}

/// Appends `value` in decimal.
func appendInteger(_ value: Int, to output: inout [UInt8]) {
    NMEADecimal(value).appendASCII(to: &output)
}

private let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12]

/// `value` with exactly `decimals` decimals, rounded half away from zero (as `%.Nf` prints it
/// for all but exact binary ties).
public func formatFixed(_ value: Double, _ decimals: Int) -> String {
    var bytes: [UInt8] = []
    appendFixed(value, decimals, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// Appends ``formatFixed(_:_:)``'s text.
func appendFixed(_ value: Double, _ decimals: Int, to output: inout [UInt8]) {
    var scale = 1.0
    if decimals < powersOfTen.count {
        scale = powersOfTen[decimals]
    } else {
        for _ in 0..<decimals { scale *= 10 }
    }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9.0e15, decimals <= 18 else {
        output.append(contentsOf: String(value).utf8)
        return
    }
    // The rounded digits as an exact decimal; a value that rounds to zero has no sign.
    let digits = Int64(scaled)
    NMEADecimal(mantissa: value < 0 ? -digits : digits, scale: UInt8(decimals)).appendASCII(to: &output)
}
