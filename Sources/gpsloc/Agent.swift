// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DescriptorIO
import FoundationEssentials
import LocationEngine
import LocationHosting
import LocationWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `gpsloc agent`: answers, on this terminal, the questions gpslocd has for the apps of the user
/// who runs it. Each question shows what the daemon verified about the app (its identifier,
/// executable, unit or Flatpak id, pid, and how it knows them), never a name the app chose for itself.
struct Agent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer gpslocd's location questions for your apps, on this terminal.",
        discussion: """
            Run it in your terminal or session while your apps ask for location. Questions that \
            waited while no agent ran are shown at once. When gpslocd stops or restarts, the agent \
            says so and answers again once it is back; Ctrl-C ends it.
            """)

    func run() async throws {
        guard let socket = LocationContext.daemonSocket() else {
            printError(
                "gpsloc agent: error: gpslocd is not running (no socket at "
                    + "\(ProcessInfo.processInfo.environment["OPENCORELOCATION_SOCKET"] ?? LocationContext.defaultDaemonSocket))"
            )
            throw ExitCode(1)
        }
        guard TerminalPrompter.isAvailable else {
            printError(
                "gpsloc agent: error: it asks on a terminal and this process has none; run it in your terminal"
            )
            throw ExitCode(1)
        }
        var connection: DaemonConnection
        do { connection = try DaemonConnection.open(path: socket) } catch {
            printError("gpsloc agent: error: \(error)")
            throw ExitCode(1)
        }
        printError("gpsloc agent: answering location questions for uid \(getuid()) from gpslocd at \(socket)")
        while true {
            await Self.answer(on: connection)
            connection.close()
            // gpslocd stopped or restarted: its questions come again once it is back.
            printError(
                "gpsloc agent: gpslocd at \(socket) closed the connection (stopped or restarted); "
                    + "waiting for it to answer again (Ctrl-C ends the agent)")
            connection = await Self.reconnect(to: socket)
            printError("gpsloc agent: gpslocd is back; answering location questions again")
        }
    }

    /// Registers as the user's agent on `connection` and answers its questions until gpslocd
    /// closes it.
    private static func answer(on connection: DaemonConnection) async {
        _ = connection.send(WireRequest.hello(version: WireProtocol.version, receiver: nil).encoded())
        _ = connection.send(WireRequest.registerAgent.encoded())
        let events = Self.events(connection)
        var showing: (number: Int, task: Task<Void, Never>)?
        for await event in events {
            switch event {
            case .prompt(let number, let prompt):
                showing?.task.cancel()
                let task = Task {
                    let answer = await TerminalPrompter().ask(Self.request(for: prompt))
                    guard !Task.isCancelled else { return }
                    _ = connection.send(WireRequest.answerPrompt(prompt: number, Self.wire(answer)).encoded())
                }
                showing = (number, task)
            case .withdraw(let number):
                if showing?.number == number {
                    showing?.task.cancel()
                    showing = nil
                }
            case .error(_, let message):
                printError("gpsloc agent: gpslocd: \(message)")
            default:
                break
            }
        }
        // A question on the screen belongs to the connection that asked it.
        showing?.task.cancel()
    }

    /// A connection to gpslocd at `socket` once it listens again, tried once a second.
    private static func reconnect(to socket: String) async -> DaemonConnection {
        while true {
            try? await Task.sleep(for: .seconds(1))
            if let connection = try? DaemonConnection.open(path: socket) { return connection }
        }
    }

    /// The question as the terminal shows it: the app named by what the daemon verified.
    static func request(for prompt: WirePrompt) -> PromptRequest {
        let identity = prompt.identity
        var facts = ["uid \(identity.uid)", "pid \(identity.pid)"]
        // How the daemon knows the app: a user tells the real app from a namesake by this.
        if let proof = identity.proof {
            facts.append(proof)
        } else {
            if let flatpak = identity.flatpak { facts.append("Flatpak \(flatpak)") }
            if let unit = identity.unit { facts.append("unit \(unit)") }
        }
        if let executable = identity.executable, executable != identity.app,
            identity.proof?.contains(executable) != true
        {
            facts.append(executable)
        }
        if identity.sandboxed == true { facts.append("sandboxed") }
        if !identity.registered { facts.append("not registered by an administrator") }
        return PromptRequest(
            kind: PromptRequest.Kind(rawValue: prompt.kind) ?? .whenInUse,
            client: "\(identity.app) [\(facts.joined(separator: ", "))]",
            reason: prompt.reason, purposeKey: prompt.purposeKey,
            defaultsToApproximate: prompt.defaultsToApproximate)
    }

    static func wire(_ answer: PromptAnswer?) -> WireAnswer {
        switch answer {
        case .allowOnce(let precise)?: precise ? .allowOnce : .allowOnceApproximate
        case .allowWhileUsing(let precise)?: precise ? .allowWhileUsing : .allowWhileUsingApproximate
        case .allowAlways?: .allowAlways
        case .allowFullAccuracy?: .allowFullAccuracy
        case .deny?: .deny
        case nil: .dismiss
        }
    }

    /// The daemon's events, read on a thread of their own until it closes the connection.
    static func events(_ connection: DaemonConnection) -> AsyncStream<WireEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: WireEvent.self)
        detachThread(named: "gpsloc agent") {
            var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
            while true {
                let line: [UInt8]?
                do { line = try connection.readLine(timeout: 1000, splitter: &splitter) } catch { break }
                guard let line, let event = try? WireEvent.parse(line) else { continue }
                continuation.yield(event)
            }
            continuation.finish()
        }
        return stream
    }
}
