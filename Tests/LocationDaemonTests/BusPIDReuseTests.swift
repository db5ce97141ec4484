// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bus connection opened by a process that exited, kept by its heir, and its pid given to a
/// granted program, on a private dbus-daemon (1.14: no `ProcessFD`): the heir is not taken for that
/// program, neither when it starts a client nor when it offers itself as its user's agent. The
/// pid's reuse is staged as root with `ns_last_pid`, as an attacker who cycles the pid space waits
/// for it.
@Suite(
    "gpslocd: a bus connection whose pid went to another program lends it nothing", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users and to give a pid by ns_last_pid"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/libexec/geoclue-2.0/demos/where-am-i"),
        "geoclue-2-demo is not installed (tools/test installs it)")
)
struct BusPIDReuseTests {
    typealias Setup = GeoClueTests.Setup
    static let sleep = "/usr/bin/sleep"

    /// The handover script's opener, run as `account` until it exited, having handed its
    /// connection to its heir: the script, the pid it freed and the heir's pid.
    static func handOver(_ setup: Setup, _ account: Account, action: String, go: String) async throws
        -> (RunningProcess, opened: Int32, heir: PinnedProcess)
    {
        let script = try setup.start(
            account,
            [
                GeoClueTests.python, GeoClueTests.scripts + "/geoclue-handover.py", setup.bus.address, go,
                action, "3",
            ])
        #expect(
            await script.waitForOutput(within: 15) { $0.contains(#""event": "heir""#) }, "\(script.errors)")
        let events = jsonObjects(inLines: script.output)
        let opened = try #require(events.first { $0["event"] as? String == "opened" }?["pid"] as? Int)
        // The heir waits to be told to go: it is alive, and pinned before its pid can be anyone's.
        let heirPID = try #require(events.first { $0["event"] as? String == "heir" }?["pid"] as? Int)
        let heir = try #require(
            PinnedProcess(Int32(heirPID)), "the heir \(heirPID) is gone: \(script.errors)")
        // The opener is gone (and reaped): its pid is free.
        #expect(await waitUntil(within: 10) { kill(Int32(opened), 0) != 0 })
        return (script, Int32(opened), heir)
    }

    /// Gives pid `pid` to a `sleep` of `account`, forked by a helper of root's that sets
    /// `ns_last_pid` just below it and tries again, at once, while another process takes the
    /// number first; returns the helper, which waits for its `sleep`, and the `sleep`, pinned
    /// (signal it to end both).
    static func reuse(_ pid: Int32, _ account: Account) async throws -> (RunningProcess, PinnedProcess) {
        let helper = try RunningProcess(
            [
                "-c", Self.giver, "\(pid)", "\(account.uid)", "\(account.gid)", Self.sleep,
            ], executable: URL(fileURLWithPath: GeoClueTests.python))
        let given = await helper.waitForOutput(within: 30) { $0.contains("given") || $0.contains("taken") }
        guard given, helper.output.contains("given \(pid)") else {
            await helper.stop()
            throw Refused(
                text: "pid \(pid) could not be given to \(Self.sleep): \(helper.output)\(helper.errors)")
        }
        // The sleep runs for a minute: it is the process of that pid while it is pinned.
        guard let sleeper = PinnedProcess(pid) else {
            await helper.stop()
            throw Refused(text: "pid \(pid), given to \(Self.sleep), ended at once: \(helper.errors)")
        }
        return (helper, sleeper)
    }

    /// The helper `reuse` runs.
    static let giver = #"""
        import os, sys
        pid, uid, gid, program = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        for _ in range(5000):
            with open("/proc/sys/kernel/ns_last_pid", "w") as f:
                f.write(str(pid - 1))
            child = os.fork()
            if child == 0:
                os.setgroups([])
                os.setgid(gid)
                os.setuid(uid)
                os.execv(program, [program, "60"])
            if child == pid:
                print(f"given {pid}", flush=True)
                os.waitpid(child, 0)
                sys.exit(0)
            os.kill(child, 9)
            os.waitpid(child, 0)
        print(f"taken: pid {pid} went to other processes 5000 times", flush=True)
        """#

    struct Refused: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    /// The heir's last line: waited for as long as the heir itself waits (a minute), since a
    /// machine loaded by the suites beside it once took longer than 20 s to give it.
    static func outcome(_ script: RunningProcess) async -> [String: Any] {
        _ = await script.waitForOutput(within: 60) { $0.contains(#""event": "done""#) }
        return jsonObjects(inLines: script.output).last { $0["event"] as? String == "done" } ?? [:]
    }

    @Test("an heir whose opener's pid went to a granted program starts no client and gets no location")
    func start() async throws {
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with { setup in
            // Alice's sleep may have her precise location always; her python has no decision.
            try await setup.decide(uid: alice.uid, app: Self.sleep, "always")
            let go = NSTemporaryDirectory() + "ocl-handover-\(UUID().uuidString.prefix(8))"
            defer { unlink(go) }
            let (script, opened, heir) = try await Self.handOver(setup, alice, action: "start", go: go)
            defer { heir.signal(SIGKILL) }
            let (helper, sleeper) = try await Self.reuse(opened, alice)
            defer { sleeper.signal(SIGKILL) }
            #expect(FileManager.default.createFile(atPath: go, contents: nil))
            let done = await Self.outcome(script)
            await helper.stop()
            print("pid \(opened) reused by \(Self.sleep): the heir's outcome \(done)")
            #expect(
                done["refused"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(script.output)")
            #expect(
                (done["message"] as? String)?.contains("pid \(opened) opened 1 connection to the bus")
                    == true, "\(done)")
            #expect(done["locations"] == nil, "\(script.output)\n\(setup.daemon.log)")
            #expect(!setup.daemon.log.contains("\(Self.sleep) (uid \(alice.uid)"), "\(setup.daemon.log)")
        }
    }

    @Test("an heir whose opener's pid went to another program of its user does not become that user's agent")
    func agent() async throws {
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with { setup in
            let go = NSTemporaryDirectory() + "ocl-handover-\(UUID().uuidString.prefix(8))"
            defer { unlink(go) }
            let (script, opened, heir) = try await Self.handOver(setup, alice, action: "agent", go: go)
            defer { heir.signal(SIGKILL) }
            let (helper, sleeper) = try await Self.reuse(opened, alice)
            defer { sleeper.signal(SIGKILL) }
            #expect(FileManager.default.createFile(atPath: go, contents: nil))
            let done = await Self.outcome(script)
            await helper.stop()
            print("pid \(opened) reused by \(Self.sleep): the would-be agent's outcome \(done)")
            #expect(
                done["refused"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(script.output)")
            #expect(!setup.daemon.log.contains("GeoClue agent"), "\(setup.daemon.log)")
        }
    }

    @Test("an heir whose opener exited and whose pid nobody took is refused, not served as anyone")
    func heirOfNobody() async throws {
        // pidfd_open finds no process: nothing can be pinned, and nothing is served.
        let alice = try await Account.ensure("ocl-alice")
        try await Setup.with { setup in
            let go = NSTemporaryDirectory() + "ocl-handover-\(UUID().uuidString.prefix(8))"
            defer { unlink(go) }
            let (script, opened, heir) = try await Self.handOver(setup, alice, action: "start", go: go)
            defer { heir.signal(SIGKILL) }
            #expect(FileManager.default.createFile(atPath: go, contents: nil))
            let done = await Self.outcome(script)
            #expect(
                done["refused"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(script.output)")
            #expect(
                (done["message"] as? String)?.contains("pid \(opened) could not be pinned") == true, "\(done)"
            )
        }
    }
}
