// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationDaemon
import TestSupport
import Testing

/// Whether a client's process is in the foreground of a terminal, looked at again and again as
/// the daemon does every second: what an earlier look learnt never hides a process that has
/// since taken a terminal of its own.
@Suite("A client's foreground, looked at again")
struct ForegroundLookTests {
    /// A process without a controlling terminal in a session it does not lead, which on
    /// `SIGUSR1` starts a session of its own on `terminal` and takes it as its controlling
    /// terminal: `setsid` runs a shell that leads the session and starts the second shell.
    static func detachedShell(terminal: PseudoTerminal) async throws -> (RunningProcess, pid: Int32) {
        let inner = #"trap 'exec setsid --ctty sleep 60 <&3' USR1; echo "$$"; while :; do sleep 0.05; done"#
        let outer = #"exec 3<&0; sh -c "$0" & wait"#
        let slave = open(terminal.slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        let process = try RunningProcess(
            ["/bin/sh", "-c", outer, inner], executable: URL(fileURLWithPath: "/usr/bin/setsid"),
            standardInput: FileHandle(fileDescriptor: slave, closeOnDealloc: true))
        #expect(await process.waitForOutput { $0.hasSuffix("\n") })
        let pid = try #require(Int32(process.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        return (process, pid)
    }

    @Test(
        "a process without a terminal is remembered so; once it leads a session with one, it is in the foreground"
    )
    func learntAndOutgrown() async throws {
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        let (shell, pid) = try await Self.detachedShell(terminal: terminal)
        defer {
            kill(pid, SIGKILL)
            shell.signal(SIGKILL)
        }
        let probe = PeerIdentity.ForegroundProbe(
            credentials: PeerCredentials(uid: getuid(), gid: getgid(), pid: pid, pidfd: nil),
            isService: false,
            sandboxed: false)
        let session = getsid(pid)
        #expect(session > 0 && session != pid)

        let first = probe.look(knowing: nil)
        #expect(first == .init(foreground: false, withoutTerminalIn: session))
        #expect(probe.look(knowing: session) == first, "what was learnt holds while the session does")
        #expect(
            probe.look(knowing: session + 1) == first,
            "a session that is not the process's own is not taken for it")

        kill(pid, SIGUSR1)
        #expect(await waitUntil(within: 10) { getsid(pid) == pid && probe.isForeground })
        let later = probe.look(knowing: session)
        #expect(
            later == .init(foreground: true, withoutTerminalIn: nil),
            "the session it was remembered in has changed")
        #expect(probe.look(knowing: later.withoutTerminalIn) == later)
    }
}
