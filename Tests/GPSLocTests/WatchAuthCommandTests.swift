// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

@Suite("gpsloc watch and gpsloc auth, the built binary")
struct WatchAuthCommandTests {
    let log = Fixtures.url("drive-1hz.nmea").path
    let app = "com.example.tracker"

    static func temporaryStore() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("gpsloc-\(UUID().uuidString)").path
    }

    static func manifest() throws -> String {
        let path = temporaryStore() + ".plist"
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>NSLocationWhenInUseUsageDescription</key><string>Shows where the vehicle is.</string>
        </dict></plist>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func authManagesTheStore() async throws {
        let store = Self.temporaryStore()
        #expect(
            try await Runner.run(["auth", "grant", app, "always", "--approximate", "--store", store]).status
                == 0)
        var show = try await Runner.run(["auth", "show", "--store", store])
        #expect(show.standardOutput.contains("location services: on"))
        #expect(show.standardOutput.contains("\(app): always, approximate"))
        let attributes = try FileManager.default.attributesOfItem(atPath: store + "/authorization.json")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        #expect(try await Runner.run(["auth", "deny", app, "--store", store]).status == 0)
        #expect(try await Runner.run(["auth", "services", "off", "--store", store]).status == 0)
        #expect(try await Runner.run(["auth", "restrict", "org.example.kids", "--store", store]).status == 0)
        show = try await Runner.run(["auth", "show", app, "--store", store])
        #expect(show.standardOutput.contains("\(app): denied"))
        #expect(show.standardOutput.contains("location services: off"))
        #expect(show.standardOutput.contains("restricted: org.example.kids"))

        #expect(try await Runner.run(["auth", "reset", app, "--store", store]).status == 0)
        show = try await Runner.run(["auth", "show", app, "--store", store])
        #expect(show.standardOutput.contains("\(app): not determined"))

        let bad = try await Runner.run(["auth", "grant", app, "always", "--once", "--store", store])
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("--once applies to when-in-use only"))
        let neither = try await Runner.run(["auth", "reset", "--store", store])
        #expect(neither.standardError.contains("name one app to reset, or pass --all"))
    }

    @Test func watchPrintsEveryUpdateOfAnAuthorizedApp() async throws {
        let store = Self.temporaryStore()
        _ = try await Runner.run(["auth", "grant", app, "--store", store])
        let result = try await Runner.run([
            "watch", "--source", "file:\(log)?speed=max", "--app", app, "--store", store, "--prompt",
            "pending",
        ])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 300)
        #expect(lines.allSatisfy { $0.hasPrefix("2026-03-14T08:") && $0.contains("simulated") })
        #expect(lines.first?.contains("52.37309400,4.89262583") == true)
    }

    @Test(
        "watch --format gpsd: DEVICE, then gpsd's reports of every fix when precise, a reduced TPV when approximate"
    )
    func watchInGPSDFormat() async throws {
        let store = Self.temporaryStore()
        _ = try await Runner.run(["auth", "grant", app, "--store", store])
        let source = "file:\(log)?speed=max"
        let precise = try await Runner.run([
            "watch", "--source", source, "--app", app, "--store", store, "--prompt", "pending", "--format",
            "gpsd",
        ])
        #expect(precise.status == 0, "\(precise.standardError)")
        let lines = precise.standardOutput.split(separator: "\r\n")
        #expect(
            !precise.standardOutput.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "only CRLF")
        #expect(lines.first?.hasPrefix(#"{"class":"DEVICE","path":"\#(source)""#) == true)
        #expect(lines.count { $0.hasPrefix(#"{"class":"TPV","device":"\#(source)","mode":3"#) } == 300)
        #expect(lines.count { $0.hasPrefix(#"{"class":"SKY""#) } == 300)

        _ = try await Runner.run(["auth", "grant", app, "--approximate", "--store", store])
        let approximate = try await Runner.run([
            "watch", "--source", source, "--app", app, "--store", store, "--prompt", "pending", "--format",
            "gpsd",
        ])
        let reduced = approximate.standardOutput.split(separator: "\r\n").dropFirst()
        #expect(reduced.count == 1, "\(approximate.standardOutput)")
        #expect(reduced.first?.hasPrefix(#"{"class":"TPV","device":"\#(source)","mode":2,"#) == true)
        #expect(
            reduced.first?.contains(#""eph":3600"#) == true && reduced.first?.contains(#""speed":"#) == false)
    }

    @Test("A log of GGA alone, with no date anywhere, is dated today, never 1970")
    func datelessLogIsDatedToday() async throws {
        let store = Self.temporaryStore()
        _ = try await Runner.run(["auth", "grant", app, "--store", store])
        let path = store + "-gga.nmea"
        // Times of day of ten seconds ago: the day nearest to now is today (or, just after
        // midnight, yesterday).
        let start = Date().addingTimeInterval(-10)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let clock = { (date: Date) in
            let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
            return String(format: "%02d%02d%02d", parts.hour!, parts.minute!, parts.second!)
        }
        let text = (0..<3).map {
            SentenceBuilder.sentence(
                "GPGGA,\(clock(start.addingTimeInterval(Double($0)))).00,5222.3856,N,00453.5576,E,1,08,0.9,12.0,M,46.9,M,,"
            )
        }.joined()
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await Runner.run([
            "watch", "--source", "file:\(path)?speed=max", "--app", app, "--store", store, "--manifest",
            try Self.manifest(), "--prompt", "pending", "--format", "jsonl",
        ])
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let day = formatter.string(from: start)
        let lines = result.standardOutput.split(separator: "\n").filter { $0.contains("latitude") }
        #expect(lines.count >= 2, "\(result.standardOutput)\(result.standardError)")
        #expect(lines.allSatisfy { $0.contains("\"\(day)T") }, "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("1970"))
    }

    @Test func watchUnderReducedAccuracyGivesCellsAndAccuracyLimited() async throws {
        let store = Self.temporaryStore()
        _ = try await Runner.run(["auth", "grant", app, "--approximate", "--store", store])
        let result = try await Runner.run([
            "watch", "--source", "file:\(log)?speed=max", "--app", app, "--store", store, "--format", "jsonl",
            "--prompt", "pending",
        ])
        #expect(result.status == 0)
        let objects = try result.standardOutput.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        // One approximate location at once, then nothing: 300 s is under 15 min.
        #expect(objects.count == 1)
        #expect((objects.first?["horizontalAccuracy"] as? Double ?? 0) >= 3600)
        #expect(objects.first?["speed"] as? Double == -1 && objects.first?["course"] as? Double == -1)
        #expect(objects.first?["accuracyLimited"] as? Bool == true)
        // Watching again is told the same location at the same time, not a fresh one.
        let again = try await Runner.run([
            "watch", "--source", "file:\(log)?speed=max", "--app", app, "--store", store, "--format", "jsonl",
            "--prompt", "pending",
        ])
        #expect(again.standardOutput == result.standardOutput)
        #expect(FileManager.default.fileExists(atPath: store + "/reducer.key"))
    }

    @Test func watchExplainsDenialsAndBadArguments() async throws {
        let store = Self.temporaryStore()
        _ = try await Runner.run(["auth", "deny", app, "--store", store])
        let denied = try await Runner.run([
            "watch", "--source", "file:\(log)?speed=max", "--app", app, "--store", store, "--prompt",
            "pending",
        ])
        #expect(denied.status == 0)
        #expect(denied.standardOutput == "no location  [authorizationDenied]\n")

        let badSource = try await Runner.run(["watch", "--source", "file:\(log)?speed=fast", "--app", app])
        #expect(badSource.status == 64)
        #expect(badSource.standardError.contains("--source"))
        #expect(badSource.standardError.contains("speed must be 'max' or a factor from 0.001 to 1000000"))

        let missing = try await Runner.run([
            "watch", "--source", "file:/no/such.nmea", "--app", app, "--store", store,
        ])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("/no/such.nmea"))

        let noManifest = try await Runner.run([
            "watch", "--source", "file:\(log)?speed=max", "--app", "org.example.new", "--store", store,
            "--prompt", "pending",
        ])
        #expect(noManifest.standardError.contains("NSLocationWhenInUseUsageDescription"))
        #expect(noManifest.standardOutput == "no location  [authorizationDenied]\n")
    }

    @Test func aPendingRequestIsAnsweredWithAuthGrant() async throws {
        let store = Self.temporaryStore()
        // Slow enough that the log is still playing when the grant comes, however loaded the
        // machine; the program is stopped once it has shown a location.
        let watch = try RunningProcess([
            "watch", "--source", "file:\(log)?speed=5", "--app", app, "--store", store,
            "--manifest", try Self.manifest(), "--prompt", "pending",
        ])
        // Wait (bounded) for the request to be recorded in the store.
        var pending = false
        for _ in 0..<200 where !pending {
            try await Task.sleep(for: .milliseconds(50))
            pending =
                (try? await Runner.run(["auth", "show", app, "--store", store]))?.standardOutput
                .contains("request pending: whenInUse") ?? false
        }
        #expect(pending)
        #expect(try await Runner.run(["auth", "grant", app, "--store", store]).status == 0)
        await watch.waitForOutput { $0.contains("\n2026-03-14T08:") }
        await watch.stop()
        let lines = watch.output.split(separator: "\n")
        #expect(lines.first == "no location  [authorizationRequestInProgress]")
        #expect(lines.dropFirst().contains { $0.hasPrefix("2026-03-14T08:") })
        #expect(watch.errors.contains("gpsloc auth grant \(app)"))
    }
}
