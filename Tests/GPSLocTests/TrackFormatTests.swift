// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// `gpsloc decode --format gpx|geojson|geojsonseq|kml`, read back by the tools people open tracks
/// with: gpsbabel and GDAL's `ogrinfo`, from Debian (tools/test installs them).
@Suite("Track formats, read by gpsbabel and GDAL")
struct TrackFormatTests {
    static let drive = Fixtures.url("drive-1hz.nmea").path

    /// A Debian program the test needs; its absence fails the test with what to install.
    static func tool(_ name: String, package: String) throws -> URL {
        let url = URL(fileURLWithPath: "/usr/bin/" + name)
        try #require(
            FileManager.default.isExecutableFile(atPath: url.path),
            "\(name) is missing: run tools/test, or apt-get install \(package)")
        return url
    }

    /// The test's files, removed when it ends.
    let scratch = ScratchDirectories("track-format")

    /// Writes `text` to a new temporary file named `name`; returns its path.
    func file(_ name: String, _ text: String) throws -> String { try scratch.file(name, text) }

    /// A log of `pattern`'s epochs a second apart: `+` has a fix, `-` has none.
    static func log(_ pattern: String, startSecond: Int = 0) -> String {
        var text = ""
        for (index, mark) in pattern.enumerated() {
            let second = startSecond + index
            let time = String(format: "0800%02d.00", second)
            let minutes = String(format: "%08.5f", 22.386 + Double(second) * 0.001)
            if mark == "+" {
                text += SentenceBuilder.sentence(
                    "GPRMC,\(time),A,52\(minutes),N,00453.55600,E,1.0,90.0,140326,,,A")
                text += SentenceBuilder.sentence(
                    "GPGGA,\(time),52\(minutes),N,00453.55600,E,1,08,0.9,\(10 + second).0,M,46.9,M,,")
            } else {
                text += SentenceBuilder.sentence("GPRMC,\(time),V,,,,,,,140326,,,N")
                text += SentenceBuilder.sentence("GPGGA,\(time),,,,,0,00,,,M,,M,,")
            }
        }
        return text
    }

    /// What `ogrinfo -al -so` says of a file: its feature count and geometry, per layer.
    static func ogrinfo(_ path: String) async throws -> String {
        let result = try await Runner.run(
            ["-ro", "-al", "-so", path], executable: try tool("ogrinfo", package: "gdal-bin"))
        #expect(result.status == 0, "ogrinfo: \(result.standardError)")
        return result.standardOutput
    }

    static func featureCounts(_ summary: String) -> [Int] {
        summary.split(separator: "\n").compactMap { line in
            line.hasPrefix("Feature Count: ") ? Int(line.dropFirst("Feature Count: ".count)) : nil
        }
    }

    @Test(
        "gpsbabel reads the GPX back to the same 300 points: position, altitude, time, fix and DOP")
    func gpxThroughGPSBabel() async throws {
        let gpx = try await Runner.run(["decode", Self.drive, "--format", "gpx", "-q"])
        #expect(gpx.status == 0)
        let path = try file("drive.gpx", gpx.standardOutput)
        let csv = path + ".csv"
        let babel = try await Runner.run(
            ["-t", "-i", "gpx", "-f", path, "-o", "unicsv", "-F", csv],
            executable: try Self.tool("gpsbabel", package: "gpsbabel"))
        #expect(babel.status == 0, "gpsbabel: \(babel.standardError)")
        // gpsbabel ends its lines with CR LF: a Character of its own, which isNewline covers.
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(whereSeparator: \.isNewline).map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = try #require(rows.first)
        try #require(
            header == [
                "No", "Latitude", "Longitude", "Altitude", "FIX", "HDOP", "VDOP", "PDOP", "Satellites",
                "Date", "Time",
            ])

        let records = try await Runner.run(["decode", Self.drive, "--format", "jsonl", "-q"]).standardOutput
            .split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        #expect(rows.count - 1 == records.count && records.count == 300)
        for (row, record) in zip(rows.dropFirst(), records) {
            let latitude = try #require(record["latitude"] as? Double)
            let longitude = try #require(record["longitude"] as? Double)
            // unicsv prints six decimals.
            #expect(abs(Double(row[1])! - latitude) <= 5.1e-7 && abs(Double(row[2])! - longitude) <= 5.1e-7)
            #expect(abs(Double(row[3])! - (record["altitudeMSL"] as? Double ?? .nan)) <= 0.05)
            #expect(row[4] == "\"3d\"")
            let dop = try #require(record["dop"] as? [String: Any])
            #expect(Double(row[5]) == dop["hdop"] as? Double && Double(row[7]) == dop["pdop"] as? Double)
            let time = try #require(record["time"] as? String)
            // 2026-03-14T08:00:01.000Z against 2026/03/14 and 08:00:01
            #expect(time.prefix(10).replacingOccurrences(of: "-", with: "/") == row[9])
            #expect(time.dropFirst(11).prefix(8) == row[10])
        }
    }

    @Test("A loss of fix starts a new segment, as does a new log; a one-fix segment is a point")
    func segments() async throws {
        // Segments: 3 fixes, (lost), 2 fixes, (lost), 1 fix; then a second log of 2 fixes.
        let first = try file("first.nmea", Self.log("+++--++-+"))
        let second = try file("second.nmea", Self.log("++", startSecond: 20))
        func decode(_ format: String) async throws -> String {
            let result = try await Runner.run(["decode", first, second, "--format", format, "-q"])
            #expect(result.status == 0, "\(result.standardError)")
            return try file("track." + format, result.standardOutput)
        }
        let gpx = try String(contentsOfFile: try await decode("gpx"), encoding: .utf8)
        #expect(gpx.components(separatedBy: "<trkseg>").count - 1 == 4)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == 8)

        let geojson = try await Self.ogrinfo(try await decode("geojson"))
        #expect(Self.featureCounts(geojson) == [4], "\(geojson)")
        let text = try String(contentsOfFile: try await decode("geojson"), encoding: .utf8)
        #expect(text.components(separatedBy: #""type":"LineString""#).count - 1 == 3)
        #expect(text.components(separatedBy: #""type":"Point""#).count - 1 == 1)
        #expect(
            text.contains(
                #""properties":{"segment":1,"points":3,"start":"2026-03-14T08:00:00.000Z","end":"2026-03-14T08:00:02.000Z"}"#
            ))

        let sequence = try await Self.ogrinfo(try await decode("geojsonseq"))
        #expect(sequence.contains("GeoJSONSeq") || sequence.contains("Point"), "\(sequence)")
        #expect(Self.featureCounts(sequence) == [8], "\(sequence)")

        let kml = try await Self.ogrinfo(try await decode("kml"))
        #expect(Self.featureCounts(kml) == [4], "\(kml)")
    }

    @Test("GDAL reads every point's properties from the sequence: time, speed, course and DOP")
    func sequenceProperties() async throws {
        let result = try await Runner.run(["decode", Self.drive, "--format", "geojsonseq", "-q"])
        let records = result.standardOutput.split(separator: "\n")
        #expect(records.count == 300 && records.allSatisfy { $0.first == "\u{1E}" })
        let path = try file("drive.geojsons", result.standardOutput)
        let summary = try await Self.ogrinfo(path)
        #expect(Self.featureCounts(summary) == [300], "\(summary)")
        for field in ["time:", "speed: Real", "course: Real", "hdop: Real", "satellitesUsed: Integer"] {
            #expect(summary.contains(field), "ogrinfo's fields lack \(field): \(summary)")
        }
    }

    @Test("A log without a single fix still gives a document every reader opens")
    func noFix() async throws {
        let empty = try file("nofix.nmea", Self.log("---"))
        for format in ["gpx", "geojson", "kml"] {
            let result = try await Runner.run(["decode", empty, "--format", format, "-q"])
            #expect(result.status == 0)
            let summary = try await Self.ogrinfo(try file("nofix." + format, result.standardOutput))
            #expect(Self.featureCounts(summary).allSatisfy { $0 == 0 }, "\(format): \(summary)")
        }
    }

    /// The rows of a unicsv file gpsbabel wrote, by column name.
    static func unicsv(_ path: String) throws -> [[String: String]] {
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard let header = rows.first else { return [] }
        return rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    @Test("GPX's sat counts satellites used, as gpsbabel counts them from the log's own GGA")
    func satellitesAsGPSBabelCountsThem() async throws {
        let babel = try Self.tool("gpsbabel", package: "gpsbabel")
        let gpx = try file(
            "drive.gpx", try await Runner.run(["decode", Self.drive, "--format", "gpx", "-q"]).standardOutput)
        let ours = gpx + ".csv"
        let theirs = gpx + ".nmea.csv"
        #expect(
            try await Runner.run(
                ["-t", "-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", ours], executable: babel
            ).status == 0)
        #expect(
            try await Runner.run(
                ["-t", "-i", "nmea", "-f", Self.drive, "-o", "unicsv", "-F", theirs], executable: babel
            )
            .status == 0)
        let fromGPX = try Self.unicsv(ours).map { $0["Satellites"] ?? "" }
        // gpsbabel's NMEA reader starts a point at each RMC and fills it from the GGA that follows,
        // so its first point has no GGA: its counts are ours, one point later.
        let fromLog = try Self.unicsv(theirs).compactMap {
            $0["Satellites"].flatMap { $0.isEmpty ? nil : $0 }
        }
        #expect(fromGPX.count == 300 && fromLog.count == 299)
        #expect(Array(fromGPX.prefix(fromLog.count)) == fromLog)
        // The log's receiver tracks two signals of most satellites: the library's records count
        // satellites as GPX does; only gpsd's uSat counts the 31 signals, as gpsd's does.
        let records = try await Runner.run(["decode", Self.drive, "--format", "jsonl", "-q"]).standardOutput
        #expect(records.hasPrefix("{") && records.contains(#""satellitesUsed":23,"#) && fromGPX.first == "23")
        let gpsd = try await Runner.run(["decode", Self.drive, "--format", "gpsd", "-q"]).standardOutput
        #expect(gpsd.contains(#""nSat":43,"uSat":31,"#))
    }

    @Test("GeoJSON heights are above the WGS 84 ellipsoid as GDAL reads them; KML's above sea level")
    func heights() async throws {
        // GGA altitude 10 + second above MSL, geoid separation 46.9 m.
        let log = try file("heights.nmea", Self.log("+++"))
        for format in ["geojson", "geojsonseq"] {
            let path = try file(
                "heights." + format,
                try await Runner.run(["decode", log, "--format", format, "-q"]).standardOutput)
            let result = try await Runner.run(
                ["-ro", "-al", path], executable: try Self.tool("ogrinfo", package: "gdal-bin"))
            #expect(result.status == 0, "ogrinfo: \(result.standardError)")
            // POINT Z (lon lat z) and LINESTRING Z (lon lat z,lon lat z,…): the third of each triple.
            let geometry = result.standardOutput.split(separator: "\n").filter { $0.contains(" Z (") }
            let triples = geometry.flatMap { line in
                line[line.index(after: line.firstIndex(of: "(")!)..<line.lastIndex(of: ")")!]
                    .split(separator: ",").map { $0.split(separator: " ").compactMap { Double($0) } }
            }
            #expect(triples.map { $0.last ?? .nan } == [56.9, 57.9, 58.9], "\(format): \(geometry)")
        }
        let kml = try await Runner.run(["decode", log, "--format", "kml", "-q"]).standardOutput
        #expect(kml.contains("<altitudeMode>absolute</altitudeMode>"))
        #expect(kml.contains(",10.000") && kml.contains(",12.000") && !kml.contains(",56.900"), "\(kml)")
    }
}
