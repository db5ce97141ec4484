// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// What the command line says and which status it ends with when it is given something wrong:
/// usage errors 64 with the option named, I/O errors 1 without the usage text.
@Suite("gpsloc's messages and exit statuses, the built binary")
struct CommandLineTests {
    static var gpslocd: URL { Runner.gpsloc.deletingLastPathComponent().appendingPathComponent("gpslocd") }

    @Test(
        "usage errors end with 64 and name what to write instead",
        arguments: [
            (
                ["watch", "--source", "file:x.nmea?sped=max", "--app", "a"],
                "'sped' is not an option of file:"
            ),
            (["watch", "--source", "tcp://host:10110?baud=9600", "--app", "a"], "they take none"),
            (["simulate", "--epochs", "-5"], "--epochs must be at least 1"),
            (["simulate", "--epochs", "5", "--seed", "-3"], "The value '-3' is invalid for '--seed"),
            (["simulate", "--epochs", "5", "--size", "1M"], "not both"),
            (["decode", "--max-length", "-1", "-"], "--max-length"),
            (["devices", "--probe-time", "-1", "/dev/null"], "--probe-time must be between"),
        ])
    func usageErrors(_ arguments: [String], _ says: String) async throws {
        let result = try await Runner.run(arguments)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains(says), "\(result.standardError)")
        #expect(!result.standardError.contains("Missing value"))
    }

    @Test("no help text says a default twice, nor sends its reader to the README")
    func helpSaysEachDefaultOnce() async throws {
        let commands = [
            ["decode"], ["simulate"], ["watch"], ["monitor"], ["auth"], ["auth", "grant"], ["auth", "show"],
            ["agent"], ["devices"], ["record"], ["journal", "verify"], ["journal", "decrypt"],
            ["journal", "keygen"], ["uplink"],
        ]
        for command in commands {
            let help = try await Runner.run(command + ["--help"])
            #expect(help.status == 0, "\(command)")
            // One option's help, its lines joined: the parser's "(default: N)" after our own words.
            let text = help.standardOutput.replacingOccurrences(
                of: #"\s+"#, with: " ", options: .regularExpression)
            #expect(
                text.range(of: #"\(default [^)]*\)\.? \(default: "#, options: .regularExpression) == nil,
                "\(command): \(help.standardOutput)")
            #expect(!text.lowercased().contains("see readme"), "\(command)")
        }
        let daemon = try await Runner.run(["--help"], executable: Self.gpslocd)
        #expect(!daemon.standardOutput.lowercased().contains("see readme"))
    }

    @Test("a log level that is no level is a usage error for gpsloc and gpslocd alike")
    func logLevel() async throws {
        let watch = try await Runner.run(
            ["watch", "--source", "file:\(Fixtures.url("drive-1hz.nmea").path)", "--app", "a"],
            environment: ["GPSLOC_LOG_LEVEL": "loud"])
        #expect(watch.status == 64)
        #expect(watch.standardError.contains("GPSLOC_LOG_LEVEL 'loud' is not a level; use one of trace"))
        for arguments in [["decode", Fixtures.url("drive-1hz.nmea").path], ["simulate", "--epochs", "1"]] {
            let result = try await Runner.run(arguments, environment: ["GPSLOC_LOG_LEVEL": "loud"])
            #expect(result.status == 64, "\(arguments[0])")
            #expect(result.standardOutput.isEmpty)
        }
        let daemon = try await Runner.run(
            ["--socket", "/nonexistent/x.sock"], executable: Self.gpslocd,
            environment: ["GPSLOCD_LOG_LEVEL": "chatty"])
        #expect(daemon.status == 64)
        #expect(daemon.standardError.contains("GPSLOCD_LOG_LEVEL 'chatty' is not a level"))
    }

    @Test("an output that cannot be written is an I/O error: status 1, the reason, no usage text")
    func outputErrors() async throws {
        let missing = try await Runner.run(["simulate", "--epochs", "3", "-o", "/nonexistent/log.nmea"])
        #expect(missing.status == 1)
        #expect(
            missing.standardError.contains("cannot write '/nonexistent/log.nmea': No such file or directory"))
        #expect(!missing.standardError.contains("Usage:"))
        let full = try await Runner.run(["simulate", "--epochs", "3000", "-o", "/dev/full"])
        #expect(full.status == 1)
        #expect(full.standardError.contains("No space left on device"), "\(full.standardError)")
    }

    @Test(
        "--version names the same release, commit, build day and Swift for both programs; --help lists the exit statuses"
    )
    func versionAndHelp() async throws {
        let gpsloc = try await Runner.run(["--version"])
        let daemon = try await Runner.run(["--version"], executable: Self.gpslocd)
        #expect(gpsloc.status == 0 && daemon.status == 0)
        let full = gpsloc.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        // The release, then what built it: 0.1.0 (commit 0123456789ab, built 2026-11-25 with Swift 6.3.1)
        let stamp =
            /(\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}(\+changes)?|unknown), built (\d{4}-\d\d-\d\d) with Swift (\d+\.\d+(\.\d+)?)\)/
        let parts = try #require(full.wholeMatch(of: stamp), "\(full)")
        let version = String(parts.1)
        #expect(daemon.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == full)
        // The commit is the checkout's, when the tests run in one.
        let head = try await Runner.run(
            ["-C", Fixtures.packageRoot.path, "rev-parse", "--short=12", "HEAD"],
            executable: URL(fileURLWithPath: "/usr/bin/git"))
        if head.status == 0 {
            #expect(parts.2.hasPrefix(head.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let changelog = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## \(version)"), "CHANGELOG.md has an entry for \(version)")
        let help = try await Runner.run(["--help"])
        #expect(help.standardOutput.contains("Exit status: 0 done; 1 an error"))
    }

    @Test("examples/Info.plist is a manifest watch takes: the app may then be asked, not refused")
    func exampleManifest() async throws {
        let store = WatchAuthCommandTests.temporaryStore()
        let manifest = Fixtures.packageRoot.appendingPathComponent("examples/Info.plist").path
        let with = try await Runner.run([
            "watch", "--source", "file:\(Fixtures.url("drive-1hz.nmea").path)?speed=max", "--app",
            "com.example.tracker", "--manifest", manifest, "--store", store, "--prompt", "pending",
        ])
        #expect(with.standardOutput.contains("authorizationRequestInProgress"), "\(with.standardOutput)")
        #expect(!with.standardOutput.contains("authorizationDenied"))
        let without = try await Runner.run([
            "watch", "--source", "file:\(Fixtures.url("drive-1hz.nmea").path)?speed=max", "--app",
            "com.example.other", "--store", store, "--prompt", "pending",
        ])
        #expect(without.standardOutput.contains("authorizationDenied"))
        #expect(
            without.standardError.contains("pass --manifest with its Info.plist (examples/Info.plist is one)")
        )
    }
}

