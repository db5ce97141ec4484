// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Writes fixes as a track for maps and GIS tools: GPX 1.1, GeoJSON (RFC 7946), GeoJSON text
/// sequences (RFC 8142) and KML 2.2.
///
/// It streams: each fix is written as it comes, and the writer holds at most one point (a
/// segment's first, until a second says whether it is a line or a single point), so a log of any
/// size is written in constant memory. A segment ends at each loss of fix (an epoch without a
/// position) and wherever ``endSegment(into:)`` is called (between logs); empty segments are never
/// written. Fixes without a position appear only as the break they make.
public struct TrackWriter: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        /// GPX 1.1: one `trk` (none without a fix), a `trkseg` per segment, a `trkpt` per fix with `ele`, `time`,
        /// `magvar`, `geoidheight`, `fix`, `sat`, `hdop`, `vdop` and `pdop` where known.
        case gpx
        /// One `FeatureCollection`: a `LineString` feature per segment (a `Point` for a segment of
        /// one fix), its properties the segment's number, first and last time and point count.
        case geojson
        /// RFC 8142: a `Point` feature per fix, with the fix's properties, each record introduced
        /// by the record separator (0x1E) and ended by a line feed.
        case geojsonseq
        /// KML 2.2: a `Document` with a `Placemark` per segment holding its `LineString` (or
        /// `Point`).
        case kml
    }

    public let format: Format
    /// Who wrote the file, for GPX's `creator` and KML's document name.
    public let creator: String
    private var segment = 0
    private var pointsInSegment = 0
    private var held: Fix?
    private var first: UTCTimestamp?
    private var last: UTCTimestamp?
    private var features = 0

    public init(format: Format, creator: String) {
        self.format = format
        self.creator = creator
    }

    /// The document's opening.
    public func begin(into output: inout [UInt8]) {
        switch format {
        case .gpx:
            output += Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="\(Self.xmlEscaped(creator))" \
                xmlns="http://www.topografix.com/GPX/1/1" \
                xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
                xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">

                """.utf8)
        case .geojson: output += Array(#"{"type":"FeatureCollection","features":["#.utf8) + [10]
        case .geojsonseq: break
        case .kml:
            output += Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <kml xmlns="http://www.opengis.net/kml/2.2">
                <Document>
                <name>\(Self.xmlEscaped(creator))</name>

                """.utf8)
        }
    }

    /// Adds a fix: a point of the current segment, or, without a position, the segment's end.
    public mutating func add(_ fix: Fix, into output: inout [UInt8]) {
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude,
            latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
        else {
            endSegment(into: &output)
            return
        }
        if format == .geojsonseq {
            Self.writeSequenceRecord(fix, into: &output)
            return
        }
        if pointsInSegment == 0 {
            segment += 1
            first = fix.time
        }
        pointsInSegment += 1
        if fix.time != nil { last = fix.time }
        switch format {
        case .gpx:
            // The track opens with its first point: a log without a fix gives no empty track.
            if segment == 1 && pointsInSegment == 1 { output += Array("<trk>\n".utf8) }
            if pointsInSegment == 1 { output += Array("<trkseg>\n".utf8) }
            Self.writeTrackPoint(fix, into: &output)
        case .geojson, .kml:
            if pointsInSegment == 1 {
                held = fix
                return
            }
            if pointsInSegment == 2, let start = held {
                openLine(into: &output)
                writeCoordinates(start, separator: false, into: &output)
                held = nil
            }
            writeCoordinates(fix, separator: true, into: &output)
        case .geojsonseq: break
        }
    }

    /// Ends the current segment, if it has any point: the next fix with a position starts a new one.
    public mutating func endSegment(into output: inout [UInt8]) {
        guard pointsInSegment > 0 else { return }
        switch format {
        case .gpx: output += Array("</trkseg>\n".utf8)
        case .geojson:
            if let point = held {
                openFeature(into: &output)
                output += Array(#"{"type":"Point","coordinates":"#.utf8)
                Self.writeGeoJSONPosition(point, into: &output)
                output += Array("}".utf8)
            } else {
                output += Array("]}".utf8)
            }
            output += Array(#","properties":{"segment":\#(segment),"points":\#(pointsInSegment)"#.utf8)
            if let first { output += Array(#","start":"\#(first.iso8601)""#.utf8) }
            if let last { output += Array(#","end":"\#(last.iso8601)""#.utf8) }
            output += Array("}}".utf8)
        case .kml:
            if let point = held {
                openPlacemark(into: &output)
                output += Array("<Point><altitudeMode>absolute</altitudeMode><coordinates>".utf8)
                Self.writeKMLPosition(point, into: &output)
                output += Array("</coordinates></Point>\n</Placemark>\n".utf8)
            } else {
                output += Array("\n</coordinates></LineString>\n</Placemark>\n".utf8)
            }
        case .geojsonseq: break
        }
        held = nil
        pointsInSegment = 0
        first = nil
        last = nil
    }

    /// Ends the document: the last segment, and the closing of what `begin` opened.
    public mutating func end(into output: inout [UInt8]) {
        endSegment(into: &output)
        switch format {
        case .gpx: output += Array((segment > 0 ? "</trk>\n</gpx>\n" : "</gpx>\n").utf8)
        case .geojson: output += Array("\n]}\n".utf8)
        case .geojsonseq: break
        case .kml: output += Array("</Document>\n</kml>\n".utf8)
        }
    }

    // MARK: - Lines and points

    private mutating func openFeature(into output: inout [UInt8]) {
        if features > 0 { output += Array(",\n".utf8) }
        features += 1
        output += Array(#"{"type":"Feature","geometry":"#.utf8)
    }

    private mutating func openPlacemark(into output: inout [UInt8]) {
        output += Array("<Placemark>\n<name>Segment \(segment)</name>\n".utf8)
    }

    private mutating func openLine(into output: inout [UInt8]) {
        switch format {
        case .geojson:
            openFeature(into: &output)
            output += Array(#"{"type":"LineString","coordinates":["#.utf8)
        case .kml:
            openPlacemark(into: &output)
            output += Array("<LineString><altitudeMode>absolute</altitudeMode><coordinates>\n".utf8)
        case .gpx, .geojsonseq: break
        }
    }

    private func writeCoordinates(_ fix: Fix, separator: Bool, into output: inout [UInt8]) {
        switch format {
        case .geojson:
            if separator { output.append(UInt8(ascii: ",")) }
            Self.writeGeoJSONPosition(fix, into: &output)
        case .kml:
            if separator { output.append(10) }
            Self.writeKMLPosition(fix, into: &output)
        case .gpx, .geojsonseq: break
        }
    }

    /// `[lon,lat]` or `[lon,lat,alt]`, as RFC 7946 orders them: the altitude is the height above
    /// the WGS 84 ellipsoid (RFC 7946 § 4, what GDAL reads as EPSG:4979), never above mean sea
    /// level; without a known geoid separation there is none.
    static func writeGeoJSONPosition(_ fix: Fix, into output: inout [UInt8]) {
        var text = "[" + formatFixed(fix.longitude ?? 0, 9) + "," + formatFixed(fix.latitude ?? 0, 9)
        if let altitude = fix.altitudeHAE, altitude.isFinite { text += "," + formatFixed(altitude, 3) }
        output += Array((text + "]").utf8)
    }

    /// `lon,lat,alt`, as KML's `coordinates` want them: with `altitudeMode` `absolute`, KML 2.2
    /// reads the altitude as metres above sea level, so it is the fix's MSL altitude (0 when
    /// unknown, the point then clamped to the ground by the reader's altitude mode).
    static func writeKMLPosition(_ fix: Fix, into output: inout [UInt8]) {
        let altitude = fix.altitudeMSL.flatMap { $0.isFinite ? $0 : nil } ?? 0
        output += Array(
            (formatFixed(fix.longitude ?? 0, 9) + "," + formatFixed(fix.latitude ?? 0, 9) + ","
                + formatFixed(altitude, 3)).utf8)
    }

    /// One GPX `trkpt`, its children in the order GPX 1.1's schema requires.
    static func writeTrackPoint(_ fix: Fix, into output: inout [UInt8]) {
        var text = #"<trkpt lat=""# + formatFixed(fix.latitude ?? 0, 9) + #"" lon=""#
        text += formatFixed(fix.longitude ?? 0, 9) + #"">"#
        if let altitude = fix.altitudeMSL, altitude.isFinite {
            text += "<ele>\(formatFixed(altitude, 3))</ele>"
        }
        if let time = fix.time { text += "<time>\(time.iso8601)</time>" }
        if let variation = fix.magneticVariation, variation.isFinite, abs(variation) <= 360 {
            // GPX's degreesType is 0 ≤ value < 360; east is positive, as in the fix.
            let degrees = variation < 0 ? variation + 360 : variation
            if degrees < 360 { text += "<magvar>\(formatFixed(degrees, 1))</magvar>" }
        }
        if let separation = fix.geoidSeparation, separation.isFinite {
            text += "<geoidheight>\(formatFixed(separation, 3))</geoidheight>"
        }
        text += "<fix>\(gpxFix(fix))</fix>"
        if let used = fix.satellitesUsed, used >= 0 { text += "<sat>\(used)</sat>" }
        for (name, value) in [("hdop", fix.dop.hdop), ("vdop", fix.dop.vdop), ("pdop", fix.dop.pdop)] {
            if let value, value.isFinite, value >= 0 { text += "<\(name)>\(formatFixed(value, 2))</\(name)>" }
        }
        if let age = fix.dgpsAge, age.isFinite, age >= 0 {
            text += "<ageofdgpsdata>\(formatFixed(age, 1))</ageofdgpsdata>"
        }
        if let station = fix.dgpsStation, (0...1023).contains(station) {
            text += "<dgpsid>\(station)</dgpsid>"
        }
        output += Array((text + "</trkpt>\n").utf8)
    }

    /// GPX's `fix`: none, 2d, 3d, dgps or pps.
    static func gpxFix(_ fix: Fix) -> String {
        switch fix.status {
        case .dgps, .rtkFixed, .rtkFloat: return "dgps"
        case .pps: return "pps"
        default: return fix.mode == .threeDimensional ? "3d" : "2d"
        }
    }

    /// One RFC 8142 record: RS, a `Point` feature with the fix's properties, LF.
    static func writeSequenceRecord(_ fix: Fix, into output: inout [UInt8]) {
        output.append(0x1E)
        output += Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":"#.utf8)
        writeGeoJSONPosition(fix, into: &output)
        output += Array(#"},"properties":"#.utf8)
        JSONObjectWriter.append(to: &output, estimate: 512) { json in
            if let time = fix.time { json.add("time", time: time) }
            json.add("mode", integer: fix.mode.rawValue)
            json.add("status", string: fix.status.jsonName)
            json.add("altitudeMSL", fix.altitudeMSL, decimals: 3)
            json.add("altitudeHAE", fix.altitudeHAE, decimals: 3)
            json.add("speed", fix.speed, decimals: 3)
            json.add("course", fix.course, decimals: 2)
            json.add("climb", fix.climb, decimals: 3)
            json.add("heading", fix.heading, decimals: 2)
            json.add("hdop", fix.dop.hdop, decimals: 2)
            json.add("vdop", fix.dop.vdop, decimals: 2)
            json.add("pdop", fix.dop.pdop, decimals: 2)
            json.add("horizontalError", fix.errors.horizontal, decimals: 3)
            json.add("verticalError", fix.errors.vertical, decimals: 3)
            json.add("satellitesUsed", integer: fix.satellitesUsed)
        }
        output += Array("}\n".utf8)
    }

    /// `text` with XML's five special characters escaped, and control characters (which XML 1.0
    /// cannot carry at all) left out.
    static func xmlEscaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default:
                if scalar.value >= 0x20 || scalar == "\t" || scalar == "\n" {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
