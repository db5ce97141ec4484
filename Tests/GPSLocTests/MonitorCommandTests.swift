// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

@Suite("gpsloc monitor, the built binary")
struct MonitorCommandTests {
    let log = Fixtures.url("drive-1hz.nmea").path
    let app = "com.example.tracker"
    /// The drive starts here and leaves within a minute.
    let start = "52.373094,4.892626,150,start"
    /// The drive reaches this circle after about four and a half minutes.
    let north = "52.385656,4.907515,300,north"

    func monitor(_ store: String, _ extra: [String]) async throws -> ProcessResult {
        try await Runner.run(
            [
                "monitor", "--source", "file:\(log)?speed=max", "--app", app, "--store", store, "--prompt",
                "pending",
            ]
                + extra)
    }

    @Test func printsTheEventsOfADriveAndKeepsTheCirclesForTheNextRun() async throws {
        let store = WatchAuthCommandTests.temporaryStore()
        _ = try await Runner.run(["auth", "grant", app, "--store", store])
        let first = try await monitor(store, ["--circle", start, "--circle", north])
        #expect(first.status == 0)
        #expect(
            first.standardOutput == """
                2026-03-14T08:00:00.000Z  start  satisfied
                2026-03-14T08:00:00.000Z  north  unsatisfied
                2026-03-14T08:00:14.000Z  start  unsatisfied
                2026-03-14T08:04:36.000Z  north  satisfied

                """)

        // No --circle: the stored circles, against the states the last run ended in.
        let second = try await monitor(store, ["--format", "jsonl"])
        #expect(second.status == 0)
        let objects = try second.standardOutput.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(
            objects.map { "\($0["identifier"]!) \($0["state"]!)" } == [
                "start satisfied", "north unsatisfied", "start unsatisfied", "north satisfied",
            ])
        #expect(objects.allSatisfy { $0["conditionLimitExceeded"] as? Bool == false })

        let reset = try await monitor(store, ["--reset"])
        #expect(reset.status == 1)
        #expect(reset.standardError.contains("has no conditions; add one with --circle"))
    }

    @Test func explainsDenialsAndBadCircles() async throws {
        let store = WatchAuthCommandTests.temporaryStore()
        _ = try await Runner.run(["auth", "deny", app, "--store", store])
        let denied = try await monitor(store, ["--circle", start])
        #expect(denied.status == 0)
        #expect(denied.standardOutput.hasSuffix("  start  unknown  [authorizationDenied]\n"))

        for (circle, message) in [
            ("52.37,4.89", "give LAT,LON,RADIUS[,ID]"), ("95,4.89,100", "the centre is off the globe"),
            ("52.37,4.89,-5", "the radius must be above 0"), ("52.37,4.89,100,", "the name is empty"),
        ] {
            let bad = try await monitor(store, ["--circle", circle])
            #expect(bad.status == 64)
            #expect(bad.standardError.contains(message))
        }
    }
}
