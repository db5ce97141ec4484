// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import TestSupport
import Testing

/// `tools/package-deb`, with the binaries this test run built: the package's control data, and,
/// as root, `dpkg -i` of it, what it installed run, and `dpkg --purge`.
@Suite(
    "tools/package-deb, installed with dpkg", .serialized,
    .enabled(if: getuid() == 0, "needs root for dpkg -i"))
struct PackageDebTests {
    static let dpkg = URL(fileURLWithPath: "/usr/bin/dpkg")
    static let dpkgDeb = URL(fileURLWithPath: "/usr/bin/dpkg-deb")

    @Test("the package installs, what it installed runs, and purging removes it")
    func installAndPurge() async throws {
        let installed = try await Runner.run(["-s", "opencorelocation"], executable: Self.dpkg)
        try #require(
            installed.status != 0,
            "a package named opencorelocation is installed already; remove it (dpkg --purge) to run this test"
        )

        let output = NSTemporaryDirectory() + "deb-\(UUID().uuidString.prefix(8))"
        let script = Fixtures.packageRoot.appendingPathComponent("tools/package-deb")
        let built = try await Runner.run(
            ["--no-build", "--no-man", "--allow-unpackaged-libraries", "--output", output],
            executable: script,
            environment: ["BIN": Runner.gpsloc.deletingLastPathComponent().path])
        try #require(built.status == 0, "\(built.standardError)")
        let deb = String(try #require(built.standardOutput.split(separator: "\n").last))
        #expect(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb))

        let info = try await Runner.run(["--info", deb], executable: Self.dpkgDeb)
        for field in [
            "Package: opencorelocation", "Version: ", "Installed-Size: ", "liblzma5", "libzstd1", "zlib1g",
        ] {
            #expect(info.standardOutput.contains(field), "\(field): \(info.standardOutput)")
        }
        // The configuration is the administrator's: dpkg keeps their changes. The udev rule is the
        // package's, in the distribution's rules directory; /etc/udev is the administrator's.
        let conffiles = try await Runner.run(["--info", deb, "conffiles"], executable: Self.dpkgDeb)
        #expect(conffiles.standardOutput.contains("/etc/opencorelocation/gpslocd.conf"))
        #expect(!conffiles.standardOutput.contains("udev"))
        let contents = try await Runner.run(["--contents", deb], executable: Self.dpkgDeb)
        for path in [
            "./usr/bin/gpsloc", "./usr/bin/gpslocd", "./usr/lib/systemd/system/gpslocd.socket",
            "./usr/lib/systemd/system/gpslocd-gpsd.socket",
            "./etc/opencorelocation/gpslocd.conf", "./usr/share/doc/opencorelocation/copyright",
            "./usr/share/doc/opencorelocation/changelog.gz",
            "./lib/udev/rules.d/60-opencorelocation.rules",
            "./usr/share/dbus-1/system.d/org.freedesktop.GeoClue2.gpslocd.conf",
        ] {
            #expect(contents.standardOutput.contains(path), "\(path) is in the package")
        }
        #expect(!contents.standardOutput.contains("./etc/udev"))
        let unit = try await Runner.run(
            ["--fsys-tarfile", deb], executable: Self.dpkgDeb)
        #expect(
            !unit.standardOutput.contains("file:///usr/local/"), "the units' Documentation= is under /usr")

        // The package's postinst makes the daemon's user and groups (systemd-sysusers); purging
        // leaves them, as Debian does. The test removes those it made, to leave the host as it was.
        let accounts = [("user", "gpslocd"), ("group", "gnss"), ("group", "opencorelocation-admin")]
        let existed = accounts.map { kind, name in
            kind == "user" ? UserDatabase.user(named: name) != nil : UserDatabase.groupID(named: name) != nil
        }
        defer {
            for ((kind, name), was) in zip(accounts, existed) where !was {
                let tool = kind == "user" ? "/usr/sbin/userdel" : "/usr/sbin/groupdel"
                _ = try? Process.run(URL(fileURLWithPath: tool), arguments: [name]).waitUntilExit()
            }
        }
        // Debian's own checker: no error or warning but what this test's build makes (debug
        // binaries that find the toolchain's runtime by RUNPATH, and --no-man); a release package
        // links the runtime in and carries its man pages.
        let lintian = try await Runner.run(
            ["--tag-display-limit", "0", deb], executable: URL(fileURLWithPath: "/usr/bin/lintian"))
        let tags = lintian.standardOutput.split(separator: "\n").filter {
            $0.hasPrefix("E:") || $0.hasPrefix("W:")
        }
        #expect(
            tags.allSatisfy { $0.contains("custom-library-search-path") || $0.contains("no-manual-page") },
            "\(lintian.standardOutput)")
        let install = try await Runner.run(["-i", deb], executable: Self.dpkg)
        #expect(install.status == 0, "dpkg -i: \(install.standardError)")
        defer {
            // Leave the machine as it was, whatever happened above.
            _ = try? Process.run(Self.dpkg, arguments: ["--purge", "opencorelocation"]).waitUntilExit()
        }
        let version = try await Runner.run(["--version"], executable: URL(fileURLWithPath: "/usr/bin/gpsloc"))
        #expect(
            version.status == 0
                && info.standardOutput.contains(
                    "Version: \(version.standardOutput.split(separator: " ").first ?? "")\n")
        )
        let decoded = try await Runner.run(
            ["decode", Fixtures.url("drive-1hz.nmea").path, "--format", "gpx", "-q"],
            executable: URL(fileURLWithPath: "/usr/bin/gpsloc"))
        #expect(decoded.status == 0 && decoded.standardOutput.contains("<trkpt "))
        let daemon = try await Runner.run(["--version"], executable: URL(fileURLWithPath: "/usr/bin/gpslocd"))
        #expect(daemon.status == 0)
        let listed = try await Runner.run(["-L", "opencorelocation"], executable: Self.dpkg)
        #expect(
            listed.standardOutput.contains("/usr/share/man")
                || listed.standardOutput.contains("/usr/bin/gpsloc"))
        #expect(FileManager.default.fileExists(atPath: "/usr/lib/sysusers.d/opencorelocation.conf"))

        let purge = try await Runner.run(["--purge", "opencorelocation"], executable: Self.dpkg)
        #expect(purge.status == 0, "dpkg --purge: \(purge.standardError)")
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/gpsloc"))
        #expect(!FileManager.default.fileExists(atPath: "/etc/opencorelocation/gpslocd.conf"))
        try? FileManager.default.removeItem(atPath: output)
    }
}
