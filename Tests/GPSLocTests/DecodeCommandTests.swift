// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

@Suite("gpsloc decode, the built binary")
struct DecodeCommandTests {
    let log = Fixtures.url("drive-1hz.nmea").path

    @Test("--format gpsd: gpsd's DEVICE first, then TPV and SKY per epoch naming it, each line in CRLF")
    func gpsdFormatPrintsTPVAndSKYPerEpoch() async throws {
        let result = try await Runner.run(["decode", log, "--format", "gpsd", "--quiet"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix("}\r\n"))
        #expect(!result.standardOutput.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "only CRLF")
        let lines = result.standardOutput.split(separator: "\r\n")
        #expect(
            lines.first?.hasPrefix(#"{"class":"DEVICE","path":"\#(log)","driver":"NMEA0183","activated":""#)
                == true)
        #expect(lines.filter { $0.hasPrefix("{\"class\":\"TPV\",\"device\":\"\(log)\"") }.count == 300)
        #expect(lines.filter { $0.hasPrefix("{\"class\":\"SKY\",\"device\":\"\(log)\"") }.count == 300)
        let first = String(try #require(lines.dropFirst().first))
        #expect(
            first.hasPrefix(
                "{\"class\":\"TPV\",\"device\":\"\(log)\",\"mode\":3,\"time\":\"2026-03-14T08:00:00.000Z\",\"ept\":0.005,\"lat\":52."
            ))
        // gpsd's number formats: 9 decimals for lat/lon, 4 for altitudes and track, 3 for speed.
        #expect(first.contains(#","altMSL":12.0000,"#))
        #expect(first.range(of: #""lat":\d+\.\d{9},"#, options: .regularExpression) != nil)
        #expect(first.range(of: #""speed":\d+\.\d{3},"#, options: .regularExpression) != nil)
        #expect(result.standardError.isEmpty)
    }

    @Test(
        "--format gpsd of a log is the same bytes every time: its DEVICE was activated at the log's first fix"
    )
    func gpsdFormatOfALogDoesNotChange() async throws {
        let first = try await Runner.run(["decode", log, "--format", "gpsd", "--quiet"])
        try await Task.sleep(for: .milliseconds(20))
        let second = try await Runner.run(["decode", log, "--format", "gpsd", "--quiet"])
        #expect(first.status == 0 && !first.standardOutput.isEmpty)
        #expect(first.standardOutput == second.standardOutput)
        #expect(
            first.standardOutput.hasPrefix(
                #"{"class":"DEVICE","path":"\#(log)","driver":"NMEA0183","activated":"2026-03-14T08:00:00.000Z","#
            ))
        // A log without a single time: no moment to name, so none is made up.
        let path = NSTemporaryDirectory() + "untimed-\(UUID().uuidString.prefix(8)).nmea"
        try SentenceBuilder.sentence("GPGGA,,,,,,0,00,99.99,,,,,,").write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let untimed = try await Runner.run(["decode", path, "--format", "gpsd", "-q"])
        #expect(
            untimed.standardOutput.hasPrefix(#"{"class":"DEVICE","path":"\#(path)"}"#),
            "\(untimed.standardOutput)")
    }

