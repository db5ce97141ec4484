// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// The man pages as `man` shows them: made from the programs' help by tools/man-pages, which
/// tools/test runs before the tests (it cannot run while `swift test` holds the build).
@Suite("Man pages, read with man")
struct ManPageTests {
    /// Where tools/test put the pages (`OCL_MAN_PAGES` names another directory).
    static var directory: String {
        ProcessInfo.processInfo.environment["OCL_MAN_PAGES"] ?? Fixtures.packageRoot.path + "/.build-man"
    }

    /// `man -l PAGE` in the C locale, where anything beyond ASCII is lost, one long line a paragraph.
    static func read(_ page: String) async throws -> String {
        let path = directory + "/" + page
        try #require(
            FileManager.default.fileExists(atPath: path),
            "\(path) is missing: tools/test makes the pages (or run tools/man-pages \(directory))")
        let result = try await Runner.run(
            ["-l", path], executable: URL(fileURLWithPath: "/usr/bin/man"),
            environment: ["LANG": "C", "LC_ALL": "C", "MANWIDTH": "2000", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(result.status == 0, "man: \(result.standardError)")
        return result.standardOutput
    }

    /// The sections a reader looks for, titled by the product rather than "BSD".
    static func expectSections(_ text: String, seeAlso: [String]) {
        let title = text.prefix { $0 != "\n" }
        #expect(title.contains("OpenCoreLocation") && !title.contains("BSD"), "\(title)")
        for section in ["ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
            #expect(text.contains("\n\(section)\n"), "no \(section)")
        }
        #expect(text.contains("64      A usage error"), "the exit status values")
        for page in seeAlso { #expect(text.contains(page), "SEE ALSO \(page)") }
    }

    @Test("gpslocd's page is in section 8, and every range it documents reads as a range")
    func daemon() async throws {
        let text = try await Self.read("man8/gpslocd.8")
        #expect(text.hasPrefix("GPSLOCD(8)"), "\(text.prefix(80))")
        Self.expectSections(text, seeAlso: ["gpsloc(1)", "gpsd(8)", "gpsd_json(5)"])
        for range in ["0 to 600", "4096 to 16777216", "gpsd://HOST:PORT"] {
            #expect(text.contains(range), "\(range) is lost")
        }
    }

    @Test("gpsloc's page is in section 1, its ranges and key names whole")
    func command() async throws {
        let text = try await Self.read("man1/gpsloc.1")
        #expect(text.hasPrefix("GPSLOC(1)"), "\(text.prefix(80))")
        Self.expectSections(text, seeAlso: ["gpslocd(8)", "gpsd(8)", "gpsd_json(5)"])
        for words in ["Epochs per second, 1 to 50", "NSLocation*UsageDescription", "--recursive"] {
            #expect(text.contains(words), "\(words) is lost")
        }
    }
}
