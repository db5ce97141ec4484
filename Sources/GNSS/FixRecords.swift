// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

extension FixFormat {
    /// This library's record of a fix, one JSON object (schema in docs/formats.md).
    public static func jsonRecord(_ fix: Fix) -> String {
        var bytes: [UInt8] = []
        appendJSONRecord(fix, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``jsonRecord(_:)``'s object to `output`, without a line end: all its members, or
    /// those of `fields`.
    public static func appendJSONRecord(_ fix: Fix, fields: RecordFields = .all, to output: inout [UInt8]) {
        JSONObjectWriter.append(to: &output, estimate: 3072 + 384 * fix.satellites.count) { json in
            if fields == .all {
                writeJSONRecord(fix, .all, &json)
            } else {
                writeJSONRecord(fix, fields, &json)
            }
        }
    }

    // `fields` is checked member by member; the call with `.all` lets the optimizer drop the checks
    // on the common path.
    @inline(__always)
    private static func writeJSONRecord(_ fix: Fix, _ fields: RecordFields, _ json: inout JSONObjectWriter) {
        if fields.contains(.time), let time = fix.time { json.add("time", time: time) }
        if fields.contains(.timeOfDay) { json.add("timeOfDay", string: fix.timeOfDay?.description) }
        if fields.contains(.mode) { json.add("mode", integer: fix.mode.rawValue) }
        if fields.contains(.status) { json.add("status", string: fix.status.jsonName) }
        if fields.contains(.latitude) { json.add("latitude", fix.latitude, decimals: 9) }
        if fields.contains(.longitude) { json.add("longitude", fix.longitude, decimals: 9) }
        if fields.contains(.altitudeMSL) { json.add("altitudeMSL", fix.altitudeMSL, decimals: 3) }
        if fields.contains(.altitudeHAE) { json.add("altitudeHAE", fix.altitudeHAE, decimals: 3) }
        if fields.contains(.geoidSeparation) { json.add("geoidSeparation", fix.geoidSeparation, decimals: 3) }
        if fields.contains(.speed) {
            json.add("speed", fix.speed, decimals: 3)
            if fix.speed != nil { json.add("speedDerived", bool: fix.speedIsDerived) }
        }
        if fields.contains(.course) { json.add("course", fix.course, decimals: 2) }
        if fields.contains(.climb) {
            json.add("climb", fix.climb, decimals: 3)
            if fix.climb != nil { json.add("climbDerived", bool: fix.climbIsDerived) }
        }
        if fields.contains(.magneticVariation) {
            json.add("magneticVariation", fix.magneticVariation, decimals: 1)
        }
        if fields.contains(.heading) { json.add("heading", fix.heading, decimals: 2) }
        if fields.contains(.dop) {
            json.openObject("dop")
            json.add("pdop", fix.dop.pdop, decimals: 2)
            json.add("hdop", fix.dop.hdop, decimals: 2)
            json.add("vdop", fix.dop.vdop, decimals: 2)
            json.add("tdop", fix.dop.tdop, decimals: 2)
            json.add("gdop", fix.dop.gdop, decimals: 2)
            json.add("xdop", fix.dop.xdop, decimals: 2)
            json.add("ydop", fix.dop.ydop, decimals: 2)
            json.closeObject()
        }
        if fields.contains(.errors) {
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
        }
        if fields.contains(.noise), let noise = fix.noise {
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
        if fields.contains(.satellitesUsed) { json.add("satellitesUsed", integer: fix.satellitesUsed) }
        if fields.contains(.satellitesInView) { json.add("satellitesInView", integer: fix.satellites.count) }
        if fields.contains(.satellites) && !fix.satellites.isEmpty {
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
        if fields.contains(.sentences) { json.add("sentences", integer: fix.sentenceCount) }
    }

    /// The CSV columns, in order.
    public static let csvColumnNames = [
        "time", "mode", "status", "latitude", "longitude", "altitude_msl", "altitude_hae", "speed_mps",
        "course_deg", "climb_mps", "hdop", "vdop", "pdop", "eph_m", "epv_m", "satellites_used",
        "satellites_in_view",
    ]

    /// The CSV header line.
    public static let csvHeader = csvColumnNames.joined(separator: ",")

    /// One CSV row; empty cells where a value is unknown.
    public static func csvRow(_ fix: Fix) -> String {
        csvCells(fix).joined(separator: ",")
    }

    /// One CSV row of `columns` only.
    public static func csvRow(_ fix: Fix, columns: CSVColumns) -> String {
        let cells = csvCells(fix)
        return columns.indices.map { cells[$0] }.joined(separator: ",")
    }

    private static func csvCells(_ fix: Fix) -> [String] {
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
        ]
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
