// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// gpslocd's configuration file, wrong in the ways people get it wrong: what it says.
@Suite("gpslocd's configuration errors, in plain words")
struct DaemonConfigurationTests {
    /// Runs gpslocd on a configuration file holding `text`, for at most 3 seconds.
    static func run(_ text: String) async throws -> ProcessResult {
        let daemon = try DaemonHarness(sources: [])
        defer { try? FileManager.default.removeItem(atPath: daemon.root) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: daemon.root + "/gpslocd.conf"))
        return try await Runner.run(
            ["-s", "INT", "3", gpslocdBinary.path] + daemon.arguments,
            executable: URL(fileURLWithPath: "/usr/bin/timeout"))
    }

    @Test(
        "not JSON, not an object, a key of the wrong type: the file, the place and what was expected; status 64",
        arguments: [
            (#"{"sources": ['serial:/dev/ttyUSB0']}"#, "is not JSON"),
            ("{\n  \"sources\": [\"serial:/dev/ttyUSB0\"\n}", "at line 3, column 1"),
            (#"["serial:/dev/ttyUSB0"]"#, "holds JSON but not an object"),
            (#"{"sources": "serial:/dev/ttyUSB0"}"#, "'sources' must be a list of strings"),
            (#"{"grace": "ten"}"#, "'grace' must be a number"),
            (#"{"clientBuffer": 65536.5}"#, "'clientBuffer' must be a whole number"),
            (#"{"connectionsPerUser": 0}"#, "--connections-per-user 0 is out of range; give 1 to 65536"),
            (#"{"helloTimeout": 0.1}"#, "--hello-timeout 0.1 is out of range; give 0.5 to 600 seconds"),
            (#"{"helloTimeout": "soon"}"#, "'helloTimeout' must be a number: seconds"),
            (#"{"nice": "high"}"#, "'nice' must be a whole number: a nice value, -20 to 19"),
            (#"{"nice": -21}"#, "--nice -21 is out of range; give -20 to 19"),
            (
                #"{"applicationDirectories": "/usr/share/applications"}"#,
                #"'applicationDirectories' must be a list of absolute paths, such as ["/usr/share/applications"], or [] for none"#
            ),
        ])
    func wrong(text: String, says: String) async throws {
        let result = try await Self.run(text)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains(says), "\(result.standardError)")
        #expect(!result.standardError.contains("Usage:"), "a file's mistake is not the command's")
        for internals in [
            "DecodingError", "Array<", "codingPath", "NSCocoaErrorDomain", "Swift.", "character",
        ] {
            #expect(!result.standardError.contains(internals), "\(result.standardError)")
        }
    }

    @Test("an unknown key is a warning naming it and the key meant; the daemon starts")
    func unknownKey() async throws {
        let daemon = try DaemonHarness(sources: [])
        try Data(#"{"source": ["tcp://127.0.0.1:9"]}"#.utf8).write(
            to: URL(fileURLWithPath: daemon.root + "/gpslocd.conf"))
        try await daemon.start()
        #expect(
            daemon.log.contains("unknown key 'source' is ignored; did you mean 'sources'?"), "\(daemon.log)")
        await daemon.stop()
    }

    @Test("a log's path given as a source: both programs suggest file:, both end with status 64")
    func pathAsSource() async throws {
        let daemon = try DaemonHarness(sources: ["/var/log/drive.nmea"])
        defer { try? FileManager.default.removeItem(atPath: daemon.root) }
        let fromDaemon = try await Runner.run(
            ["-s", "INT", "5", gpslocdBinary.path] + daemon.arguments,
            executable: URL(fileURLWithPath: "/usr/bin/timeout"))
        let fromCommand = try await Runner.run(["watch", "--source", "/var/log/drive.nmea", "--app", "x"])
        for result in [fromDaemon, fromCommand] {
            #expect(result.status == 64, "\(result.standardError)")
            #expect(result.standardError.contains("as file:/var/log/drive.nmea"), "\(result.standardError)")
        }
    }
}
