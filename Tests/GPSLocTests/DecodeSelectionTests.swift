// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// `gpsloc decode --fields`, `--no-satellites`, `--from`, `--to` and `--bbox`: what is written of
/// each fix, and which fixes.
@Suite("gpsloc decode's selection of fields and fixes, the built binary")
struct DecodeSelectionTests {
    static let drive = Fixtures.url("drive-1hz.nmea").path

    static func records(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await Runner.run(["decode", Self.drive, "-q"] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        return try result.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("--fields writes those members of each jsonl record and no others")
    func jsonFields() async throws {
        let records = try await Self.records(["--fields", "time,latitude,longitude,dop"])
        #expect(records.count == 300)
        #expect(records.allSatisfy { Set($0.keys) == ["time", "latitude", "longitude", "dop"] })
        let full = try await Self.records([])
        #expect(records[7]["latitude"] as? Double == full[7]["latitude"] as? Double)
        #expect((records[7]["dop"] as? [String: Double]) == (full[7]["dop"] as? [String: Double]))
    }

    @Test("--fields picks csv columns in the order given, the same cells as the full table")
    func csvColumns() async throws {
        let full = try await Runner.run(["decode", Self.drive, "-q", "--format", "csv"]).standardOutput
            .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let chosen = try await Runner.run([
            "decode", Self.drive, "-q", "--format", "csv", "--fields", "hdop,time,satellites_used",
        ]).standardOutput.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        #expect(chosen.first == ["hdop", "time", "satellites_used"])
        let index = { (name: Substring) in full[0].firstIndex(of: name)! }
        #expect(chosen.count == full.count)
        for (row, whole) in zip(chosen.dropFirst(), full.dropFirst()) {
            #expect(row == [whole[index("hdop")], whole[index("time")], whole[index("satellites_used")]])
        }
    }

    @Test("--no-satellites leaves out the list that is most of a record, in jsonl and in gpsd's SKY")
    func noSatellites() async throws {
        let full = try await Runner.run(["decode", Self.drive, "-q"]).standardOutput
        let slim = try await Runner.run(["decode", Self.drive, "-q", "--no-satellites"]).standardOutput
        #expect(!slim.contains(#""satellites":["#) && full.contains(#""satellites":["#))
        #expect(slim.utf8.count * 4 < full.utf8.count, "\(slim.utf8.count) of \(full.utf8.count) bytes")
        #expect(slim.contains(#""satellitesInView":43"#))
        let gpsd = try await Runner.run(["decode", Self.drive, "-q", "--format", "gpsd", "--no-satellites"])
        #expect(gpsd.standardOutput.contains(#""uSat":"#) && !gpsd.standardOutput.contains(#""satellites":"#))
    }

    @Test("--from and --to keep the fixes of the window, start included and end left out")
    func timeWindow() async throws {
        let records = try await Self.records([
            "--from", "2026-03-14T08:01:00", "--to", "2026-03-14T08:01:10Z", "--fields", "time",
        ])
        #expect(records.compactMap { $0["time"] as? String }.first == "2026-03-14T08:01:00.000Z")
        #expect(records.compactMap { $0["time"] as? String }.last == "2026-03-14T08:01:09.000Z")
        #expect(records.count == 10)
        #expect(try await Self.records(["--from", "2026-03-15"]).isEmpty)
        #expect(try await Self.records(["--to", "2026-03-15"]).count == 300)
    }

    @Test("--bbox keeps the fixes inside, west of Greenwich and across the 180th meridian too")
    func boundingBox() async throws {
        let inside = try await Self.records(["--bbox", "-5,50,4.9,52.372", "--fields", "latitude,longitude"])
        #expect(inside.count == 20)
        #expect(
            inside.allSatisfy {
                ($0["longitude"] as! Double) <= 4.9 && ($0["latitude"] as! Double) <= 52.372
            })
        #expect(try await Self.records(["--bbox", "170,50,-170,53"]).isEmpty)
        #expect(try await Self.records(["--bbox", "4,50,-170,53"]).count == 300)
        // Leaving the box breaks a track, as a loss of fix does.
        let gpx = try await Runner.run([
            "decode", Self.drive, "-q", "--format", "gpx", "--bbox", "4.89,52.36,4.9095,52.39",
        ])
        #expect(gpx.standardOutput.components(separatedBy: "<trkseg>").count - 1 == 2)
    }

    @Test(
        "Mistakes in the selection are usage errors (status 64) that name the option and the fix",
        arguments: [
            (["--fields", "time,lat"], "--fields: 'lat' is not a field; the fields are: time, timeOfDay"),
            (
                ["--format", "csv", "--fields", "altitude"],
                "--fields: 'altitude' is not a field; the fields are: time, mode"
            ),
            (["--format", "gpx", "--fields", "time"], "--format gpx writes fields of its own"),
            (["--fields", "satellites", "--no-satellites"], "choose one"),
            (["--format", "csv", "--no-satellites"], "--no-satellites applies to --format jsonl and gpsd"),
            (["--from", "yesterday"], "--from 'yesterday' is not a UTC time"),
            (["--from", "2026-03-15", "--to", "2026-03-14"], "must be before --to"),
            (["--bbox", "1,2,3"], "--bbox '1,2,3' is not four numbers"),
            (["--bbox", "-200,50,5,52"], "longitudes (WEST, EAST) must be from -180 to 180"),
            (["--bbox", "4,53,5,52"], "SOUTH (53.0) must be below NORTH (52.0)"),
        ])
    func mistakes(arguments: [String], says: String) async throws {
        let result = try await Runner.run(["decode", Self.drive] + arguments)
        #expect(result.status == 64)
        #expect(result.standardError.contains(says), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a box written latitude first matches nothing, and says so with the box that was meant")
    func swappedBox() async throws {
        let drive = Fixtures.url("drive-1hz.nmea").path
        let swapped = try await Runner.run([
            "decode", drive, "--bbox", "52.3,4.8,52.4,5.0", "--format", "csv", "-q",
        ])
        #expect(swapped.status == 0)
        #expect(swapped.standardOutput.split(separator: "\n").count == 1, "the header alone")
        #expect(
            swapped.standardError.contains("latitude and longitude look swapped")
                && swapped.standardError.contains("try --bbox 4.8000,52.3000,5.0000,52.4000"),
            "\(swapped.standardError)")
        let elsewhere = try await Runner.run([
            "decode", drive, "--bbox", "10,40,11,41", "--format", "none", "-q",
        ])
        #expect(elsewhere.standardError.contains("no fix lies inside --bbox"), "\(elsewhere.standardError)")
        #expect(!elsewhere.standardError.contains("swapped"), "\(elsewhere.standardError)")
        let right = try await Runner.run([
            "decode", drive, "--bbox", "4.8,52.3,5.0,52.4", "--format", "none", "-q",
        ])
        #expect(right.standardError.isEmpty, "\(right.standardError)")
    }
}
