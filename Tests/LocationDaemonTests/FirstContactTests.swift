// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a person meets first: a program gpslocd gives nothing says why and what fixes it, and
/// when gpslocd is not there, or goes away and comes back, nobody waits without a word. The built
/// binaries, each under a timeout, so that a wait in silence fails the test instead of hanging it.
@Suite(
    "gpsloc and gpslocd: no silence without a reason", .serialized,
    .enabled(if: getuid() == 0, "needs root to run the agent and its app as a user of their own"))
struct FirstContactTests {
    /// A socket file nobody listens on, as a daemon killed with SIGKILL leaves it.
    static func leaveStaleSocket(at path: String) throws {
        let socket = closeOnExecSocket(domain: AF_UNIX, type: SocketType.stream)
        try #require(socket >= 0)
        defer { close(socket) }
        unlink(path)
        let address = try #require(UnixSocketAddress(path: path))
        let bound = address.withSockAddr { bind(socket, $0, $1) }
        try #require(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
    }

    /// A daemon of a 10 Hz receiver where socat is registered as com.example.tracker, which has a
    /// usage description to be asked with.
    static func trackerDaemon() async throws -> (TenHertzReceiver, DaemonHarness) {
        let receiver = try TenHertzReceiver()
        do {
            let daemon = try DaemonHarness(sources: [receiver.source])
            try daemon.register(
                "tracker",
                [
                    "CFBundleIdentifier": "com.example.tracker",
                    "OpenCoreLocationExecutables": [socatPath.path],
                    "NSLocationWhenInUseUsageDescription": "To show where you are",
                ])
            try await daemon.start()
            return (receiver, daemon)
        } catch {
            receiver.stop()
            throw error
        }
    }

    @Test("gpsloc watch given nothing says why and the command that fixes it, once for each reason")
    func watchSaysWhy() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        let environment = ["OPENCORELOCATION_SOCKET": daemon.socket]
        // No terminal, and nobody decided on it: it cannot be asked, having no usage description.
        let watch = try RunningProcess(["watch"], environment: environment)
        let app = Runner.gpsloc.resolvingSymlinksInPath().path
        let undecided = "\(app) (uid 0) has no decision, and cannot be asked for one"
        #expect(await waitUntil(within: 10) { watch.errors.contains(undecided) }, "\(watch.errors)")
        #expect(watch.errors.contains("`sudo gpsloc auth grant --uid 0 '\(app)' always`"), "\(watch.errors)")
        // The update itself follows its reason on the other stream, read by a pipe of its own.
        #expect(await waitUntil(within: 10) { watch.output.contains("no location") }, "\(watch.output)")

