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
        JSONObjectWriter.append(to: &output, estimate: 1024) { json in writeGPSDTPV(fix, &json) }
    }

    private static func writeGPSDTPV(_ fix: Fix, _ json: inout JSONObjectWriter) {
        json.add("class", string: "TPV")
        if fix.status.rawValue >= 2 { json.add("status", integer: fix.status.rawValue) }
        json.add("mode", integer: fix.mode.rawValue)
        if let time = fix.time {
            json.add("time", time: time)
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
        JSONObjectWriter.append(to: &output, estimate: 640 + 320 * fix.satellites.count) { json in
            writeGPSDSKY(fix, &json)
        }
    }

    private static func writeGPSDSKY(_ fix: Fix, _ json: inout JSONObjectWriter) {
        json.add("class", string: "SKY")
        if let time = fix.time { json.add("time", time: time) }
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
        JSONObjectWriter.append(to: &output, estimate: 3072 + 384 * fix.satellites.count) { json in
            writeJSONRecord(fix, &json)
        }
    }

    private static func writeJSONRecord(_ fix: Fix, _ json: inout JSONObjectWriter) {
        if let time = fix.time { json.add("time", time: time) }
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
        ByteCursor.append(to: &bytes, estimate: maximumQuotedCount(text)) { cursor in
            guard cursor.hasRoom(for: maximumQuotedCount(text)) else { return }
            writeQuoted(text, to: &cursor)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The most bytes `text` takes as a literal: each byte may become `\u00XX`.
    static func maximumQuotedCount(_ text: String) -> Int { 2 + 6 * text.utf8.count }

    /// Writes `text` as a literal; the cursor has room for ``maximumQuotedCount(_:)`` bytes.
    static func writeQuoted(_ text: String, to cursor: inout ByteCursor) {
        cursor.put(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(byte)
            case UInt8(ascii: "\n"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(UInt8(ascii: "t"))
            case 0..<0x20:
                cursor.put("\\u00")
                cursor.put(lowercaseHexDigit(byte >> 4))
                cursor.put(lowercaseHexDigit(byte & 15))
            default: cursor.put(byte)
            }
        }
        cursor.put(UInt8(ascii: "\""))
    }

    private static func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 48 : nibble + 87
    }
}

/// Builds a JSON object in place at the end of a byte array, skipping `nil` values; objects and
/// arrays nest. Each value first makes sure of room for its largest form.
struct JSONObjectWriter {
    private var cursor: ByteCursor
    /// Whether nothing has been written yet at the current level.
    private var first = true

    /// Appends the object `body` writes to `output`; `estimate` is the room to start with.
    static func append(to output: inout [UInt8], estimate: Int, _ body: (inout JSONObjectWriter) -> Void) {
        ByteCursor.append(to: &output, estimate: estimate) { cursor in
            var json = JSONObjectWriter(cursor: cursor)
            json.open(UInt8(ascii: "{"))
            body(&json)
            json.close(UInt8(ascii: "}"))
            cursor = json.cursor
        }
    }

    private init(cursor: ByteCursor) { self.cursor = cursor }

    /// The longest value ``add(_:_:decimals:)`` writes.
    private static let maximumNumberCount = 32

    /// Writes the key, with room after it for `valueCount` bytes; `false` when there is none.
    @inline(__always)
    private mutating func key(_ name: StaticString, room valueCount: Int) -> Bool {
        guard cursor.hasRoom(for: name.utf8CodeUnitCount + 4 + valueCount) else { return false }
        if !first { cursor.put(UInt8(ascii: ",")) }
        first = false
        cursor.put(UInt8(ascii: "\""))
        cursor.put(name)
        cursor.put(UInt8(ascii: "\""))
        cursor.put(UInt8(ascii: ":"))
        return true
    }

    mutating func add(_ name: StaticString, string value: String?) {
        guard let value, key(name, room: JSONText.maximumQuotedCount(value)) else { return }
        JSONText.writeQuoted(value, to: &cursor)
    }

    /// A timestamp as ``UTCTimestamp/iso8601``, quoted.
    mutating func add(_ name: StaticString, time value: UTCTimestamp) {
        guard key(name, room: UTCTimestamp.maximumISO8601Count + 2) else { return }
        cursor.put(UInt8(ascii: "\""))
        value.writeISO8601(to: &cursor)
        cursor.put(UInt8(ascii: "\""))
    }

    mutating func add(_ name: StaticString, integer value: Int?) {
        guard let value, key(name, room: NMEADecimal.maximumASCIICount) else { return }
        cursor.put(NMEADecimal(value))
    }

    mutating func add(_ name: StaticString, bool value: Bool) {
        guard key(name, room: 5) else { return }
        cursor.put(value ? "true" : "false")
    }

    mutating func add(_ name: StaticString, _ value: Double?, decimals: Int) {
        guard let value, value.isFinite, key(name, room: Self.maximumNumberCount + decimals) else { return }
        writeFixed(value, decimals, to: &cursor)
    }

    /// Opens an object as the value of `name`; ``closeObject()`` ends it.
    mutating func openObject(_ name: StaticString) {
        guard key(name, room: 1) else { return }
        open(UInt8(ascii: "{"))
    }

    /// Opens an object as the next element of an array.
    mutating func openObject() {
        guard cursor.hasRoom(for: 2) else { return }
        if !first { cursor.put(UInt8(ascii: ",")) }
        open(UInt8(ascii: "{"))
    }

    mutating func closeObject() { close(UInt8(ascii: "}")) }

    /// Opens an array as the value of `name`; ``closeArray()`` ends it.
    mutating func openArray(_ name: StaticString) {
        guard key(name, room: 1) else { return }
        open(UInt8(ascii: "["))
    }

    mutating func closeArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        guard cursor.hasRoom(for: 1) else { return }
        cursor.put(bracket)
        first = true
    }

    private mutating func close(_ bracket: UInt8) {
        guard cursor.hasRoom(for: 1) else { return }
        cursor.put(bracket)
        first = false
    }
}

