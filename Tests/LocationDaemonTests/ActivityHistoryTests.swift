// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// The access history as its people read it: `gpsloc activity` run by real users against gpslocd
/// serving a pty receiver to `gpsloc watch` (its own protocol) and Debian's `gpspipe` (gpsd's),
/// after a refusal and after a kill -9; its NDJSON checked against the App Privacy Report's schema.
@Suite(
    "gpslocd: the access history, as gpsloc activity shows it", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users and grant as an administrator"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe"),
        "gpsd-clients is not installed (tools/test installs it)")
)
struct ActivityHistoryTests {
    static let gpsloc = Runner.gpsloc.resolvingSymlinksInPath().path

    /// `gpsloc activity ARGUMENTS` as `account` (root when `nil`).
    static func activity(_ daemon: DaemonHarness, as account: Account?, _ arguments: [String]) async throws
        -> ProcessResult
    {
        try await Runner.run(
            (account?.setpriv() ?? []) + [
                "/usr/bin/env", "OPENCORELOCATION_SOCKET=\(daemon.socket)", gpsloc, "activity",
            ]
                + arguments, executable: setprivPath)
    }

    /// Checks NDJSON against the App Privacy Report's schema; the checker's words when it fails.
    static func schemaProblems(_ ndjson: String) async throws -> String? {
        let scripts = Fixtures.packageRoot.appendingPathComponent("Tests/Scripts").path
        let checked = try await Runner.run(
            [scripts + "/check-privacy-report.py", scripts + "/app-privacy-report.schema.json"],
            input: Data(ndjson.utf8), executable: URL(fileURLWithPath: "/usr/bin/python3"))
        return checked.status == 0 ? nil : checked.standardOutput + checked.standardError
    }

    @Test(
        "a user's programs on two protocols, a refusal, a kill -9: the table, NDJSON in the App Privacy Report's shape, another user's view, and no coordinate in the state directory"
    )
    func history() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let bob = try await Account.ensure("ocl-bob")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let port = Daemons.freePort()
        let daemon = try DaemonHarness(
            sources: [receiver.source], extra: ["--gpsd-listen", "127.0.0.1:\(port)"])
        try await daemon.start()
        try await daemon.grant(uid: alice.uid, app: Self.gpsloc, level: "always")
        try await daemon.grant(uid: alice.uid, app: "/usr/bin/gpspipe", level: "always", approximate: true)

