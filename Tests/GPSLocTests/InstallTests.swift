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
        // What went outside the prefix is said, each path.
        #expect(
            result.standardOutput.contains("and, outside it, for the system's daemon:"),
            "\(result.standardOutput)")
        #expect(result.standardOutput.contains("  \(stage)/etc/opencorelocation/gpslocd.conf\n"))
        #expect(
            result.standardOutput.contains(
                "  \(stage)/etc/opencorelocation/apps.d/org.opencorelocation.recorder.plist\n"))

        let version = try await Runner.run(
            ["--version"], executable: URL(fileURLWithPath: stage + "/usr/bin/gpslocd"))
        #expect(version.status == 0 && version.standardOutput.contains(" (commit "))
        let service = try String(
            contentsOfFile: stage + "/usr/lib/systemd/system/gpslocd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/usr/bin/gpslocd"))
        #expect(
            service.contains("file:///usr/share/doc/opencorelocation/") && !service.contains("/usr/local/"))
        #expect(
            !FileManager.default.fileExists(atPath: stage + "/etc/udev"), "/etc/udev is the administrator's")
        // GeoClue's own package names its activation file for the bus name too: a package ships
        // gpslocd's as an example, not where dpkg would find the two in conflict.
        #expect(!FileManager.default.fileExists(atPath: stage + "/usr/share/dbus-1/system-services"))
        for file in [
            "usr/bin/gpsloc", "usr/lib/systemd/system/gpslocd.socket",
            "usr/lib/systemd/system/gpslocd-gpsd.socket",
            "usr/lib/sysusers.d/opencorelocation.conf",
            "lib/udev/rules.d/60-opencorelocation.rules", "etc/opencorelocation/gpslocd.conf",
            "usr/share/opencorelocation/examples/Info.plist", "usr/share/doc/opencorelocation/LICENSE",
            "usr/share/dbus-1/system.d/org.freedesktop.GeoClue2.gpslocd.conf",
            "usr/share/opencorelocation/examples/org.freedesktop.GeoClue2.service",
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

    @Test("a user's prefix, without root: the programs, completions and documentation, nothing outside it")
    func userPrefix() async throws {
        let home = NSTemporaryDirectory() + "install-home-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        defer { try? FileManager.default.removeItem(atPath: home) }
        let script = Fixtures.packageRoot.appendingPathComponent("tools/install").path
        let arguments = ["--prefix", home + "/.local", "--no-build", "--no-man"]
        // As root, the test drops to nobody, as a user runs it; otherwise it is a user already.
        let result =
            getuid() == 0
            ? try await Runner.run(
                ["--reuid=65534", "--regid=65534", "--clear-groups", "--", script] + arguments,
                executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
                environment: ["BIN": Runner.gpsloc.deletingLastPathComponent().path, "HOME": home])
            : try await Runner.run(
                arguments, executable: URL(fileURLWithPath: script),
                environment: ["BIN": Runner.gpsloc.deletingLastPathComponent().path, "HOME": home])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("left out, as they need root"), "\(result.standardOutput)")
        for file in [
            "bin/gpsloc", "bin/gpslocd", "share/bash-completion/completions/gpsloc",
            "share/doc/opencorelocation/README.md", "share/opencorelocation/examples/Info.plist",
        ] {
            #expect(FileManager.default.fileExists(atPath: home + "/.local/" + file), "\(file) is installed")
        }
        for file in ["lib/systemd", "lib/sysusers.d", "lib/udev", "etc"] {
            #expect(!FileManager.default.fileExists(atPath: home + "/.local/" + file), "\(file) is not")
        }
        // Nothing beside the prefix in the home directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home) == [".local"])
        let version = try await Runner.run(
            ["--version"], executable: URL(fileURLWithPath: home + "/.local/bin/gpsloc"))
        #expect(version.status == 0)
    }
}