/// Where text is written: memory with room for a number of bytes. Writers make sure of room
/// with ``hasRoom(for:)`` before they `put`; when there is too little, the cursor remembers it
/// and ``append(to:estimate:_:)`` writes everything again with more.
struct ByteCursor {
    private let start: UnsafeMutablePointer<UInt8>
    private var position: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>
    /// Whether a writer found too little room.
    private(set) var overflowed = false

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        start = buffer.baseAddress!
        position = start
        end = start + buffer.count
    }

    /// Appends what `write` writes to `output`, starting with room for `estimate` bytes.
    static func append(to output: inout [UInt8], estimate: Int, _ write: (inout ByteCursor) -> Void) {
        var room = max(estimate, 64)
        while true {
            var overflowed = false
            output.append(addingCapacity: room) { span in
                span.withUnsafeMutableBufferPointer { buffer, initialized in
                    var cursor = ByteCursor(UnsafeMutableBufferPointer(rebasing: buffer[initialized...]))
                    write(&cursor)
                    overflowed = cursor.overflowed
                    if !overflowed { initialized += cursor.position - cursor.start }
                }
            }
            if !overflowed { return }
            room *= 4
        }
    }

    /// Whether `count` more bytes fit; notes the overflow when they do not.
    @inline(__always)
    mutating func hasRoom(for count: Int) -> Bool {
        if end - position >= count { return true }
        overflowed = true
        return false
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        position.pointee = byte
        position += 1
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        position.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        position += text.utf8CodeUnitCount
    }

    /// At most ``NMEADecimal/maximumASCIICount`` bytes.
    @inline(__always)
    mutating func put(_ decimal: NMEADecimal) {
        position += decimal.writeASCII(to: position)
    }

    /// `value` in decimal with at least `width` digits: at most 20 + `width` bytes.
    mutating func put(_ value: Int, width: Int) {
        let magnitude = Int64(clamping: value.magnitude)
        if value < 0 { put(UInt8(ascii: "-")) }
        var digits = 1
        var limit: Int64 = 10
        while digits < 19 && magnitude >= limit {
            digits += 1
            limit = limit &* 10
        }
        for _ in digits..<max(width, digits) { put(UInt8(ascii: "0")) }
        put(NMEADecimal(mantissa: magnitude, scale: 0))
    }

    /// Bytes written so far, for text that is not in ASCII digits (a `Double`'s description).
    mutating func put(contentsOf bytes: some Collection<UInt8>) {
        for byte in bytes { put(byte) }
    }
}

private let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12]

/// `value` with exactly `decimals` decimals, rounded half away from zero (as `%.Nf` prints it
/// for all but exact binary ties).
public func formatFixed(_ value: Double, _ decimals: Int) -> String {
    var bytes: [UInt8] = []
    ByteCursor.append(to: &bytes, estimate: 32 + decimals) { cursor in
        guard cursor.hasRoom(for: 32 + decimals) else { return }
        writeFixed(value, decimals, to: &cursor)
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes ``formatFixed(_:_:)``'s text; the cursor has room for 32 + `decimals` bytes.
func writeFixed(_ value: Double, _ decimals: Int, to cursor: inout ByteCursor) {
    var scale = 1.0
    if decimals < powersOfTen.count {
        scale = powersOfTen[decimals]
    } else {
        for _ in 0..<decimals { scale *= 10 }
    }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9.0e15, decimals <= 18 else {
        // Out of the exact range: the shortest text that reads back as the value (at most 24
        // bytes).
        cursor.put(contentsOf: String(value).utf8)
        return
    }
    // The rounded digits as an exact decimal; a value that rounds to zero has no sign.
    let digits = Int64(scaled)
    cursor.put(NMEADecimal(mantissa: value < 0 ? -digits : digits, scale: UInt8(decimals)))
}
