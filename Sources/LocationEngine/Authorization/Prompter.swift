// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A question put to the user about an app's use of location.
public struct PromptRequest: Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable {
        /// The first question: Allow Once, Allow While Using, or Don't Allow.
        case whenInUse
        /// The single upgrade from When-In-Use to Always.
        case always
        /// Precise location for one purpose, while the app is in use.
        case temporaryFullAccuracy
    }

    public var kind: Kind
    /// The app asking, by its client identifier.
    public var client: String
    /// The app's usage description for this question, from its manifest.
    public var reason: String
    /// The purpose key of a temporary full-accuracy request.
    public var purposeKey: String?
    /// The app's manifest asks for approximate location by default.
    public var defaultsToApproximate: Bool

    public init(
        kind: Kind, client: String, reason: String, purposeKey: String? = nil,
        defaultsToApproximate: Bool = false
    ) {
        self.kind = kind
        self.client = client
        self.reason = reason
        self.purposeKey = purposeKey
        self.defaultsToApproximate = defaultsToApproximate
    }
}

/// The user's answer to a ``PromptRequest``.
public enum PromptAnswer: Sendable, Hashable {
    /// When-in-use for as long as the app stays in use.
    case allowOnce(precise: Bool)
    case allowWhileUsing(precise: Bool)
    /// Accepts the upgrade to Always (for ``PromptRequest/Kind/always``).
    case allowAlways
    /// Grants precise location for the purpose (for ``PromptRequest/Kind/temporaryFullAccuracy``).
    case allowFullAccuracy
    /// Don't Allow; for an upgrade or a precise-location request, keeps what was granted before.
    case deny
}

/// Shows authorization prompts and returns the answers.
///
/// `ask` suspends until the user answers; it returns `nil` when the prompt was dismissed without
/// an answer, and must return promptly when its task is cancelled. While it waits, diagnostics
/// report `authorizationRequestInProgress`.
public protocol Prompter: Sendable {
    func ask(_ request: PromptRequest) async -> PromptAnswer?
}

/// A prompter for tests and scripted runs: it answers from a queue, and when the queue is empty
/// it waits until ``answer(_:)`` is called, so a test can look at the state while a prompt shows.
public final class ScriptedPrompter: Prompter {
    private struct State {
        var queued: [PromptAnswer]
        var asked: [PromptRequest] = []
        var waiting: [Int: CheckedContinuation<PromptAnswer?, Never>] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(_ answers: [PromptAnswer] = []) {
        state = Mutex(State(queued: answers))
    }

    /// Every request asked so far, in order.
    public var requests: [PromptRequest] { state.withLock { $0.asked } }
    /// How many prompts are showing now.
    public var showing: Int { state.withLock { $0.waiting.count } }

    /// Answers the prompt that is showing, or the next one to be asked.
    public func answer(_ answer: PromptAnswer) {
        let waiter = state.withLock { state -> CheckedContinuation<PromptAnswer?, Never>? in
            if let first = state.waiting.keys.min() { return state.waiting.removeValue(forKey: first) }
            state.queued.append(answer)
            return nil
        }
        waiter?.resume(returning: answer)
    }