/// Text from outside reaches the terminal as text: escape sequences in an app's identifier, in a
/// path or in what a peer says are shown as `\u{1B}`, never obeyed.
@Suite("Terminal safety, the built binary")
struct TerminalSafetyTests {
    static let escape = "\u{1B}"

    @Test("an app id with escape sequences cannot rewrite auth show's lines")
    func authShow() async throws {
        let store = WatchAuthCommandTests.temporaryStore()
        let disguise = "com.evil\u{1B}[2K\rcom.example.nav"
        #expect(try await Runner.run(["auth", "deny", disguise, "--store", store]).status == 0)
        #expect(
            try await Runner.run(["auth", "restrict", "x\u{1B}]0;title\u{7}", "--store", store]).status == 0)
        let show = try await Runner.run(["auth", "show", "--store", store])
        #expect(!show.standardOutput.contains(Self.escape) && !show.standardOutput.contains("\r"))
        #expect(show.standardOutput.contains(#"com.evil\u{1B}[2K\u{D}com.example.nav: denied"#))
        #expect(show.standardOutput.contains(#"restricted: x\u{1B}]0;title\u{7}"#))
    }

    @Test("messages on standard error carry the same escapes, not the sequences")
    func messages() async throws {
        let result = try await Runner.run([
            "watch", "--source", "file:\(Fixtures.url("drive-1hz.nmea").path)?speed=max", "--app",
            "app\u{1B}[31mred", "--store", WatchAuthCommandTests.temporaryStore(), "--prompt", "pending",
        ])
        #expect(!result.standardError.contains(Self.escape))
        #expect(result.standardError.contains(#"app\u{1B}[31mred"#), "\(result.standardError)")
    }
}