    @Test(
        "satellites used: every format counts the receiver's GGA count, each satellite once; gpsd's uSat counts the entries marked used, as gpsd's does"
    )
    func satellitesUsedMeansOneThing() async throws {
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let gga = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("$GNGGA") }.map {
            Int($0.split(separator: ",", omittingEmptySubsequences: false)[7])
        }
        #expect(gga.count == 300)
        func run(_ format: String) async throws -> String {
            let result = try await Runner.run(["decode", log, "--format", format, "-q"])
            #expect(result.status == 0, "\(format): \(result.standardError)")
            return result.standardOutput
        }
        let csv = try await run("csv").split(separator: "\n").dropFirst().map {
            Int($0.split(separator: ",", omittingEmptySubsequences: false)[15])
        }
        #expect(csv == gga, "csv")
        let jsonl = jsonObjects(inLines: try await run("jsonl")).map { $0["satellitesUsed"] as? Int }
        #expect(jsonl == gga, "jsonl")
        // RFC 8142: each feature after a record separator.
        let features = jsonObjects(
            inLines: try await run("geojsonseq").replacingOccurrences(of: "\u{1E}", with: ""))
        let geojson = features.map { ($0["properties"] as? [String: Any])?["satellitesUsed"] as? Int }
        #expect(geojson == gga, "geojsonseq")
        let gpx = try await run("gpx").components(separatedBy: "<sat>").dropFirst().map {
            Int($0.prefix { $0.isNumber })
        }
        #expect(gpx == gga, "gpx")
        // gpsd's uSat: what its list marks used, a satellite once per signal (L1 and L5 here).
        let gpsd = try await run("gpsd").replacingOccurrences(of: "\r\n", with: "\n")
        let skies = jsonObjects(inLines: gpsd).filter { $0["class"] as? String == "SKY" }
        #expect(skies.count == 300)
        for sky in skies {
            let marked = (sky["satellites"] as? [[String: Any]] ?? []).filter { $0["used"] as? Bool == true }
            #expect(sky["uSat"] as? Int == marked.count)
        }
        #expect(skies.contains { ($0["uSat"] as? Int ?? 0) > 0 })
    }

    @Test(
        "--format gpsd from a pipe: each epoch's reports come out as soon as it is decoded, GST and ATT included"
    )
    func gpsdFormatFromALivePipe() async throws {
        let decode = try RunningProcess(["decode", "-", "--format", "gpsd", "-q"], input: true)
        var epoch = 0
        func send() {
            let time = String(format: "0800%02d.00", epoch)
            epoch += 1
            decode.write(
                SentenceBuilder.sentence("GPRMC,\(time),A,5222.3820,N,00453.5640,E,12.0,114.5,140326,,,A")
                    + SentenceBuilder.sentence(
                        "GPGGA,\(time),5222.3820,N,00453.5640,E,1,09,0.9,12.0,M,46.9,M,,")
                    + SentenceBuilder.sentence("GPGST,\(time),1.5,1.6,1.1,69.0,1.2,1.3,3.0")
                    + SentenceBuilder.sentence("GPHDT,187.3,T"))
        }
        for _ in 0..<3 { send() }
        #expect(
            await decode.waitForOutput(within: 10) { $0.contains(#""class":"ATT","device":"stdin""#) },
            "reports while the input is still open: \(decode.output)\(decode.errors)")
        let reports = decode.output.split(separator: "\r\n")
        #expect(reports.first?.hasPrefix(#"{"class":"DEVICE","path":"stdin""#) == true)
        #expect(
            reports.contains { $0.hasPrefix(#"{"class":"GST","device":"stdin","time":"2026-03-14T08:00"#) })
        #expect(reports.contains { $0.contains(#""heading":187.30"#) })
        decode.closeInput()
        #expect(await decode.wait(within: 10) == 0)
    }

    @Test func jsonlRecordsFollowTheDocumentedSchema() async throws {
        let result = try await Runner.run(["decode", log, "--format", "jsonl", "-q"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 300)
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[10].utf8)) as? [String: Any])
        for key in [
            "time", "timeOfDay", "mode", "status", "latitude", "longitude", "altitudeMSL", "altitudeHAE",
            "geoidSeparation", "speed", "speedDerived", "course", "dop", "errors", "noise", "satellitesUsed",
            "satellitesInView", "satellites", "sentences",
        ] {
            #expect(record[key] != nil, "missing \(key)")
        }
        #expect(record["status"] as? String == "gps")
        let errors = try #require(record["errors"] as? [String: Any])
        #expect(errors["source"] as? String == "dopModel")
    }

    @Test func csvHasAHeaderAndOneRowPerEpoch() async throws {
        let result = try await Runner.run(["decode", log, "--format", "csv", "-q"])
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 301)
        #expect(lines[0].hasPrefix("time,mode,status,latitude,longitude,"))
        let columns = lines[0].split(separator: ",", omittingEmptySubsequences: false).count
        #expect(
            lines.dropFirst().allSatisfy {
                $0.split(separator: ",", omittingEmptySubsequences: false).count == columns
            })
    }

    @Test func summaryOnStandardErrorCountsRejectionsByReason() async throws {
        let result = try await Runner.run([
            "decode", Fixtures.url("drive-faults.nmea").path, "--format", "none",
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput.isEmpty)
        let summary = result.standardError
        #expect(summary.contains("bytes,"))
        #expect(summary.contains("sentences: GSV"))
        #expect(summary.contains("bad checksum 51"))
        #expect(summary.contains("truncated 46"))
        #expect(summary.contains("invalid character 8"))
        #expect(summary.contains("epochs: 240, with position: 200"))
    }

    @Test func standardInputWorksAsAFile() async throws {
        let data = try Data(contentsOf: Fixtures.url("drive-10hz.nmea"))
        let piped = try await Runner.run(["decode", "-", "--format", "csv", "-q"], input: data)
        let direct = try await Runner.run([
            "decode", Fixtures.url("drive-10hz.nmea").path, "--format", "csv", "-q",
        ])
        #expect(piped.status == 0)
        #expect(piped.standardOutput == direct.standardOutput)
        #expect(piped.standardOutput.split(separator: "\n").count == 201)
    }

    @Test func checksumPolicyIsAnOption() async throws {
        let body = "GPRMC,120000,A,4807.038,N,01131.324,E,0.0,0.0,010626,,,A"
        let input = Data(("$" + body + "\r\n").utf8)
        let strict = try await Runner.run(["decode", "-", "--format", "csv"], input: input)
        #expect(strict.standardOutput.split(separator: "\n").count == 1)
        #expect(strict.standardError.contains("missing checksum 1"))
        let lenient = try await Runner.run(
            ["decode", "-", "--format", "csv", "--checksum", "lenient"], input: input)
        #expect(lenient.standardOutput.split(separator: "\n").count == 2)
    }

    @Test func badArgumentsNameTheArgumentAndTheFix() async throws {
        let format = try await Runner.run(["decode", log, "--format", "xml"])
        #expect(format.status != 0)
        #expect(format.standardError.contains("--format"))
        #expect(format.standardError.contains("gpsd"))
        let missing = try await Runner.run(["decode", "/no/such/file.nmea"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot open '/no/such/file.nmea': No such file or directory"))
        #expect(!missing.standardError.contains("Usage:"))
        let date = try await Runner.run(["decode", log, "--reference-date", "14/03/2026"])
        #expect(date.status != 0)
        #expect(date.standardError.contains("--reference-date"))
        let length = try await Runner.run(["decode", log, "--max-length", "4"])
        #expect(length.status != 0)
        #expect(length.standardError.contains("--max-length must be from 16 to 1048576"))
    }

    @Test func referenceDateOverridesTheHeader() async throws {
        let line = "GPRMC,000430.00,A,4808.9993,N,01135.0798,E,0.1,0.0,220899,,,A"
        let input = Data(("# Date: 2019-04-06\n" + SentenceBuilder.sentence(line)).utf8)
        let header = try await Runner.run(["decode", "-", "--format", "csv", "-q"], input: input)
        #expect(header.standardOutput.contains("2019-04-07T00:04:30.000Z"))
        let given = try await Runner.run(
            ["decode", "-", "--format", "csv", "-q", "--reference-date", "1999-08-01"], input: input)
        #expect(given.standardOutput.contains("1999-08-22T00:04:30.000Z"))
    }

    @Test func simulateIsDeterministicAndDecodable() async throws {
        let one = try await Runner.run(["simulate", "--epochs", "20", "--seed", "4"])
        let two = try await Runner.run(["simulate", "--epochs", "20", "--seed", "4"])
        #expect(one.status == 0)
        #expect(one.standardOutput == two.standardOutput)
        let decoded = try await Runner.run(
            ["decode", "-", "--format", "csv", "-q"], input: Data(one.standardOutput.utf8))
        #expect(decoded.standardOutput.split(separator: "\n").count == 21)
        let bad = try await Runner.run(["simulate", "--size", "lots"])
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("--size 'lots' is not a size"))
    }
}