    public func ask(_ request: PromptRequest) async -> PromptAnswer? {
        let id = state.withLock { state -> Int in
            state.asked.append(request)
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate = state.withLock { state -> PromptAnswer?? in
                    if Task.isCancelled { return .some(nil) }
                    if !state.queued.isEmpty { return .some(state.queued.removeFirst()) }
                    state.waiting[id] = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiting.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}

/// A prompter for programs without a user at hand: the request is recorded in the authorization
/// store, and it stays pending until someone answers it with `gpsloc auth grant` or
/// `gpsloc auth deny` (the running program sees the store change at once).
public struct PendingPrompter: Prompter {
    let store: AuthorizationStore
    let log: @Sendable (String) -> Void

    public init(store: AuthorizationStore, log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.log = log
    }

    public func ask(_ request: PromptRequest) async -> PromptAnswer? {
        do {
            try store.update { $0[request.client].pendingRequest = request.kind }
            log(
                "\(request.client) asks for \(request.kind.rawValue) location access (\"\(request.reason)\"); "
                    + "answer with `gpsloc auth grant \(request.client) …` or `gpsloc auth deny \(request.client)`"
            )
        } catch {
            log("cannot record the pending request: \(error)")
        }
        // The answer arrives through the store; this waits until the request is withdrawn.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        return nil
    }
}

/// Asks on the controlling terminal (`/dev/tty`), for command-line programs run by a person.
public struct TerminalPrompter: Prompter {
    public init() {}

    /// Whether a terminal is attached to this process.
    public static var isAvailable: Bool {
        guard
            let terminal = try? FileDescriptor.open(
                "/dev/tty", .readWrite, options: AppActivity.noTerminalOptions)
        else { return false }
        try? terminal.close()
        return true
    }

    /// A choice: the key to type, its label, and the answer it gives.
    typealias Choice = (key: String, label: String, answer: PromptAnswer)

    static func question(for request: PromptRequest) -> (text: String, choices: [Choice]) {
        switch request.kind {
        case .whenInUse:
            let precise = !request.defaultsToApproximate
            return (
                "Allow \"\(request.client)\" to use your location?\n\(request.reason)",
                [
                    ("o", "Allow Once", .allowOnce(precise: precise)),
                    ("w", "Allow While Using", .allowWhileUsing(precise: precise)),
                    ("a", "approximate only", .allowWhileUsing(precise: false)),
                    ("d", "Don't Allow", .deny),
                ]
            )
        case .always:
            return (
                "Allow \"\(request.client)\" to also use your location even when you are not using it?\n"
                    + request.reason,
                [("a", "Change to Always Allow", .allowAlways), ("k", "Keep Only While Using", .deny)]
            )
        case .temporaryFullAccuracy:
            return (
                "\"\(request.client)\" would like to use your precise location.\n\(request.reason)",
                [("p", "Allow precise location once", .allowFullAccuracy), ("d", "Don't Allow", .deny)]
            )
        }
    }

    /// Shows the question on the terminal and waits for an answer there. The wait runs on a
    /// thread of its own (a `PollLoop` on the terminal), never on the concurrency pool, and ends
    /// at once when the task is cancelled (the prompt was withdrawn).
    public func ask(_ request: PromptRequest) async -> PromptAnswer? {
        let (text, choices) = Self.question(for: request)
        let legend = choices.map { "[\($0.key)] \($0.label)" }.joined(separator: "  ")
        let raw = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard raw >= 0, let loop = try? PollLoop() else {
            if raw >= 0 { close(raw) }
            return nil
        }
        let terminal = FileDescriptor(rawValue: raw)
        defer { try? terminal.close() }
        let keys = choices.map(\.key)
        let question = "\n" + terminalSafe(text, keepingLineBreaks: true) + "\n\(legend): "
        let key = try? await onThread(named: "OpenCoreLocation prompt", stop: { loop.stop() }) {
            () throws -> String? in
            _ = try terminal.writeAll(question.utf8)
            var line: [UInt8] = []
            while try loop.wait(for: terminal) == .readable {
                var byte: UInt8 = 0
                guard try withUnsafeMutableBytes(of: &byte, { try terminal.read(into: $0) }) == 1 else {
                    return nil
                }
                if byte != UInt8(ascii: "\n") {
                    line.append(byte)
                    continue
                }
                let answer = String(decoding: line, as: UTF8.self).trimmingWhitespace()
                    .lowercased()
                if keys.contains(answer) { return answer }
                line.removeAll()
                _ = try terminal.writeAll("\(legend): ".utf8)
            }
            return nil
        }
        guard let key else { return nil }
        return choices.first { $0.key == key }?.answer
    }
}
