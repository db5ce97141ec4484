// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import TestSupport
import Testing

/// Who a desktop entry proves, and who it never does, tried as an attacker would: the same entry
/// where its user may write, an executable the user may replace (in place, or behind a symlink),
/// an interpreter, and two entries that name one program. Each client is a real process of a real
/// uid (socat, or a copy of it), identified by the daemon from the kernel's word.
@Suite(
    "gpslocd: desktop entries prove packaged apps, and nothing a user could have placed", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"))
struct DesktopEntryIdentityTests {
    /// A copy of socat at `path`, owned by `owner` (root when `nil`).
    func socatCopy(at path: String, owner: Account? = nil) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: socatPath.path, toPath: path)
        chmod(path, 0o755)
        if let owner { chown(path, owner.uid, owner.gid) }
    }

    func directory(_ path: String, owner: Account? = nil) throws -> String {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        if let owner { chown(path, owner.uid, owner.gid) }
        return path
    }

    func entry(_ exec: String, reason: String = "To relay where you are") -> String {
        "[Desktop Entry]\nType=Application\nName=Relay\nExec=\(exec) - UNIX-CONNECT:x\nX-Geoclue-Reason=\(reason)\n"
    }

    /// The identity the daemon gives `program` run as `account`.
    func identity(of program: String, as account: Account, daemon: DaemonHarness) async throws -> WireIdentity
    {
        let client = try WireClient(
            account: account, command: [program, "-", "UNIX-CONNECT:\(daemon.socket)"])
        await client.hello()
        let identity = try #require(
            client.identity, "\(client.output)\n\(client.process.errors)\n\(daemon.log)")
        await client.stop()
        return identity
    }

    @Test(
        "socat, named by a root-installed entry, is that entry's app, and its agent is asked with the entry's reason"
    )
    func proven() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        let path = try daemon.installDesktopEntry("org.example.Relay", entry("socat"))
        try await daemon.start()
        #expect(await daemon.logs("read 1 desktop entry in \(daemon.applications)"), "\(daemon.log)")

        let agent = try daemon.client(as: alice)
        await agent.hello()
        agent.send(#"{"op":"agent.register","id":1}"#)
        #expect(await agent.wait { $0.contains(.ok(id: 1)) }, "\(agent.output)")

        let client = try daemon.client(as: alice)
        await client.hello()
        let identity = try #require(client.identity, "\(client.output)\n\(daemon.log)")
        #expect(identity.app == "desktop:org.example.Relay" && identity.desktopEntry == "org.example.Relay")
        #expect(!identity.registered && identity.executable == socatPath.path)
        #expect(
            identity.proof == "desktop entry \(path), whose program \(socatPath.path) its user cannot replace"
        )
        // No terminal: a graphical app's entry, in use while it runs.
        client.send(#"{"op":"session.open","session":1,"authorization":"whenInUse"}"#)
        client.send(#"{"op":"updates.subscribe","subscription":1}"#)
        let asked = await agent.wait { events in
            events.contains { if case .prompt = $0 { true } else { false } }
        }
        let question = agent.events.lazy.compactMap {
            if case .prompt(let n, let p) = $0 { (n, p) } else { nil }
        }.first
        #expect(asked && question?.1.reason == "To relay where you are", "\(agent.output)\n\(daemon.log)")
        #expect(question?.1.identity.desktopEntry == "org.example.Relay")
        let number = try #require(question?.0)
        agent.send(#"{"op":"agent.answer","prompt":\#(number),"answer":"allowWhileUsing"}"#)
        #expect(await client.wait { _ in client.locations.count >= 5 }, "\(client.output)\n\(daemon.log)")
        await client.stop()
        await agent.stop()

        // A grant by the desktop id is checked against the entries: a misspelt one is warned of.
        let admin = try daemon.client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":3,"uid":\#(alice.uid),"app":"desktop:org.example.Rely","level":"always"}"#
        )
        #expect(
            await admin.wait { events in
                events.contains {
                    if case .ok(3, let note?) = $0 {
                        note.contains("no desktop entry org.example.Rely.desktop")
                    } else {
                        false
                    }
                }
            }, "\(admin.output)")
        // The desktop id alone is not the app's name: the grant would never apply to it, and says so.
        admin.send(
            #"{"op":"auth.grant","id":4,"uid":\#(alice.uid),"app":"org.example.Relay","level":"always"}"#)
        #expect(
            await admin.wait { events in
                events.contains {
                    if case .ok(4, let note?) = $0 {
                        note.contains("decide on 'desktop:org.example.Relay' for the desktop app")
                    } else {
                        false
                    }
                }
            }, "\(admin.output)")
        await admin.stop()
        await daemon.stop()
    }

    @Test(
        "the same entry where its user may write, a replaceable or symlinked executable, an interpreter, two entries for one program: none proves an app"
    )
    func attacks() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        let base = try directory(NSTemporaryDirectory() + "desktop-entries-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let bin = try directory(base + "/bin")
        let own = try directory(base + "/mallory", owner: mallory)
        let apps = try directory(base + "/applications")
        // Mallory's own application directory, which the daemon is told to read after the system's.
        let mallorysApps = try directory(base + "/mallory-applications", owner: mallory)
        let daemon = try DaemonHarness(
            sources: [], extra: ["--applications-dir", apps, "--applications-dir", mallorysApps])

        // 1. A root-owned program, but its entry is in the directory Mallory owns.
        try socatCopy(at: bin + "/relay-a")
        try daemon.installDesktopEntry("org.example.A", entry(bin + "/relay-a"), in: mallorysApps)
        // 2. An entry naming a program Mallory owns.
        try socatCopy(at: own + "/relay-b", owner: mallory)
        try daemon.installDesktopEntry("org.example.B", entry(own + "/relay-b"), in: apps)
        // 3. An entry naming a root-owned symlink to a program Mallory owns.
        try socatCopy(at: own + "/relay-c", owner: mallory)
        symlink(own + "/relay-c", bin + "/relay-c")
        try daemon.installDesktopEntry("org.example.C", entry(bin + "/relay-c"), in: apps)
        // 4. An interpreter (by its name, python3), root-owned.
        try socatCopy(at: bin + "/python3")
        try daemon.installDesktopEntry("org.example.D", entry(bin + "/python3"), in: apps)
        // 5. Two entries for one program.
        try socatCopy(at: bin + "/relay-e")
        try daemon.installDesktopEntry("org.example.E1", entry(bin + "/relay-e"), in: apps)
        try daemon.installDesktopEntry("org.example.E2", entry(bin + "/relay-e"), in: apps)
        try await daemon.start()

        let cases: [(program: String, note: String)] = [
            (bin + "/relay-a", "the directory \(mallorysApps) belongs to uid \(mallory.uid)"),
            (own + "/relay-b", "\(own)/relay-b belongs to uid \(mallory.uid)"),
            (bin + "/relay-c", "\(own)/relay-c belongs to uid \(mallory.uid)"),
            (bin + "/python3", "the interpreter python3, which runs any app's script"),
            (bin + "/relay-e", "org.example.E1 (\(apps)/org.example.E1.desktop) and org.example.E2"),
        ]
        for (program, note) in cases {
            let identity = try await identity(of: program, as: mallory, daemon: daemon)
            #expect(
                identity.desktopEntry == nil && !identity.app.hasPrefix("desktop:"), "\(program): \(identity)"
            )
            #expect(identity.proof?.hasPrefix("unregistered program at") == true, "\(program): \(identity)")
            #expect(await daemon.logs(note), "\(program): \(note)\n\(daemon.log)")
        }
        // Every entry was read: what refused each is the proof, not the parse.
        #expect(daemon.log.contains("read 6 desktop entries"), "\(daemon.log)")
        await daemon.stop()
    }

    @Test(
        "an entry installed while the daemon runs proves its app at the next connection; removed, it proves none"
    )
    func reread() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let daemon = try DaemonHarness(sources: [])
        try await daemon.start()
        #expect(try await identity(of: socatPath.path, as: alice, daemon: daemon).app == socatPath.path)
        // Through /bin, a symbolic link to usr/bin where /usr is merged (Debian 12): a link proves no
        // less than the directory it is in.
        let path = try daemon.installDesktopEntry("org.example.Late", entry("/bin/socat"))
        #expect(
            try await identity(of: socatPath.path, as: alice, daemon: daemon).app
                == "desktop:org.example.Late")
        try FileManager.default.removeItem(atPath: path)
        #expect(try await identity(of: socatPath.path, as: alice, daemon: daemon).app == socatPath.path)
        await daemon.stop()
    }
}
