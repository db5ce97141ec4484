// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationDaemon
import Testing

/// What the daemon takes a sandbox's word from: `.flatpak-info` as Flatpak writes it, AppArmor
/// labels as the kernel gives them, and who could replace an executable.
@Suite("Sandboxes and executables as the daemon reads them")
struct SandboxFactsTests {
    @Test("a .flatpak-info names the app and its instance; a runtime, a bad id or no instance is refused")
    func flatpakInfo() throws {
        let real = """
            [Application]
            name=org.gnome.Maps
            runtime=runtime/org.gnome.Platform/x86_64/47

            [Instance]
            instance-id=1804289383
            app-path=/var/lib/flatpak/app/org.gnome.Maps/x86_64/stable/abc/files
            flatpak-version=1.14.10

            [Context]
            shared=network;ipc;
            """
        let info = try #require(try? FlatpakSandbox.info(keyFile: real).get())
        #expect(info.app == "org.gnome.Maps" && info.instance == "1804289383")
        let runtime = "[Runtime]\nname=org.gnome.Platform\n[Instance]\ninstance-id=7\n"
        #expect(throws: FlatpakSandbox.Refusal.self) { try FlatpakSandbox.info(keyFile: runtime).get() }
        let noInstance = "[Application]\nname=org.gnome.Maps\n"
        #expect(throws: FlatpakSandbox.Refusal.self) { try FlatpakSandbox.info(keyFile: noInstance).get() }
        let escape = "[Application]\nname=org.gnome.Maps\u{1B}[2J\n[Instance]\ninstance-id=7\n"
        #expect(throws: FlatpakSandbox.Refusal.self) { try FlatpakSandbox.info(keyFile: escape).get() }
        #expect(throws: FlatpakSandbox.Refusal.self) {
            try FlatpakSandbox.info(keyFile: "\u{0}\u{1}binary").get()
        }
        // The first value of a key counts; a second one later in the file does not replace it.
        let twice = "[Application]\nname=org.gnome.Maps\nname=com.bank.App\n[Instance]\ninstance-id=7\n"
        #expect((try? FlatpakSandbox.info(keyFile: twice).get())?.app == "org.gnome.Maps")
    }

    @Test("the root's filesystem comes from mountinfo: the last mount at / counts")
    func rootFilesystem() {
        let bwrap = """
            1019 1018 0:91 / / rw,nosuid,nodev,relatime - tmpfs tmpfs rw,size=1024k,uid=1000,gid=1000
            1020 1019 259:2 /usr /usr ro,nosuid,nodev,relatime master:1 - ext4 /dev/nvme0n1p2 rw
            1021 1019 0:5 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
            """
        #expect(ProcessFacts.rootFilesystemType(mountinfo: bwrap) == "tmpfs")
        let host = "29 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
        #expect(ProcessFacts.rootFilesystemType(mountinfo: host) == "ext4")
        let fuse = host + "2001 29 0:120 / / rw,nosuid,nodev,relatime - fuse.evil evil rw,user_id=1000\n"
        #expect(ProcessFacts.rootFilesystemType(mountinfo: fuse) == "fuse.evil")
        #expect(ProcessFacts.rootFilesystemType(mountinfo: "garbage\n") == nil)
    }

    @Test("no_new_privs is read from the status file")
    func noNewPrivileges() {
        #expect(FlatpakSandbox.hasNoNewPrivileges(statusFile: "Name:\tsh\nNoNewPrivs:\t1\nSeccomp:\t2\n"))
        #expect(!FlatpakSandbox.hasNoNewPrivileges(statusFile: "Name:\tsh\nNoNewPrivs:\t0\n"))
        #expect(!FlatpakSandbox.hasNoNewPrivileges(statusFile: "Name:\tNoNewPrivs: 1\n"))
    }

    @Test(
        "Flatpak app ids follow Flatpak's rule",
        arguments: [
            ("org.gnome.Maps", true), ("org.example.My_App", true), ("com.example.app-name", true),
            ("org.gnome", false), ("org.gnome.", false), ("org..Maps", false), ("org.2gnome.Maps", false),
            ("org.gno-me.Maps", false), ("org.gnome.Maps/../x", false), ("", false),
            (String(repeating: "a.", count: 130) + "b", false),
        ])
    func appIDs(_ id: String, _ valid: Bool) {
        #expect(FlatpakSandbox.isValidAppID(id) == valid)
    }

    @Test(
        "a snap is known by its AppArmor label in enforce mode only",
        arguments: [
            ("snap.firefox.firefox (enforce)\n", "firefox"),
            ("snap.gpsd-tracker.daemon (enforce)", "gpsd-tracker"),
            ("snap.foo_dev.app (enforce)\n", "foo_dev"),
            ("snap.foo.hook.configure (enforce)\n", "foo"),
            ("snap.firefox.firefox//&:ns:unconfined (enforce)", "firefox"),
            ("snap.firefox.firefox (complain)\n", nil),
            ("unconfined\n", nil),
            ("/usr/bin/man (enforce)\n", nil),
            ("snap.Firefox.firefox (enforce)", nil),
            ("snap.fire--fox.x (enforce)", nil),
            ("snap.firefox (enforce)", nil),
            ("system_u:system_r:unconfined_t:s0", nil),
        ] as [(String, String?)])
    func snapLabels(_ label: String, _ snap: String?) {
        #expect(SnapConfinement.snap(label: label) == snap)
    }

    @Test(
        "an executable its user could replace proves nothing: owner, group, everyone, sticky directories",
        .enabled(if: getuid() == 0, "gives files to other users: needs root"))
    func replaceable() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ocl-exec-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let user: UInt32 = 54_321
        let group: UInt32 = 54_322
        func make(
            _ path: String, mode: mode_t, owner: UInt32 = 0, group owningGroup: UInt32 = 0, directory: Bool
        ) {
            if directory {
                mkdir(path, mode)
            } else {
                _ = FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n".utf8))
            }
            chmod(path, mode)
            chown(path, owner, owningGroup)
        }
        make(root, mode: 0o755, directory: true)
        let safe = root + "/safe"
        make(safe, mode: 0o755, directory: true)
        make(safe + "/tool", mode: 0o755, directory: false)
        #expect(ExecutableTrust.replaceability(of: safe + "/tool", uid: user, groups: [user]) == nil)
        #expect(ExecutableTrust.replaceability(of: "/usr/bin/socat", uid: user, groups: [user]) == nil)

        make(safe + "/owned", mode: 0o555, owner: user, directory: false)
        #expect(ExecutableTrust.replaceability(of: safe + "/owned", uid: user, groups: []) != nil)

        let shared = root + "/shared"
        make(shared, mode: 0o775, group: group, directory: true)
        make(shared + "/tool", mode: 0o755, directory: false)
        let reason = ExecutableTrust.replaceability(of: shared + "/tool", uid: user, groups: [group])
        #expect(reason?.contains("group \(group)") == true, "\(reason ?? "nil")")
        #expect(ExecutableTrust.replaceability(of: shared + "/tool", uid: user, groups: []) == nil)

        let open = root + "/open"
        make(open, mode: 0o777, directory: true)
        make(open + "/tool", mode: 0o755, directory: false)
        #expect(
            ExecutableTrust.replaceability(of: open + "/tool", uid: user, groups: [])?.contains("everyone")
                == true)

        // Sticky, like /tmp: others' entries cannot be replaced, one's own can.
        let sticky = root + "/sticky"
        make(sticky, mode: 0o1777, directory: true)
        make(sticky + "/rootsdir", mode: 0o755, directory: true)
        make(sticky + "/rootsdir/tool", mode: 0o755, directory: false)
        #expect(ExecutableTrust.replaceability(of: sticky + "/rootsdir/tool", uid: user, groups: []) == nil)
        make(sticky + "/mine", mode: 0o755, owner: user, directory: true)
        make(sticky + "/mine/tool", mode: 0o755, directory: false)
        #expect(ExecutableTrust.replaceability(of: sticky + "/mine/tool", uid: user, groups: []) != nil)

        // Root may replace anything, and is trusted whatever it runs.
        #expect(ExecutableTrust.replaceability(of: open + "/tool", uid: 0, groups: []) == nil)
    }

    @Test("the file at a path is the one a process runs only when device and inode agree")
    func running() {
        let me = getpid()
        #expect(ExecutableTrust.isRunning(ProcessFacts.executable(pid: me) ?? "", pid: me))
        #expect(!ExecutableTrust.isRunning("/bin/sh", pid: me))
    }
}
