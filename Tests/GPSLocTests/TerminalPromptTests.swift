// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// The permission prompt on a real terminal: `gpsloc watch` runs as the session leader of a
/// pseudo-terminal (`setsid --ctty`), so its `/dev/tty` is the terminal the test types into.
@Suite("The terminal prompt, the built binary")
struct TerminalPromptTests {
    @Test(
        "The user answers on the terminal and locations flow; escape sequences in the question are shown, not obeyed"
    )
    func answerOnTheTerminal() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ocl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let manifest = directory.appendingPathComponent("Info.plist")
        let reason = "Shows \u{1B}[2J\u{1B}[31mwhere you are\u{1B}[0m."
        try PropertyListSerialization.data(
            fromPropertyList: ["NSLocationWhenInUseUsageDescription": reason], format: .xml, options: 0
        ).write(to: manifest)
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let process = try terminal.startSession([
            Runner.gpsloc.path, "watch", "--source",
            "file:\(Fixtures.url("drive-1hz.nmea").path)?speed=1", "--app", "com.example.prompted", "--store",
            directory.path, "--manifest", manifest.path, "--prompt", "terminal",
        ])
        let question = await terminal.screen { $0.contains("Don't Allow: ") }
        #expect(question.contains("Allow \"com.example.prompted\" to use your location?"))
        #expect(question.contains(#"Shows \u{1B}[2J\u{1B}[31mwhere you are\u{1B}[0m."#))
        #expect(!question.contains("\u{1B}"))
        terminal.write(Array("w\n".utf8))
        let updates = await terminal.screen { $0.contains("simulated") }
        await terminal.endSession(of: process)
        #expect(updates.contains("±2.5 m"))
        let stored = try String(
            contentsOf: directory.appendingPathComponent("authorization.json"), encoding: .utf8)
        #expect(stored.contains("com.example.prompted"))
    }
}
