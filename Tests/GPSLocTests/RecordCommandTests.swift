// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// `gpsloc record` and `gpsloc journal`, the built binary: what is recorded comes back with the
/// private key only; killed at any moment, the recorder loses at most the record it was writing
/// and carries on; a full disk loses what does not fit and nothing else.
@Suite("gpsloc record and gpsloc journal, the built binary")
struct RecordCommandTests {
    static let app = "org.example.recorder"

    /// A directory with a key pair, an app's manifest and decisions granting it Always.
    struct Workspace {
        let directory: String
        var journal: String { directory + "/journal" }

        init() async throws {
            directory = NSTemporaryDirectory() + "gpsloc-record-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let keys = try await Runner.run([
                "journal", "keygen", "--private-key", directory + "/key", "--public-key",
                directory + "/key.pub",
            ])
            #expect(keys.status == 0, "\(keys.standardError)")
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>NSLocationWhenInUseUsageDescription</key><string>Records the vehicle's track.</string>
            <key>NSLocationAlwaysAndWhenInUseUsageDescription</key><string>Records the vehicle's track.</string>
            </dict></plist>
            """.write(toFile: directory + "/Info.plist", atomically: true, encoding: .utf8)
            let grant = try await Runner.run([
                "auth", "grant", RecordCommandTests.app, "always", "--store", store,
            ])
            #expect(grant.status == 0, "\(grant.standardError)")
        }

        var store: String { directory + "/store" }

        /// `gpsloc record` on `source` into the journal.
        func record(_ source: String, extra: [String] = []) -> [String] {
            [
                "record", "--source", source, "--app", RecordCommandTests.app, "--store", store, "--manifest",
                directory + "/Info.plist", "--journal", journal, "--key", directory + "/key.pub",
            ] + extra
        }

        func decrypt(_ format: String = "jsonl") async throws -> ProcessResult {
            try await Runner.run([
                "journal", "decrypt", journal, "--key", directory + "/key", "--format", format,
            ])
        }

        /// The 5-minute drive recorded at full speed; the path of the segment it fills.
        func recordDriveIntoOneSegment() async throws -> String {
            let log = Fixtures.url("drive-1hz.nmea").path
            let recorded = try await Runner.run(record("file:\(log)?speed=max"))
            #expect(recorded.status == 0, "\(recorded.standardError)")
            let segment = try #require(
                try FileManager.default.contentsOfDirectory(atPath: journal).first {
                    $0.hasPrefix("segment-")
                })
            return journal + "/" + segment
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test(
        "one byte flipped in a closed journal: verify says DAMAGED first and exits 2; decrypt writes the rest"
    )
    func flippedByteIsDamage() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let log = Fixtures.url("drive-1hz.nmea").path
        let recorded = try await Runner.run(workspace.record("file:\(log)?speed=max"))
        #expect(recorded.status == 0, "\(recorded.standardError)")
        #expect(
            recorded.standardError.contains("302 records: 300 locations, 1 opening, 1 final written to"),
            "\(recorded.standardError)")
        let segment = try #require(
            try FileManager.default.contentsOfDirectory(atPath: workspace.journal).first {
                $0.hasSuffix(".ocj")
            })
        let path = workspace.journal + "/" + segment
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[5000] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let verify = try await Runner.run([
            "journal", "verify", workspace.journal, "--key", workspace.directory + "/key",
        ])
        #expect(verify.status == 2, "\(verify.standardOutput)")
        #expect(verify.standardOutput.hasPrefix("DAMAGED: "), "\(verify.standardOutput)")
        #expect(verify.standardOutput.contains("1 record lost"), "\(verify.standardOutput)")
        #expect(!verify.standardOutput.contains("intact"), "\(verify.standardOutput)")
        let decrypted = try await workspace.decrypt()
        #expect(decrypted.status == 2)
        #expect(decrypted.standardError.contains("DAMAGED") && decrypted.standardError.contains("byte "))
        let got = jsonObjects(inLines: decrypted.standardOutput)
        #expect(got.count == 299, "\(got.count) of 300 locations written")
        let times = got.compactMap { $0["time"] as? String }
        #expect(times == times.sorted() && Set(times).count == times.count)
        // Without the key, the CRCs alone find it too.
        let blind = try await Runner.run(["journal", "verify", workspace.journal])
        #expect(blind.status == 2 && blind.standardOutput.hasPrefix("DAMAGED: "), "\(blind.standardOutput)")
    }

    @Test("journal verify and decrypt of a directory that holds no journal fail and say so, never 'whole'")
    func aDirectoryWithoutAJournal() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let empty = workspace.directory + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        for command in [
            ["verify", empty], ["verify", empty, "--key", workspace.directory + "/key"],
            ["decrypt", empty, "--key", workspace.directory + "/key"],
        ] {
            let result = try await Runner.run(["journal"] + command)
            #expect(result.status == 1, "\(command): \(result.standardOutput)\(result.standardError)")
            #expect(
                result.standardError.contains("error: \(empty) holds no journal (no segment is in it)"),
                "\(result.standardError)")
            #expect(!result.standardOutput.contains("whole") && !result.standardOutput.contains("intact"))
        }
    }

    @Test("a journal read as a log, without its key, is named as a journal with what reads it")
    func aJournalReadAsALog() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let path = try await workspace.recordDriveIntoOneSegment()
        let journalSaid = "is a sealed track journal, not an NMEA log: `gpsloc decode --key FILE` decodes"
        let piped = try await Runner.run(
            ["decode", "-"], input: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(piped.status == 1 && piped.standardError.contains(journalSaid), "\(piped.standardError)")
        let replayed = try await Runner.run([
            "watch", "--source", "file:\(path)?speed=max", "--app", Self.app, "--store", workspace.store,
            "--manifest", workspace.directory + "/Info.plist", "--format", "jsonl",
        ])
        #expect(
            replayed.status == 1 && replayed.standardError.contains(journalSaid), "\(replayed.standardError)")
        #expect(replayed.standardOutput.isEmpty)
        let walked = try await Runner.run(["decode", "--recursive", workspace.directory])
        #expect(
            walked.standardError.contains(
                "skipped \(path): a sealed track journal's segment, which needs --key FILE"),
            "\(walked.standardError)")
    }

    @Test("one stray byte after a closed segment is one byte in every line that counts it, not '1 bytes'")
    func oneStrayByte() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let handle = try #require(
            FileHandle(forWritingAtPath: try await workspace.recordDriveIntoOneSegment()))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0x5A]))
        try handle.close()
        let verified = try await Runner.run([
            "journal", "verify", workspace.journal, "--key", workspace.directory + "/key",
        ])
        let said = verified.standardOutput
        #expect(verified.status == 2 && said.hasPrefix("DAMAGED: "), "\(said)")
        #expect(said.contains("; 1 byte after its last whole record"), "\(said)")
        #expect(said.contains("the last 1 byte is not a whole record, and the segment was closed"), "\(said)")
        #expect(!said.contains(" 1 bytes") && !said.contains(" 1 records"), "\(said)")
    }

    @Test("a drive recorded comes back with the private key, as watch printed it; without it, nothing")
    func recordsAndReadsBack() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let log = Fixtures.url("drive-1hz.nmea").path
        let recorded = try await Runner.run(workspace.record("file:\(log)?speed=max"))
        #expect(recorded.status == 0, "\(recorded.standardError)")
        let watched = try await Runner.run([
            "watch", "--source", "file:\(log)?speed=max", "--app", Self.app, "--store", workspace.store,
            "--manifest", workspace.directory + "/Info.plist", "--format", "jsonl", "--session", "always",
        ])
        let expected = jsonObjects(inLines: watched.standardOutput).filter { $0["latitude"] != nil }
        let decrypted = try await workspace.decrypt()
        #expect(decrypted.status == 0, "\(decrypted.standardError)")
        let got = jsonObjects(inLines: decrypted.standardOutput)
        #expect(
            got.count == expected.count && !got.isEmpty, "\(got.count) recorded, \(expected.count) watched")
        for (a, b) in zip(got, expected) {
            #expect(a["time"] as? String == b["time"] as? String)
            #expect(abs((a["latitude"] as? Double ?? 0) - (b["latitude"] as? Double ?? 1)) < 1e-9)
        }
        let verify = try await Runner.run([
            "journal", "verify", workspace.journal, "--key", workspace.directory + "/key",
        ])
        #expect(
            verify.status == 0
                && verify.standardOutput.contains(
                    "intact; \(got.count + 2) records: \(got.count) locations, 1 opening, 1 final"),
            "\(verify.standardOutput)")
        // The files hold no coordinate in the clear.
        let segment = try #require(
            try FileManager.default.contentsOfDirectory(atPath: workspace.journal).first {
                $0.hasSuffix(".ocj")
            })
        let bytes = try Data(contentsOf: URL(fileURLWithPath: workspace.journal + "/" + segment))
        #expect(bytes.range(of: Data("52.37".utf8)) == nil)
        // gpsd's TPVs, for gpsd's tools.
        let tpvs = jsonObjects(inLines: try await workspace.decrypt("gpsd").standardOutput)
        #expect(
            tpvs.count == got.count
                && tpvs.allSatisfy { $0["class"] as? String == "TPV" && $0["mode"] as? Int == 3 })
        // GPX for a map; the public key reads nothing; a key that is not one is named.
        let gpx = try await workspace.decrypt("gpx")
        #expect(gpx.standardOutput.components(separatedBy: "<trkpt").count - 1 == got.count)
        let wrong = try await Runner.run([
            "journal", "decrypt", workspace.journal, "--key", workspace.directory + "/key.pub",
        ])
        #expect(wrong.status != 0 && wrong.standardError.contains("is a public key; give the private one"))
    }

    @Test(
        "with --nmea, the sentences come back, decode --key decodes the journal as the log it was recorded from, file:?key= replays it"
    )
    func nmeaDecodesAsTheLog() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let log = Fixtures.url("drive-10hz.nmea").path
        let recorded = try await Runner.run(workspace.record("file:\(log)?speed=max", extra: ["--nmea"]))
        #expect(recorded.status == 0, "\(recorded.standardError)")
        let nmea = try await workspace.decrypt("nmea")
        #expect(
            nmea.standardOutput.hasPrefix("$GPRMC,") || nmea.standardOutput.hasPrefix("$GNRMC,"),
            "\(nmea.standardOutput.prefix(200))")
        let fromJournal = try await Runner.run([
            "decode", "--key", workspace.directory + "/key", workspace.journal, "--format", "jsonl", "-q",
        ])
        let fromLog = try await Runner.run(["decode", log, "--format", "jsonl", "-q"])
        let journalFixes = jsonObjects(inLines: fromJournal.standardOutput)
        let logFixes = jsonObjects(inLines: fromLog.standardOutput)
        #expect(journalFixes.count == logFixes.count && !logFixes.isEmpty, "\(fromJournal.standardError)")
        // The sky too: each system's satellites under their own talker and signal, none listed
        // twice, every used one marked, however many a system has.
        func sky(_ fix: [String: Any]) -> [String] {
            (fix["satellites"] as? [[String: Any]] ?? []).map {
                "\($0["system"] ?? "-") \($0["svid"] ?? "-") \($0["signal"] ?? "-") \($0["used"] ?? "-")"
            }.sorted()
        }
        var skiesDiffering = 0
        for (a, b) in zip(journalFixes, logFixes) {
            #expect(a["time"] as? String == b["time"] as? String)
            #expect(abs((a["latitude"] as? Double ?? 0) - (b["latitude"] as? Double ?? 1)) < 1e-6)
            if sky(a) != sky(b) || a["satellitesUsed"] as? Int != b["satellitesUsed"] as? Int {
                skiesDiffering += 1
            }
        }
        #expect(skiesDiffering == 0, "\(skiesDiffering) of \(logFixes.count) skies came back otherwise")
        #expect(logFixes.contains { sky($0).contains { $0.hasPrefix("Galileo") } })
        // Replayed as a receiver: file:JOURNAL?key=FILE.
        let replayed = try await Runner.run([
            "watch", "--source", "file:\(workspace.journal)?key=\(workspace.directory)/key&speed=max",
            "--app",
            Self.app, "--store", workspace.store, "--manifest", workspace.directory + "/Info.plist",
            "--format", "jsonl",
            "--session", "always",
        ])
        #expect(replayed.status == 0, "\(replayed.standardError)")
        #expect(
            jsonObjects(inLines: replayed.standardOutput).filter { $0["latitude"] != nil }.count
                == logFixes.count)
        let sealed = try await Runner.run(["decode", workspace.journal])
        #expect(sealed.status != 0 && sealed.standardError.contains("give its private key with --key"))
    }

    @Test(
        "killed with SIGKILL at random moments (60 times; OPENCORELOCATION_POWER_CUTS for more): every run's records are whole, nothing else is lost"
    )
    func powerCuts() async throws {
        let kills = Int(ProcessInfo.processInfo.environment["OPENCORELOCATION_POWER_CUTS"] ?? "") ?? 60
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let log = Fixtures.url("drive-10hz.nmea").path
        var cuts = 0
        for _ in 0..<kills {
            // Ten times the log's pace, 100 fixes a second: the 64 a slow subscriber may fall
            // behind are 0.6 s of a journal write held up by a loaded machine, which the test
            // must not mistake for a loss (at 20 times, a stall of 0.3 s could drop one).
            let run = try RunningProcess(
                workspace.record("file:\(log)?speed=10", extra: ["--segment-size", "4096"]))
            try await Task.sleep(for: .milliseconds(Int.random(in: 30...400)))
            run.signal(SIGKILL)
            _ = await run.wait(within: 10)
            // What the next run says of a torn end: never more than one frame's bytes.
            let torn = run.errors.range(
                of: #"its last (\d+) bytes were a torn write"#, options: .regularExpression)
            if let torn {
                cuts += 1
                let number = Int(run.errors[torn].split(separator: " ")[2]) ?? .max
                #expect(number < 90, "more than one record's bytes torn: \(run.errors)")
            }
        }
        let closing = try await Runner.run(workspace.record("file:\(log)?speed=max"))
        #expect(closing.status == 0, "\(closing.standardError)")
        let verify = try await Runner.run([
            "journal", "verify", workspace.journal, "--key", workspace.directory + "/key",
        ])
        #expect(verify.status == 0, "\(verify.standardOutput)")
        #expect(!verify.standardOutput.contains("damage:"))
        // Every run replays the drive from its start: each run's records are the drive's first N,
        // none missing, none altered, none repeated.
        let decrypted = try await workspace.decrypt()
        let times = jsonObjects(inLines: decrypted.standardOutput).compactMap { $0["time"] as? String }
        var runs: [[String]] = []
        for time in times {
            if runs.isEmpty || time <= (runs[runs.count - 1].last ?? "") { runs.append([]) }
            runs[runs.count - 1].append(time)
        }
        let whole = try #require(runs.last)
        for run in runs { #expect(Array(whole.prefix(run.count)) == run) }
        print(
            "power cuts: \(kills) runs killed, \(cuts) torn ends cut, \(runs.count) runs in the journal, \(times.count) records"
        )
    }

    @Test(
        "a full disk: the recorder says so, keeps the journal, and resumes with a gap record when space returns",
        .enabled(if: getuid() == 0, "mounts a small tmpfs"))
    func fullDisk() async throws {
        let workspace = try await Workspace()
        defer { workspace.remove() }
        let mount = workspace.directory + "/small"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try await Runner.run(
            ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mount], executable: URL(fileURLWithPath: "/bin/mount")
        )
        try #require(mounted.status == 0, "\(mounted.standardError)")
        defer {
            _ = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: ["-l", mount])
                .waitUntilExit()
        }
        let log = Fixtures.url("drive-10hz.nmea").path
        var arguments = workspace.record(
            "file:\(log)?speed=2", extra: ["--segment-size", "8192", "--max-size", "1048576"])
        arguments[arguments.firstIndex(of: workspace.journal)!] = mount + "/journal"
        let recorder = try RunningProcess(arguments)
        try await Task.sleep(for: .seconds(2))
        // Everything the disk has left goes to a filler.
        _ = try await Runner.run(
            ["if=/dev/zero", "of=\(mount)/filler", "bs=4096"], executable: URL(fileURLWithPath: "/bin/dd"))
        #expect(
            await waitUntil(within: 15) { recorder.errors.contains("No space left on device") },
            "\(recorder.errors)")
        try FileManager.default.removeItem(atPath: mount + "/filler")
        #expect(
            await waitUntil(within: 15) { recorder.errors.contains("recording again") }, "\(recorder.errors)")
        try await Task.sleep(for: .seconds(1))
        recorder.signal(SIGTERM)
        #expect(await recorder.wait(within: 10) == 0, "\(recorder.errors)")
        let decrypted = try await Runner.run([
            "journal", "decrypt", mount + "/journal", "--key", workspace.directory + "/key",
        ])
        #expect(decrypted.status == 0, "\(decrypted.standardError)")
        let gaps = jsonObjects(inLines: decrypted.standardOutput).filter { $0["gap"] != nil }
        #expect(
            gaps.count == 1 && (gaps.first?["gap"] as? Int ?? 0) > 0,
            "\(decrypted.standardOutput.suffix(600))")
    }
}