        // Alice: gpsloc watch for two seconds (precise, her own protocol), gpspipe (approximate, gpsd's).
        let watched = try await Runner.run(
            alice.setpriv() + [
                "/usr/bin/env", "OPENCORELOCATION_SOCKET=\(daemon.socket)", "/usr/bin/timeout", "2",
                Self.gpsloc,
                "watch", "--session", "always", "--format", "jsonl",
            ], executable: setprivPath)
        let updates = watched.standardOutput.split(separator: "\n").count
        #expect(updates > 5, "\(watched.standardError)")
        // Each gpspipe until it has what it came for: gpsd's clients read until killed.
        let piped = try RunningProcess(
            alice.setpriv() + ["/usr/bin/gpspipe", "-w", "127.0.0.1:\(port)"], executable: setprivPath)
        #expect(await piped.waitForOutput(within: 15) { $0.contains(#""class":"TPV""#) }, "\(piped.output)")
        piped.signal(SIGKILL)
        _ = await piped.wait(within: 10)
        // Bob's gpspipe has no decision and nobody may ask for it: refused, and in his history.
        let refused = try RunningProcess(
            bob.setpriv() + ["/usr/bin/gpspipe", "-w", "127.0.0.1:\(port)"], executable: setprivPath)
        #expect(
            await refused.waitForOutput(within: 15) { $0.contains("has no decision") }, "\(refused.output)")
        refused.signal(SIGKILL)
        _ = await refused.wait(within: 10)
        #expect(
            await waitUntil(within: 5) {
                let history = try? String(
                    contentsOfFile: daemon.state + "/activity/\(alice.uid).ndjson", encoding: .utf8)
                return history?.components(separatedBy: #""kind":"end""#).count == 3
            }, "both of Alice's periods ended")

        let table = try await Self.activity(daemon, as: alice, [])
        #expect(table.status == 0, "\(table.standardError)")
        let rows = table.standardOutput.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("APP") == true, "\(table.standardOutput)")
        let watchRow = rows.first { $0.hasPrefix(Self.gpsloc + " ") }
        let pipeRow = rows.first { $0.hasPrefix("/usr/bin/gpspipe ") }
        #expect(
            watchRow?.contains("precise") == true && watchRow?.contains("native") == true,
            "\(table.standardOutput)")
        #expect(
            pipeRow?.contains("approximate") == true && pipeRow?.contains("gpsd") == true,
            "\(table.standardOutput)")
        #expect(
            table.standardOutput.contains("proved by: unregistered program at /usr/bin/gpspipe"),
            "\(table.standardOutput)")

        // NDJSON in the App Privacy Report's shape: one begin and one end per period.
        let json = try await Self.activity(daemon, as: alice, ["--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let lines = jsonObjects(inLines: json.standardOutput)
        #expect(lines.count == 4, "\(json.standardOutput)")
        if let problems = try await Self.schemaProblems(json.standardOutput) { Issue.record("\(problems)") }
        let ends = lines.filter { $0["kind"] as? String == "intervalEnd" }
        let nativeEnd = ends.first { $0["protocol"] as? String == "native" }
        // Its count is what it was delivered: no more than it printed, give or take the last in flight.
        let counted = nativeEnd?["updates"] as? Int ?? 0
        #expect(
            counted >= updates && counted <= updates + 3, "\(counted) updates counted, \(updates) printed")

        // Bob sees his refusal and none of Alice's programs; root sees both users'.
        let bobs = try await Self.activity(daemon, as: bob, ["--json"])
        let bobLines = jsonObjects(inLines: bobs.standardOutput)
        #expect(
            bobLines.count == 1 && bobLines.first?["type"] as? String == "refusal"
                && bobLines.first?["reason"] as? String == "noUsageDescription", "\(bobs.standardOutput)")
        let other = try await Self.activity(daemon, as: bob, ["--uid", "\(alice.uid)"])
        #expect(
            other.status == 1 && other.standardError.contains("may see another user's use of location"),
            "\(other.standardError)")
        let all = try await Self.activity(daemon, as: nil, ["--all"])
        #expect(
            all.standardOutput.contains("\(alice.uid)  ") && all.standardOutput.contains("\(bob.uid)  "),
            "\(all.standardOutput)")
        let none = try await Self.activity(daemon, as: bob, ["--app", "desktop:org.gnome.Maps"])
        #expect(
            none.status == 0
                && none.standardError.contains("none of your programs (desktop:org.gnome.Maps) used location"),
            "\(none.standardError)")

        // Killed mid-session: the period is ended, interrupted, when the daemon starts again.
        let running = try RunningProcess(
            alice.setpriv() + ["/usr/bin/gpspipe", "-w", "127.0.0.1:\(port)"], executable: setprivPath)
        #expect(
            await running.waitForOutput(within: 10) { $0.contains(#""class":"TPV""#) }, "\(running.output)")
        await daemon.kill9()
        // gpspipe started by a test has SIGTERM blocked (as every child of its thread): killed.
        running.signal(SIGKILL)
        _ = await running.wait(within: 10)
        try await daemon.start()
        #expect(await daemon.logs("ended now, marked interrupted"), "\(daemon.log)")
        let after = jsonObjects(
            inLines: try await Self.activity(daemon, as: alice, ["--json"]).standardOutput)
        let interrupted = after.filter { $0["interrupted"] as? Bool == true }
        #expect(interrupted.count == 1 && interrupted.first?["kind"] as? String == "intervalEnd", "\(after)")
        if let problems = try await Self.schemaProblems(
            after.compactMap {
                try? String(decoding: JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
            }
            .joined(separator: "\n"))
        {
            Issue.record("\(problems)")
        }
        let since = try await Self.activity(
            daemon, as: alice, ["--since", "1h", "--app", "/usr/bin/gpspipe", "--json"])
        #expect(jsonObjects(inLines: since.standardOutput).count == 4, "\(since.standardOutput)")

        // No coordinate the receiver sent is anywhere in the state directory, and the history holds
        // no coordinate of any kind: no number finer than its times' milliseconds.
        let files = FileManager.default.enumerator(atPath: daemon.state)?.allObjects as? [String] ?? []
        var text = ""
        for file in files {
            text += (try? String(contentsOfFile: daemon.state + "/" + file, encoding: .utf8)) ?? ""
        }
        let precise = receiver.fixes.prefix(200).flatMap {
            [String(format: "%.4f", $0.latitude), String(format: "%.4f", $0.longitude)]
        }
        #expect(!precise.contains { text.contains($0) }, "a precise coordinate is in the state directory")
        let history = files.filter { $0.hasPrefix("activity/") }
            .map { (try? String(contentsOfFile: daemon.state + "/" + $0, encoding: .utf8)) ?? "" }.joined()
        #expect(!history.isEmpty)
        #expect(history.range(of: #"\.[0-9]{4}"#, options: .regularExpression) == nil, "\(history)")
        #expect(!history.contains("\"lat") && !history.contains("\"lon"), "\(history)")
        await daemon.stop()
    }
}