        // Denied by an administrator: the new reason, said once while ten updates a second come.
        let deny = try await Runner.run(["auth", "deny", "--uid", "0", app], environment: environment)
        #expect(deny.status == 0, "\(deny.standardError)")
        let denied = "\(app) (uid 0) is denied location (by its user or an administrator)"
        #expect(await waitUntil(within: 10) { watch.errors.contains(denied) }, "\(watch.errors)")
        try await Task.sleep(for: .seconds(2))
        #expect(watch.errors.components(separatedBy: denied).count == 2, "said once: \(watch.errors)")
        #expect(watch.errors.components(separatedBy: undecided).count == 2, "said once: \(watch.errors)")
        await watch.stop()
        await daemon.stop()
    }

    @Test(
        "in a terminal's foreground, a program nobody decided on is told it cannot be asked, never that it was denied"
    )
    func undecidedInATerminalIsNotDenied() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let process = try terminal.startSession(
            [Runner.gpsloc.path, "watch"], environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        let screen = await terminal.screen { $0.contains("cannot be asked") || $0.contains("denied") }
        #expect(screen.contains("has no decision, and cannot be asked for one"), "\(screen)\n\(daemon.log)")
        #expect(!screen.contains("denied"), "\(screen)")
        await terminal.endSession(of: process)
        await daemon.stop()
    }

    @Test("gpslocd's first lines warn of a receiver whose device does not exist, and of having no receiver")
    func readyWarnsOfAbsentReceivers() async throws {
        let absent = try DaemonHarness(sources: ["serial:/dev/ttyNoSuchReceiver"])
        try await absent.start()
        #expect(
            absent.log.contains(
                "warning: receiver serial:/dev/ttyNoSuchReceiver: /dev/ttyNoSuchReceiver does not exist (yet)"
            ),
            "\(absent.log)")
        #expect(
            absent.log.contains("ready: serving 1 receiver (not present yet: serial:/dev/ttyNoSuchReceiver)"),
            "\(absent.log)")
        await absent.stop()
        let none = try DaemonHarness(sources: [])
        try await none.start()
        #expect(none.log.contains("warning: no receiver is configured"), "\(none.log)")
        #expect(
            none.log.contains("ready: serving no receiver (clients get locationUnavailable)"), "\(none.log)")
        await none.stop()
    }

    @Test("a gpsd client in use, asked for on its behalf, is logged as a question waiting, not as asking")
    func gpsdClientsQuestionIsTheDaemons() async throws {
        let (receiver, daemon) = try await Self.trackerDaemon()
        defer { receiver.stop() }
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        // socat in its terminal's foreground speaks gpsd's protocol; it asks for no level at all.
        let process = try terminal.startSession([socatPath.path, "-", "UNIX-CONNECT:\(daemon.socket)"])
        terminal.write(Array("?WATCH={\"enable\":true,\"json\":true}\n".utf8))
        #expect(
            await daemon.logs("a question waits for com.example.tracker (uid 0", within: 20), "\(daemon.log)")
        #expect(!daemon.log.contains(" asks for "), "\(daemon.log)")
        await terminal.endSession(of: process)
        await daemon.stop()
    }

    @Test(
        "gpsloc record allowed while in use only says at once why it records nothing, and fails when it ends so"
    )
    func recorderSaysWhy() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        let app = Runner.gpsloc.resolvingSymlinksInPath().path
        try await daemon.grant(uid: 0, app: app, level: "whenInUse")

        let keys = daemon.root + "/key"
        let made = try await Runner.run([
            "journal", "keygen", "--private-key", keys, "--public-key", keys + ".pub",
        ])
        try #require(made.status == 0, "\(made.standardError)")
        let recorder = try RunningProcess(
            ["record", "--journal", daemon.root + "/journal", "--key", keys + ".pub"],
            environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        let why = "recording nothing: it may have location while in use only, and a recorder is never in use"
        #expect(await waitUntil(within: 10) { recorder.errors.contains(why) }, "\(recorder.errors)")
        // gpslocd's own words, with the command an administrator runs.
        #expect(
            recorder.errors.contains("`sudo gpsloc auth grant --uid 0 '\(app)' always`"), "\(recorder.errors)"
        )
        try await Task.sleep(for: .seconds(1))
        #expect(recorder.errors.components(separatedBy: why).count == 2, "said once: \(recorder.errors)")
        // And in the daemon's log, once for the client, whatever its front-end.
        let logged = daemon.log.split(separator: "\n").filter {
            $0.contains("native: \(app) (uid 0, pid")
                && $0.contains("gets no location: \(app) (uid 0) may have location while in use only")
        }
        #expect(logged.count == 1, "\(daemon.log)")

        recorder.signal(SIGTERM)
        let status = await recorder.wait(within: 20)
        #expect(
            status == 1, "a run that recorded nothing for a reason it knew is no success: \(recorder.errors)")
        #expect(
            recorder.errors.contains(
                "error: no location was recorded: it may have location while in use only"))
        await daemon.stop()
    }

    @Test(
        "a user takes back their own apps' decisions (deny, reset) without an administrator; granting, another user's and the system's stay an administrator's"
    )
    func userRevokesOwnDecision() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let daemon = try DaemonHarness(sources: [])
        try await daemon.start()
        let environment = ["OPENCORELOCATION_SOCKET": daemon.socket]
        try await daemon.grant(uid: alice.uid, app: socatPath.path, level: "always")
        func asAlice(_ arguments: [String]) async throws -> ProcessResult {
            try await Runner.run(
                alice.setpriv() + [Runner.gpsloc.path] + arguments, executable: setprivPath,
                environment: environment)
        }
        let deny = try await asAlice(["auth", "deny", socatPath.path])
        #expect(deny.status == 0, "\(deny.standardError)")
        #expect(
            await daemon.logs("denied '\(socatPath.path)' for uid \(alice.uid)"), "\(daemon.log)")
        let reset = try await asAlice(["auth", "reset", socatPath.path])
        #expect(reset.status == 0, "\(reset.standardError)")
        // What stays an administrator's: each refused with what she may do instead.
        let grant = try await asAlice(["auth", "grant", socatPath.path, "always"])
        #expect(grant.status == 1)
        #expect(
            grant.standardError.contains(
                "only root or members of the administrators' group may grant location")
                && grant.standardError.contains("`gpsloc auth deny APP` or `gpsloc auth reset APP`"),
            "\(grant.standardError)")
        let others = try await asAlice(["auth", "deny", "--uid", "0", socatPath.path])
        #expect(others.status == 1 && others.standardError.contains("change another user's decisions"))
        let services = try await asAlice(["auth", "services", "off"])
        #expect(
            services.status == 1 && services.standardError.contains("change the system's location policy"))
        await daemon.stop()
    }

    @Test("a grant for a program's link or relative path is kept for the path gpslocd matches, and says so")
    func grantResolvesPaths() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let daemon = try DaemonHarness(sources: [])
        try await daemon.start()
        let environment = ["OPENCORELOCATION_SOCKET": daemon.socket]
        let link = daemon.root + "/tracker"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: socatPath.path)
        let socat = socatPath.resolvingSymlinksInPath().path
        let grant = try await Runner.run(
            ["auth", "grant", "--uid", "\(alice.uid)", link, "always"], environment: environment)
        #expect(grant.status == 0, "\(grant.standardError)")
        #expect(grant.standardError.contains("\(link) is \(socat)"), "\(grant.standardError)")
        // The log says it in words, not as Swift's debug text of the request.
        #expect(await daemon.logs("granted '\(socat)' always, precise for uid \(alice.uid)"), "\(daemon.log)")

        // The program run by its link is the one decided on: the kernel names the link's target.
        let client = try daemon.client(as: alice)
        await client.hello()
        let status = client.events.compactMap { event -> String? in
            if case .hello(_, _, let authorization) = event { authorization.status } else { nil }
        }.first
        #expect(status == "authorizedAlways", "\(client.output)\n\(daemon.log)")
        await client.stop()

        let missing = try await Runner.run(
            ["auth", "deny", "--uid", "\(alice.uid)", "./no-such-program"], environment: environment)
        #expect(missing.status == 0)
        #expect(
            missing.standardError.contains("warning: no program is at ./no-such-program"),
            "\(missing.standardError)")
        await daemon.stop()
    }

    @Test("a decision for an identifier nothing knows is kept, with a warning that it may be misspelt")
    func grantWarnsOfUnknownNames() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let daemon = try DaemonHarness(sources: [])
        try daemon.register(
            "tracker",
            [
                "CFBundleIdentifier": "com.example.tracker", "OpenCoreLocationExecutables": [socatPath.path],
                "NSLocationWhenInUseUsageDescription": "To show where you are",
            ])
        try await daemon.start()
        let environment = ["OPENCORELOCATION_SOCKET": daemon.socket]
        func grant(_ app: String) async throws -> ProcessResult {
            try await Runner.run(
                ["auth", "grant", "--uid", "\(alice.uid)", app, "always"], environment: environment)
        }
        let misspelt = try await grant("com.exmaple.tracker")
        #expect(misspelt.status == 0, "\(misspelt.standardError)")
        #expect(
            misspelt.standardError.contains(
                "gpsloc auth grant: warning: nothing gpslocd knows is called 'com.exmaple.tracker': no registration in "
            ), "\(misspelt.standardError)")
        #expect(misspelt.standardError.contains("is it spelt right?"))
        let shown = try await Runner.run(["auth", "show", "--uid", "\(alice.uid)"], environment: environment)
        #expect(shown.standardOutput.contains("com.exmaple.tracker: "), "\(shown.standardOutput)")
        // Known names are not warned of: a registration's, one decided on before, a desktop entry's.
        let desktop = "/usr/share/applications/geoclue-where-am-i.desktop"
        try #require(
            FileManager.default.fileExists(atPath: desktop),
            "\(desktop) is geoclue-2-demo's (tools/test installs it)")
        for known in ["com.example.tracker", "com.exmaple.tracker", "geoclue-where-am-i"] {
            let result = try await grant(known)
            #expect(
                result.status == 0 && !result.standardError.contains("warning"),
                "\(known): \(result.standardError)")
        }
        await daemon.stop()
    }

    @Test(
        "gpslocd removes its socket when it stops; gpsloc watch at a socket nobody serves says so and exits")
    func staleSocket() async throws {
        let daemon = try DaemonHarness(sources: [])
        try await daemon.start()
        #expect(FileManager.default.fileExists(atPath: daemon.socket))
        await daemon.stopKeepingState()
        #expect(
            !FileManager.default.fileExists(atPath: daemon.socket),
            "a socket file left behind makes every client wait for a daemon that is not there")

        try Self.leaveStaleSocket(at: daemon.socket)
        let watch = try RunningProcess(
            ["watch"], environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        let status = await watch.wait(within: 10)
        #expect(status == 1, "gpsloc watch waited in silence: \(watch.errors)")
        #expect(
            watch.errors.contains("cannot connect to \(daemon.socket): Connection refused"), "\(watch.errors)"
        )
        #expect(watch.errors.split(separator: "\n").count == 1, "one line, the error: \(watch.errors)")
        await daemon.stop()
    }

    @Test("gpsloc agent says gpslocd went away, and answers its questions again once it is back")
    func agentAfterRestart() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let (receiver, daemon) = try await Self.trackerDaemon()
        defer { receiver.stop() }

        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let process = try terminal.startSession(
            [setprivPath.path] + alice.setpriv() + [Runner.gpsloc.path, "agent"],
            environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        var screen = await terminal.screen { $0.contains("answering location questions") }
        #expect(screen.contains("from gpslocd at \(daemon.socket)"), "\(screen)")

        _ = try await daemon.restart()
        screen += await terminal.screen { $0.contains("gpslocd is back") }
        #expect(screen.contains("closed the connection (stopped or restarted)"), "\(screen)")
        #expect(screen.contains("answering location questions again"), "\(screen)\n\(daemon.log)")

        // The agent registered again: an app of alice's in use is asked on its terminal.
        let app = try DaemonGraceTests.ForegroundApp(socket: daemon.socket, account: alice)
        app.send(#"{"op":"hello","version":1}"#)
        app.send(#"{"op":"session.open","session":1,"authorization":"whenInUse"}"#)
        app.send(#"{"op":"updates.subscribe","subscription":1}"#)
        screen += await terminal.screen { $0.contains("Don't Allow") }
        #expect(screen.contains("Allow \"com.example.tracker ["), "\(screen)\n\(daemon.log)")
        await app.crash()
        await terminal.endSession(of: process)
        await daemon.stop()
    }

    @Test("gpsloc decode with standard input on a terminal says what it waits for, and decodes what is typed")
    func decodeFromTheTerminal() async throws {
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        // A terminal as a person's is: lines edited, Ctrl-D their end (the port's is raw).
        _ = try await Runner.run(
            ["-F", terminal.slavePath, "sane"], executable: URL(fileURLWithPath: "/usr/bin/stty"))
        let process = try terminal.startSession([Runner.gpsloc.path, "decode", "--format", "jsonl"])
        var screen = await terminal.screen { $0.contains("end with Ctrl-D") }
        #expect(screen.contains("reading NMEA sentences from the terminal"), "\(screen)")
        terminal.write(
            Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\n\u{4}".utf8))
        screen += await terminal.screen { $0.contains("\"latitude\"") }
        #expect(screen.contains("48.1173"), "\(screen)")
        await terminal.endSession(of: process)
    }
}
