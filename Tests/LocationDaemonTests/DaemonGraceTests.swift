// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import TestSupport
import Testing

/// Prompts go to the user's agent with the identity the daemon verified, and a restarted app
/// that takes its session back within the grace period is not asked again.
@Suite(
    "gpslocd: the user's agent and the grace period", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"))
struct DaemonGraceTests {
    /// An app in the foreground of a terminal of its own: `socat` as `account`, session leader of
    /// a pseudo-terminal it reads its requests from, printing the daemon's lines on a pipe.
    final class ForegroundApp: Sendable {
        let terminal: PseudoTerminal
        let process: RunningProcess

        init(socket: String, account: Account) throws {
            terminal = try PseudoTerminal()
            let slave = open(terminal.slavePath, O_RDWR | O_CLOEXEC)
            let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
            process = try RunningProcess(
                ["--ctty", "--wait", setprivPath.path] + account.setpriv() + [
                    socatPath.path, "-", "UNIX-CONNECT:\(socket)",
                ],
                executable: URL(fileURLWithPath: "/usr/bin/setsid"), standardInput: handle)
        }

        func send(_ line: String) { terminal.write(Array((line + "\n").utf8)) }

        var locations: Int { process.output.split(separator: "\n").count { $0.contains("\"location\"") } }

        /// Kills the app, as a crash would.
        func crash() async {
            kill(-process.processIdentifier, SIGKILL)
            process.signal(SIGKILL)
            for pid in Self.children(of: process.processIdentifier) { kill(pid, SIGKILL) }
            _ = await process.wait(within: 10)
            terminal.close()
        }

        static func children(of pid: Int32) -> [Int32] {
            let text =
                (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    static func prompts(_ agent: WireClient) -> Int {
        agent.events.count { if case .prompt = $0 { true } else { false } }
    }

    @Test("Allow Once from the agent survives an app restart within the grace period, and lapses after it")
    func graceAfterRestart() async throws {
        let alice = try await Account.ensure("ocl-alice")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        // Long enough that a loaded machine starts the second app within it.
        let daemon = try DaemonHarness(sources: [receiver.source], extra: ["--grace", "12"])
        try daemon.register(
            "tracker",
            [
                "CFBundleIdentifier": "com.example.tracker", "OpenCoreLocationExecutables": [socatPath.path],
                "NSLocationWhenInUseUsageDescription": "To show where you are",
            ])
        try await daemon.start()

        let agent = try daemon.client(as: alice)
        await agent.hello()
        agent.send(#"{"op":"agent.register","id":1}"#)
        #expect(await agent.wait { $0.contains(.ok(id: 1)) })

        let first = try ForegroundApp(socket: daemon.socket, account: alice)
        first.send(#"{"op":"hello","version":1}"#)
        first.send(#"{"op":"session.open","session":1,"authorization":"whenInUse"}"#)
        first.send(#"{"op":"updates.subscribe","subscription":1}"#)
        #expect(
            await agent.wait { _ in Self.prompts(agent) == 1 },
            "\(agent.output)\n\(first.process.output)\n\(daemon.log)")
        // The question names what the daemon verified: the registered app, its executable, its uid.
        let question = agent.events.compactMap { if case .prompt(let n, let p) = $0 { (n, p) } else { nil } }
            .first
        let (number, prompt) = try #require(question)
        #expect(prompt.identity.app == "com.example.tracker" && prompt.identity.uid == Int(alice.uid))
        #expect(prompt.identity.executable == socatPath.path && prompt.reason == "To show where you are")
        agent.send(#"{"op":"agent.answer","prompt":\#(number),"answer":"allowOnce"}"#)
        #expect(await first.process.waitForOutput { _ in first.locations >= 5 }, "\(first.process.output)")

        // A crash, and the app back within the grace period: no question, updates carry on.
        await first.crash()
        let second = try ForegroundApp(socket: daemon.socket, account: alice)
        second.send(#"{"op":"hello","version":1}"#)
        second.send(#"{"op":"session.open","session":1,"authorization":"whenInUse"}"#)
        second.send(#"{"op":"updates.subscribe","subscription":1}"#)
        #expect(await second.process.waitForOutput { _ in second.locations >= 5 }, "\(second.process.output)")
        #expect(Self.prompts(agent) == 1, "not asked again within the grace period")

        // Gone for longer than the grace period: Allow Once has lapsed and the app is asked again.
        await second.crash()
        try await Task.sleep(for: .seconds(14))
        let third = try ForegroundApp(socket: daemon.socket, account: alice)
        third.send(#"{"op":"hello","version":1}"#)
        third.send(#"{"op":"session.open","session":1,"authorization":"whenInUse"}"#)
        third.send(#"{"op":"updates.subscribe","subscription":1}"#)
        #expect(await agent.wait { _ in Self.prompts(agent) == 2 }, "\(agent.output)")
        #expect(third.locations == 0)
        await third.crash()
        await agent.stop()
        await daemon.stop()
    }
}
