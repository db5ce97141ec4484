// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationDaemon
import LocationWire
import TestSupport
import Testing

/// Identities a client cannot choose, tried as an attacker would: an unprivileged uid with a
/// cgroup subtree delegated to it names its own units and scopes, builds namespaces of its own,
/// and runs programs from directories it can write. Each must come out as the attacker's own
/// unregistered program, and a sandbox must gain nothing by acting as its user's agent.
@Suite(
    "gpslocd: identities no client can choose", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users and cgroups"))
struct IdentityAttackTests {
    static var trackerKeys: [String: Any] {
        [
            "CFBundleIdentifier": "com.example.tracker", "OpenCoreLocationUnits": ["tracker.service"],
            "NSLocationAlwaysAndWhenInUseUsageDescription": "To record the vehicle's trips",
            "NSLocationWhenInUseUsageDescription": "To show the vehicle on the map",
        ]
    }
    static var mapsKeys: [String: Any] {
        [
            "CFBundleIdentifier": "org.example.Maps", "OpenCoreLocationFlatpaks": ["org.example.Maps"],
            "NSLocationWhenInUseUsageDescription": "To show where you are",
            "NSLocationAlwaysAndWhenInUseUsageDescription": "To follow you",
            "NSLocationTemporaryUsageDescriptionDictionary": ["Navigation": "To guide you turn by turn"],
        ]
    }

    @Test("a unit named in the attacker's own manager is a user unit, never the registered system service")
    func userUnit() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        let cgroup = try DelegatedCgroup(for: mallory)
        defer { cgroup.remove() }
        let daemon = try DaemonHarness(sources: [])
        try daemon.register("tracker", Self.trackerKeys)
        try daemon.register(
            "mine",
            [
                "CFBundleIdentifier": "com.example.mine", "OpenCoreLocationUserUnits": ["mine.service"],
                "NSLocationWhenInUseUsageDescription": "To show where you are",
            ])
        try await daemon.start()

        let attacker = try cgroup.client(of: daemon, in: "app.slice/tracker.service")
        await attacker.hello()
        let identity = try #require(attacker.identity, "\(attacker.output)\n\(attacker.process.errors)")
        #expect(identity.app == "user-unit:tracker.service" && !identity.registered)
        #expect(identity.unit == nil && identity.userUnit == "tracker.service")
        #expect(identity.proof?.contains("a name its user chose") == true)
        #expect(
            await daemon.logs("com.example.tracker's registration covers the system unit only"),
            "\(daemon.log)")
        await attacker.stop()

        // A registration that names a user unit explicitly covers it, and says what it proves.
        let own = try cgroup.client(of: daemon, in: "app.slice/mine.service")
        await own.hello()
        #expect(own.identity?.app == "com.example.mine" && own.identity?.registered == true)
        #expect(own.identity?.proof?.contains("user unit mine.service") == true)
        await own.stop()
        await daemon.stop()
    }

    @Test(
        "a system unit started by systemd is the registered service",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/run/systemd/system"),
            "systemd does not run this machine"))
    func systemUnit() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let daemon = try DaemonHarness(sources: [])
        var keys = Self.trackerKeys
        keys["OpenCoreLocationUnits"] = ["ocl-identity-tracker.service"]
        try daemon.register("tracker", keys)
        try await daemon.start()
        let unit = try WireClient(
            account: nil,
            command: [
                "/usr/bin/systemd-run", "--quiet", "--pipe", "--collect", "--unit=ocl-identity-tracker",
                "--uid=\(alice.uid)", socatPath.path, "-", "UNIX-CONNECT:\(daemon.socket)",
            ])
        await unit.hello()
        #expect(
            unit.identity?.app == "com.example.tracker" && unit.identity?.registered == true, "\(unit.output)"
        )
        #expect(unit.identity?.unit == "ocl-identity-tracker.service")
        await unit.stop()
        await daemon.stop()
    }

    @Test("a scope named for a Flatpak app, without its sandbox, is the attacker's own program")
    func flatpakScopeAlone() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        let cgroup = try DelegatedCgroup(for: mallory)
        defer { cgroup.remove() }
        let daemon = try DaemonHarness(sources: [])
        try daemon.register("maps", Self.mapsKeys)
        try await daemon.start()

        let named = try cgroup.client(of: daemon, in: "app.slice/app-flatpak-org.example.Maps-7.scope")
        await named.hello()
        let identity = try #require(named.identity, "\(named.output)\n\(named.process.errors)")
        #expect(identity.app == socatPath.path && identity.flatpak == nil && !identity.registered)
        #expect(identity.sandboxed == true, "a scope named for a Flatpak never speaks for its user")
        #expect(await daemon.logs("is not taken for that app"), "\(daemon.log)")
        await named.stop()

        // The scope numbered with the attacker's own shell, and a .flatpak-info at the root of a
        // user and mount namespace of its own: still no sandbox between the scope's process and it.
        let fake = try cgroup.client(
            of: daemon, in: "app.slice/app-flatpak-org.example.Maps-$$.scope",
            then: FakeRoot.script(
                socket: daemon.socket, infoFile: try flatpakInfoFile(app: "org.example.Maps", in: daemon.root)
            ))
        await fake.hello()
        let faked = try #require(fake.identity, "\(fake.output)\n\(fake.process.errors)")
        #expect(faked.flatpak == nil && faked.app != "org.example.Maps" && !faked.registered, "\(faked)")
        #expect(faked.sandboxed == true)
        await fake.stop()

        // A shell in the scope that stays outside, and below it a user, mount and pid namespace
        // of the attacker's own: the shape of Flatpak's sandbox, but not one Flatpak made.
        let forked = try cgroup.client(
            of: daemon, in: "app.slice/app-flatpak-org.example.Maps-$$.scope",
            then: FakeRoot.script(
                socket: daemon.socket,
                infoFile: try flatpakInfoFile(app: "org.example.Maps", in: daemon.root),
                unshare: "-Urmpf", exec: false))
        await forked.hello()
        let forkedIdentity = try #require(forked.identity, "\(forked.output)\n\(forked.process.errors)")
        #expect(forkedIdentity.flatpak == nil && !forkedIdentity.registered, "\(forkedIdentity)")
        #expect(await daemon.logs("without no_new_privs"), "\(daemon.log)")
        await forked.stop()
        await daemon.stop()
    }

    @Test(
        "an executable its user can replace, or a file bound over a registered path, matches no registration")
    func replaceableExecutables() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        let base = NSTemporaryDirectory() + "ocl-exec-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(
            atPath: base + "/system", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        try FileManager.default.createDirectory(
            atPath: base + "/mallory", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        chmod(base, 0o755)
        chown(base + "/mallory", mallory.uid, mallory.gid)
        for directory in ["system", "mallory"] {
            try FileManager.default.copyItem(atPath: socatPath.path, toPath: "\(base)/\(directory)/tracker")
        }
        chown(base + "/mallory/tracker", mallory.uid, mallory.gid)
        let daemon = try DaemonHarness(sources: [])
        var keys = Self.trackerKeys
        keys["OpenCoreLocationExecutables"] = [base + "/system/tracker", base + "/mallory/tracker"]
        try daemon.register("tracker", keys)
        try await daemon.start()

        let installed = try WireClient(
            account: mallory,
            command: [base + "/system/tracker", "-", "UNIX-CONNECT:\(daemon.socket)"])
        await installed.hello()
        #expect(installed.identity?.app == "com.example.tracker" && installed.identity?.registered == true)
        #expect(installed.identity?.proof?.contains("which its user cannot replace") == true)
        await installed.stop()

        let writable = try WireClient(
            account: mallory,
            command: [base + "/mallory/tracker", "-", "UNIX-CONNECT:\(daemon.socket)"])
        await writable.hello()
        #expect(writable.identity?.app == base + "/mallory/tracker" && writable.identity?.registered == false)
        #expect(await daemon.logs("could have put any program there"), "\(daemon.log)")
        await writable.stop()

        // Her own file bound over the installed path, in a mount namespace of her own.
        let script = """
            mount --bind '\(base)/mallory/tracker' '\(base)/system/tracker' && \
            exec '\(base)/system/tracker' - 'UNIX-CONNECT:\(daemon.socket)'
            """
        let bound = try WireClient(
            account: mallory,
            command: ["/usr/bin/unshare", "-Urm", "/bin/sh", "-c", script])
        await bound.hello()
        let identity = try #require(bound.identity, "\(bound.output)\n\(bound.process.errors)")
        #expect(!identity.registered && identity.app != "com.example.tracker", "\(identity)")
        #expect(identity.sandboxed == true)
        await bound.stop()
        await daemon.stop()
    }

    @Test("a snap is known by the AppArmor label the kernel set, which a process cannot write itself")
    func snapLabel() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        let daemon = try DaemonHarness(sources: [])
        try await daemon.start()
        // Writing a label to one's own attributes is refused by the kernel, with or without AppArmor.
        let script = """
            printf 'snap.maps.maps (enforce)' > /proc/self/attr/current 2>/dev/null && echo WROTE >&2; \
            exec \(socatPath.path) - 'UNIX-CONNECT:\(daemon.socket)'
            """
        let client = try WireClient(
            account: mallory, command: ["/bin/sh", "-c", script])
        await client.hello()
        #expect(!client.process.errors.contains("WROTE"))
        #expect(client.identity?.snap == nil && client.identity?.app == socatPath.path, "\(client.output)")
        await client.stop()
        await daemon.stop()
        if !SnapConfinement.isAppArmorEnabled {
            print(
                "AppArmor is not enabled here: a snap's label is never read; the label parser is tested on text"
            )
        }
    }

    @Test(
        "a process confined by snapd's label is that snap, registered by name",
        .enabled(
            if: SnapConfinement.isAppArmorEnabled
                && FileManager.default.isExecutableFile(atPath: "/sbin/apparmor_parser")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/aa-exec"),
            "AppArmor is not the kernel's security module here (or apparmor and apparmor-utils are not installed)"
        ))
    func snapConfined() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        // A profile under a snap's name, loaded by root as snapd loads its profiles.
        let profile = """
            profile snap.ocltest.tracker flags=(attach_disconnected) {
              capability, network, unix, file, signal, ptrace, mount, umount,
            }
            """
        let parser = URL(fileURLWithPath: "/sbin/apparmor_parser")
        let load = try await Runner.run(["-r"], input: Data(profile.utf8), executable: parser)
        try #require(load.status == 0, "apparmor_parser: \(load.standardError)")
        let daemon = try DaemonHarness(sources: [])
        try daemon.register(
            "tracker",
            [
                "CFBundleIdentifier": "com.example.tracker", "OpenCoreLocationSnaps": ["ocltest"],
                "NSLocationWhenInUseUsageDescription": "To show the vehicle on the map",
            ])
        try await daemon.start()
        let confined = try WireClient(
            account: nil,
            command: ["/usr/bin/aa-exec", "-p", "snap.ocltest.tracker", "--", setprivPath.path]
                + mallory.setpriv() + [socatPath.path, "-", "UNIX-CONNECT:\(daemon.socket)"])
        await confined.hello()
        let identity = try #require(confined.identity, "\(confined.output)\n\(confined.process.errors)")
        #expect(identity.snap == "ocltest" && identity.app == "com.example.tracker" && identity.registered)
        #expect(identity.sandboxed == true && identity.proof == "snap ocltest, by its AppArmor label")
        await confined.stop()
        await daemon.stop()
        _ = try await Runner.run(["-R"], input: Data(profile.utf8), executable: parser)
    }

    @Test(
        "a sandboxed app cannot register as its user's agent, answer its own prompts, nor be in use by a terminal of its own"
    )
    func sandboxedAgent() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        let cgroup = try DelegatedCgroup(for: mallory)
        defer { cgroup.remove() }
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try daemon.register("maps", Self.mapsKeys)
        try await daemon.start()

        // An administrator grants Mallory's Maps when-in-use, approximate.
        let admin = try daemon.client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":1,"uid":\#(mallory.uid),"app":"org.example.Maps","level":"whenInUse","approximate":true}"#
        )
        #expect(await admin.wait { $0.contains(.ok(id: 1)) }, "\(admin.output)")

        // The app, in its sandbox, opens a terminal of its own and runs in its foreground.
        let inner = "stty raw -echo; echo ready; exec \(socatPath.path) - UNIX-CONNECT:\(daemon.socket)"
        let app = try cgroup.client(
            of: daemon, in: "app.slice/app-flatpak-org.example.Maps-$$.scope",
            then: Sandbox.bwrap(
                socketDirectory: (daemon.socket as NSString).deletingLastPathComponent,
                infoFile: try flatpakInfoFile(app: "org.example.Maps", in: daemon.root),
                command: ["/usr/bin/script", "-qfec", inner, "/dev/null"]))
        // A sandbox that never started (bubblewrap or socat missing) ends the test here, not after
        // every wait below has run out.
        try #require(
            await app.process.waitForOutput(within: 20) { $0.contains("ready") }, "\(app.process.errors)")
        await app.hello()
        let identity = try #require(app.identity, "\(app.output)\n\(app.process.errors)\n\(daemon.log)")
        #expect(identity.flatpak == "org.example.Maps" && identity.app == "org.example.Maps", "\(identity)")
        #expect(identity.registered && identity.sandboxed == true)
        #expect(identity.proof == "Flatpak sandbox of org.example.Maps")

        app.send(#"{"op":"agent.register","id":2}"#)
        app.send(#"{"op":"auth.show","id":3}"#)
        app.send(#"{"op":"session.open","id":4,"session":1,"authorization":"whenInUse"}"#)
        app.send(#"{"op":"authorization.request","id":5,"level":"always"}"#)
        app.send(#"{"op":"accuracy.request","id":6,"request":1,"purposeKey":"Navigation"}"#)
        app.send(#"{"op":"updates.subscribe","id":9,"subscription":1}"#)
        func refused(_ id: Int) -> ([WireEvent]) -> Bool {
            { events in
                events.contains { if case .error(id, let m) = $0 { m.contains("sandbox") } else { false } }
            }
        }
        for id in [2, 3] { #expect(await app.wait(refused(id)), "request \(id): \(app.output)") }
        // Whatever question reaches it, it answers as the attacker would; and it tries blind.
        _ = await app.wait(within: 2) { $0.contains { if case .prompt = $0 { true } else { false } } }
        let prompts = app.events.compactMap {
            if case .prompt(let number, let prompt) = $0 { (number, prompt) } else { nil }
        }
        #expect(prompts.isEmpty, "no question reaches a sandbox: \(app.output)")
        for (number, prompt) in prompts {
            let answer = prompt.kind == "temporaryFullAccuracy" ? "allowFullAccuracy" : "allowAlways"
            app.send(#"{"op":"agent.answer","prompt":\#(number),"answer":"\#(answer)"}"#)
        }
        app.send(#"{"op":"agent.answer","id":7,"prompt":1,"answer":"allowAlways"}"#)
        app.send(#"{"op":"agent.answer","id":8,"prompt":2,"answer":"allowFullAccuracy"}"#)
        for id in [7, 8] { #expect(await app.wait(refused(id)), "request \(id): \(app.output)") }
        // A terminal session begun inside the sandbox does not make it in use: nothing arrives.
        #expect(await app.wait { events in events.contains { if case .update = $0 { true } else { false } } })
        try await Task.sleep(for: .seconds(3))
        #expect(receiver.epochsSent > 20)
        #expect(app.locations.isEmpty, "\(app.output)")
        #expect(app.output.contains("insufficientlyInUse"), "\(app.output)")

        // Her decisions are as the administrator left them: when in use, approximate, asked nothing.
        admin.send(#"{"op":"auth.show","id":10,"uid":\#(mallory.uid)}"#)
        #expect(
            await admin.wait { $0.contains { if case .decisions(10, _) = $0 { true } else { false } } },
            "\(admin.output)")
        let decisions = admin.events.compactMap { if case .decisions(10, let d) = $0 { d } else { nil } }
            .first
        let maps = try #require(decisions?.decisions["org.example.Maps"], "\(admin.output)")
        #expect(maps.contains("when in use") && maps.contains("approximate"), "\(maps)")
        #expect(!maps.contains("always"), "\(maps)")
        await app.stop()
        await admin.stop()
        await daemon.stop()
    }
}

/// A cgroup subtree delegated to a user, as systemd delegates `user@UID.service` to its user's
/// manager: root makes it and gives it to the user; below it the user names what it likes. On the
/// unified hierarchy where the machine has one, else on the systemd one (v1's `name=systemd`).
struct DelegatedCgroup {
    let account: Account
    let manager: String

    init(for account: Account) throws {
        self.account = account
        let unified = FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers")
        let hierarchy = unified ? "/sys/fs/cgroup" : "/sys/fs/cgroup/systemd"
        manager = "\(hierarchy)/user.slice/user-\(account.uid).slice/user@\(account.uid).service"
        try FileManager.default.createDirectory(atPath: manager, withIntermediateDirectories: true)
        for file in ["", "/cgroup.procs", "/tasks", "/cgroup.threads", "/cgroup.subtree_control"] {
            chown(manager + file, account.uid, account.gid)
        }
    }

    /// A client that root places in the delegated subtree, that then drops to the user, moves
    /// itself into `child` (made by the user) and connects: with socat, or through `then`, a
    /// shell command that ends by connecting to the socket. `$$` in `child` is the shell's pid.
    func client(of daemon: DaemonHarness, in child: String, then: String? = nil) throws -> WireClient {
        let connect = then ?? "exec \(socatPath.path) - 'UNIX-CONNECT:\(daemon.socket)'"
        let attack = """
            target="\(manager)/\(child)"; mkdir -p "$target" && echo $$ > "$target/cgroup.procs" && \(connect)
            """
        let placed = """
            echo $$ > '\(manager)/cgroup.procs' && exec \(setprivPath.path) \(account.setpriv().joined(separator: " ")) \
            /bin/sh -c '\(attack.replacingOccurrences(of: "'", with: "'\\''"))'
            """
        return try WireClient(account: nil, command: ["/bin/sh", "-c", placed])
    }

    /// Removes what the test and its user made, deepest first, once their processes ended.
    func remove() {
        var directories: [String] = []
        if let walker = FileManager.default.enumerator(atPath: manager) {
            while let name = walker.nextObject() as? String {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: manager + "/" + name, isDirectory: &isDirectory),
                    isDirectory.boolValue
                {
                    directories.append(manager + "/" + name)
                }
            }
        }
        for directory in directories.sorted(by: { $0.count > $1.count }) + [manager] { rmdir(directory) }
    }
}

/// A `.flatpak-info` as Flatpak writes one, in a file any user may read, in `directory` (a
/// daemon's, removed with it).
func flatpakInfoFile(app: String, in directory: String) throws -> String {
    let path = directory + "/flatpak-info-\(UUID().uuidString.prefix(8))"
    let text =
        "[Application]\nname=\(app)\nruntime=runtime/org.example.Platform/x86_64/1\n\n[Instance]\ninstance-id=4242\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    chmod(path, 0o644)
    return path
}

/// A root directory of the attacker's own, made inside `unshare -Urm`: a tmpfs with the host's
/// directories bound in and a `.flatpak-info` it copied there, entered with `chroot`. The tmpfs
/// is mounted on `/mnt` inside the namespace, where it leaves nothing behind on the host (a
/// directory of its own would stay in `/tmp`, owned by the test's user).
enum FakeRoot {
    /// With `exec: false` the shell stays as the namespaces' parent, as bubblewrap's does.
    static func script(socket: String, infoFile: String, unshare: String = "-Urm", exec: Bool = true)
        -> String
    {
        let inner = """
            root=/mnt && mount -t tmpfs none "$root" && \
            for d in usr etc proc dev run tmp; do mkdir "$root/$d" && mount --rbind "/$d" "$root/$d"; done && \
            for l in bin lib lib64 sbin; do cp -P "/$l" "$root/$l"; done && \
            cp '\(infoFile)' "$root/.flatpak-info" && \
            exec chroot "$root" \(socatPath.path) - 'UNIX-CONNECT:\(socket)'
            """
        let quoted = inner.replacingOccurrences(of: "'", with: "'\\''")
        let command = "/usr/bin/unshare \(unshare) /bin/sh -c '\(quoted)'"
        // Without `exec`, the shell would still run its last command in its own process (dash
        // does): a command after it keeps the shell as the namespaces' parent.
        return exec ? "exec " + command : command + "; exit $?"
    }
}

/// A sandbox as Flatpak builds one, with bubblewrap: a user, mount and pid namespace of its own,
/// a root of its own with the host's `/usr` and `/etc` read-only, and `/.flatpak-info`.
enum Sandbox {
    static func bwrap(socketDirectory: String, infoFile: String, command: [String]) -> String {
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return """
            exec /usr/bin/bwrap --unshare-user --unshare-pid --die-with-parent \
            --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
            --symlink usr/sbin /sbin --ro-bind /etc /etc --proc /proc --dev /dev \
            --bind '\(socketDirectory)' '\(socketDirectory)' \
            --ro-bind-data 3 /.flatpak-info -- \(quoted.joined(separator: " ")) 3<'\(infoFile)'
            """
    }
}

extension WireClient {
    /// A client that runs `command` (as `account`, root when `nil`) with the daemon's lines on
    /// its standard input and output.
    convenience init(account: Account?, command: [String]) throws {
        if let account {
            try self.init(
                process: RunningProcess(account.setpriv() + command, executable: setprivPath, input: true))
        } else {
            try self.init(
                process: RunningProcess(
                    Array(command.dropFirst()), executable: URL(fileURLWithPath: command[0]), input: true))
        }
    }
}
