// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// `tools/install` into a staging root, with the binaries this test run built: what lands where,
/// and that what it installed runs.
@Suite("tools/install, staged")
struct InstallTests {
    @Test("binaries, completions, units naming the installed daemon, and the configuration")
    func staged() async throws {
        let stage = NSTemporaryDirectory() + "install-\(UUID().uuidString.prefix(8))"
        let script = Fixtures.packageRoot.appendingPathComponent("tools/install")
        let result = try await Runner.run(
            ["--prefix", "/usr", "--destdir", stage, "--no-build", "--no-man"], executable: script,
            environment: ["BIN": Runner.gpsloc.deletingLastPathComponent().path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("installed under \(stage)/usr"))

        let version = try await Runner.run(
            ["--version"], executable: URL(fileURLWithPath: stage + "/usr/bin/gpslocd"))
        #expect(version.status == 0 && version.standardOutput.split(separator: ".").count == 3)
        let service = try String(
            contentsOfFile: stage + "/usr/lib/systemd/system/gpslocd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/usr/bin/gpslocd"))
        for file in [
            "usr/bin/gpsloc", "usr/lib/systemd/system/gpslocd.socket",
            "usr/lib/sysusers.d/opencorelocation.conf",
            "etc/udev/rules.d/60-opencorelocation.rules", "etc/opencorelocation/gpslocd.conf",
            "usr/share/opencorelocation/examples/Info.plist", "usr/share/doc/opencorelocation/LICENSE",
        ] {
            #expect(FileManager.default.fileExists(atPath: stage + "/" + file), "\(file) is installed")
        }
        let bash = try String(
            contentsOfFile: stage + "/usr/share/bash-completion/completions/gpsloc", encoding: .utf8)
        #expect(bash.contains("decode") && bash.contains("--format"))
        #expect(FileManager.default.fileExists(atPath: stage + "/usr/share/zsh/site-functions/_gpslocd"))

        // An administrator's configuration survives a second installation.
        try Data("{\"sources\": [\"serial:/dev/gnss0\"]}\n".utf8).write(
            to: URL(fileURLWithPath: stage + "/etc/opencorelocation/gpslocd.conf"))
        let again = try await Runner.run(
            ["--prefix", "/usr", "--destdir", stage, "--no-build", "--no-man"], executable: script,
            environment: ["BIN": Runner.gpsloc.deletingLastPathComponent().path])
        #expect(again.status == 0)
        #expect(
            try String(contentsOfFile: stage + "/etc/opencorelocation/gpslocd.conf", encoding: .utf8)
                .contains("/dev/gnss0"))

        let wrong = try await Runner.run(["--prefix", "relative"], executable: script)
        #expect(wrong.status == 64 && wrong.standardError.contains("--prefix must be an absolute path"))
        try? FileManager.default.removeItem(atPath: stage)
    }
}
