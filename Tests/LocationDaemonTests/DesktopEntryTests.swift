// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationDaemon
import Testing

/// Desktop entries read as the Desktop Entry Specification writes them: the program `Exec=` runs,
/// quoted and escaped, `X-Geoclue-Reason` and its localised forms, and the entries that prove
/// nothing.
@Suite("gpslocd: desktop entries as the specification writes them")
struct DesktopEntryTests {
    func entry(_ text: String) throws -> DesktopEntry? {
        try DesktopEntry.parse(
            text, id: "org.example.App", path: "/usr/share/applications/org.example.App.desktop")
    }

    @Test(
        "Debian's geoclue-where-am-i.desktop names where-am-i, runs in a terminal and gives its reason",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/share/applications/geoclue-where-am-i.desktop"),
            "geoclue-2-demo is not installed (tools/test installs it)"))
    func debiansEntry() throws {
        let path = "/usr/share/applications/geoclue-where-am-i.desktop"
        let parsed = try #require(
            try DesktopEntry.parse(
                String(contentsOfFile: path, encoding: .utf8), id: "geoclue-where-am-i", path: path))
        #expect(parsed.program == "/usr/libexec/geoclue-2.0/demos/where-am-i")
        #expect(parsed.terminal)
        #expect(parsed.usageDescription == "Allows your current location to be shown on terminal.")
    }

    @Test("Exec='s program: quoted, escaped, followed by arguments and field codes")
    func execQuoting() throws {
        let cases: [(String, String)] = [
            (#"Exec=maps %U"#, "maps"),
            (#"Exec=/opt/Maps/bin/maps --new-window %F"#, "/opt/Maps/bin/maps"),
            (#"Exec="/opt/My Maps/maps" %u"#, "/opt/My Maps/maps"),
            (#"Exec="/opt/a \"quoted\" name/maps""#, #"/opt/a "quoted" name/maps"#),
            // A string value's own escape first (\\ for \), then Exec's quoting (\$ for $).
            (#"Exec="/opt/cost\\$5/maps""#, "/opt/cost$5/maps"),
            (#"Exec = \s/usr/bin/maps"#, "/usr/bin/maps"),
            ("Exec=\t/usr/bin/maps\t-x", "/usr/bin/maps"),
        ]
        for (line, program) in cases {
            let parsed = try entry("[Desktop Entry]\nType=Application\nName=Maps\n\(line)\n")
            #expect(parsed?.program == program, "\(line)")
        }
    }

    @Test("any program path, quoted as the specification says, reads back as itself")
    func quotingRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"abcXYZ019 -_./"`$\()&;'"#)
        for _ in 0..<500 {
            let length = Int.random(in: 1...24, using: &generator)
            let program =
                "/"
                + String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
                .replacingOccurrences(of: "%", with: "")
            // Exec's quoting, then the string escape of every backslash.
            var quoted = "\""
            for character in program {
                if "\"`$\\".contains(character) { quoted.append("\\") }
                quoted.append(character)
            }
            quoted += "\""
            let line = "Exec=" + quoted.replacingOccurrences(of: "\\", with: "\\\\") + " --flag %U"
            let parsed = try entry("[Desktop Entry]\nType=Application\n\(line)\n")
            #expect(parsed?.program == program, "\(line)")
        }
    }

    @Test("X-Geoclue-Reason: the unlocalised one, else English, else the first; none gives none")
    func reasons() throws {
        let both = try entry(
            "[Desktop Entry]\nType=Application\nExec=maps\nX-Geoclue-Reason[de]=Um zu zeigen, wo Sie sind\n"
                + "X-Geoclue-Reason=To show where you are\n")
        #expect(both?.usageDescription == "To show where you are")
        #expect(both?.localisedReasons["de"] == "Um zu zeigen, wo Sie sind")
        let localised = try entry(
            "[Desktop Entry]\nType=Application\nExec=maps\nX-Geoclue-Reason[fr]=Pour montrer\n"
                + "X-Geoclue-Reason[en_GB]=To show the colour of where you are\n")
        #expect(localised?.usageDescription == "To show the colour of where you are")
        let none = try entry("[Desktop Entry]\nType=Application\nExec=maps\nX-Geoclue-Reason=\n")
        #expect(none != nil && none?.usageDescription == nil)
        // Only the [Desktop Entry] group: an action's keys are not the app's.
        let action = try entry(
            "[Desktop Entry]\nType=Application\nExec=maps\n\n[Desktop Action new]\nExec=other\n"
                + "X-Geoclue-Reason=Not the app's\n")
        #expect(action?.program == "maps" && action?.usageDescription == nil)
    }

    @Test("a deleted entry or a link is no app; an entry with no program, or a broken one, says why")
    func unusable() throws {
        #expect(try entry("[Desktop Entry]\nType=Application\nExec=maps\nHidden=true\n") == nil)
        #expect(try entry("[Desktop Entry]\nType=Link\nURL=https://example.org\n") == nil)
        let failures = [
            ("[Desktop Entry]\nType=Application\nName=Maps\n", "no Exec= line"),
            ("[Desktop Entry]\nType=Application\nExec=\"/opt/maps\n", "never closed"),
            ("[Desktop Entry]\nType=Application\nExec=%U\n", "field code"),
            ("Type=Application\n[Desktop Entry]\nExec=maps\n", "before [Desktop Entry]"),
            ("[Desktop Entry\nType=Application\n", "not a group header"),
        ]
        for (text, reason) in failures {
            #expect {
                try entry(text)
            } throws: { error in
                "\(error)".contains(reason) && "\(error)".contains("org.example.App.desktop")
            }
        }
    }
}
