// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import LocationWire
import Locking

/// Takes each app's questions to the user it runs as: to that user's agent (`gpsloc agent`)
/// when one is connected, else it records them as pending in the user's decisions, to be
/// answered with `gpsloc auth grant|deny` (or by an agent that registers later).
///
/// The question shows the identity the daemon verified, never a name the client chose.
public final class PromptRouter: Sendable {
    /// Sends one line to an agent's connection.
    public typealias Send = @Sendable ([UInt8]) -> Void
    /// Puts a question to an agent of another protocol (a GeoClue agent); `false` when it cannot
    /// put this one (its protocol has no words for it), so that others are asked.
    public typealias Ask = @Sendable (_ prompt: Int, _ question: WirePrompt) -> Bool

    private struct Waiting {
        var uid: UInt32
        var prompt: WirePrompt
        var continuation: CheckedContinuation<PromptAnswer?, Never>
    }

    private struct State {
        var agents: [UInt32: [Int: Send]] = [:]
        var askers: [UInt32: [Int: Ask]] = [:]
        var waiting: [Int: Waiting] = [:]
        var nextPrompt = 0
        var nextAgent = 0
    }

    private let state = Mutex(State())
    private let stores: DecisionStores
    private let log: @Sendable (String) -> Void

    public init(stores: DecisionStores, log: @escaping @Sendable (String) -> Void) {
        self.stores = stores
        self.log = log
    }

    /// Registers an agent for `uid`; every question waiting for that user is sent to it at once.
    /// Returns the number to ``unregister(uid:agent:)`` it with.
    public func register(uid: UInt32, send: @escaping Send) -> Int {
        let (id, questions) = state.withLock { state -> (Int, [[UInt8]]) in
            state.nextAgent += 1
            state.agents[uid, default: [:]][state.nextAgent] = send
            let questions = state.waiting.sorted { $0.key < $1.key }.filter { $0.value.uid == uid }
                .map { WireEvent.prompt(prompt: $0.key, $0.value.prompt).encoded() }
            return (state.nextAgent, questions)
        }
        for question in questions { send(question) }
        return id
    }

    /// Registers an agent of another protocol for `uid`, asked each question it can put from
    /// now on and each one waiting. Unregistered with ``unregister(uid:agent:)``.
    public func register(uid: UInt32, ask: @escaping Ask) -> Int {
        let (id, questions) = state.withLock { state -> (Int, [(Int, WirePrompt)]) in
            state.nextAgent += 1
            state.askers[uid, default: [:]][state.nextAgent] = ask
            let questions = state.waiting.sorted { $0.key < $1.key }.filter { $0.value.uid == uid }
                .map { ($0.key, $0.value.prompt) }
            return (state.nextAgent, questions)
        }
        for (prompt, question) in questions { _ = ask(prompt, question) }
        return id
    }

    public func unregister(uid: UInt32, agent: Int) {
        state.withLock { state in
            state.agents[uid]?[agent] = nil
            if state.agents[uid]?.isEmpty == true { state.agents[uid] = nil }
            state.askers[uid]?[agent] = nil
            if state.askers[uid]?.isEmpty == true { state.askers[uid] = nil }
        }
    }

    /// An agent's answer. Only an agent of the user the question is for may answer it.
    public func answer(prompt: Int, uid: UInt32, _ answer: WireAnswer) throws(WireError) {
        let waiting = try state.withLock { state throws(WireError) -> Waiting in
            guard let waiting = state.waiting[prompt], waiting.uid == uid else {
                throw WireError("there is no prompt \(prompt) for you; it was answered or withdrawn")
            }
            state.waiting[prompt] = nil
            return waiting
        }
        withdraw(prompt, uid: uid)
        waiting.continuation.resume(returning: PromptAnswer(wire: answer))
    }

    /// Tells every agent of `uid` that the question is over.
    private func withdraw(_ prompt: Int, uid: UInt32) {
        let agents = state.withLock { Array(($0.agents[uid] ?? [:]).values) }
        let line = WireEvent.withdraw(prompt: prompt).encoded()
        for send in agents { send(line) }
    }

    /// The prompter for one app of user `uid`; a question shows `identity()`, the verified
    /// identity of the app's latest connection. With none (an app the daemon hosts for its
    /// monitors while it does not run), nobody is asked: only an app in use is, and that has one.
    public func prompter(uid: UInt32, identity: @escaping @Sendable () -> PeerIdentity?) -> any Prompter {
        RoutedPrompter(router: self, identity: identity)
    }

    fileprivate func ask(_ request: PromptRequest, identity: PeerIdentity) async -> PromptAnswer? {
        let uid = identity.uid
        let question = WirePrompt(
            kind: request.kind.rawValue, identity: identity.wire, reason: request.reason,
            purposeKey: request.purposeKey, defaultsToApproximate: request.defaultsToApproximate)
        let number = state.withLock { state -> Int in
            state.nextPrompt += 1
            return state.nextPrompt
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let found = state.withLock { state -> ([Send], [Ask])? in
                    if Task.isCancelled { return nil }
                    state.waiting[number] = Waiting(uid: uid, prompt: question, continuation: continuation)
                    return (
                        Array((state.agents[uid] ?? [:]).values), Array((state.askers[uid] ?? [:]).values)
                    )
                }
                guard let (agents, askers) = found else {
                    continuation.resume(returning: nil)
                    return
                }
                let line = WireEvent.prompt(prompt: number, question).encoded()
                for send in agents { send(line) }
                // Every asker is asked (each is a user's agent); none that could put it is as none at all.
                let asked = askers.map { $0(number, question) }.contains(true)
                if agents.isEmpty && !asked { recordPending(request, identity: identity) }
            }
        } onCancel: {
            let waiting = state.withLock { $0.waiting.removeValue(forKey: number) }
            if let waiting {
                withdraw(number, uid: uid)
                waiting.continuation.resume(returning: nil)
            }
        }
    }

    private func recordPending(_ request: PromptRequest, identity: PeerIdentity) {
        do {
            try stores.store(uid: identity.uid).update { $0[request.client].pendingRequest = request.kind }
        } catch {
            log("cannot record the pending request of \(identity.summary): \(error)")
        }
        // Not "asks": a gpsd or GeoClue client asks for nothing itself, and the question is the
        // daemon's, for the session it holds on the program's behalf.
        let level = request.kind == .always ? " always" : ""
        log(
            "a question waits for \(identity.summary): \(request.kind.rawValue) location access "
                + "(\"\(request.reason)\"); no agent of uid \(identity.uid) is running: answer with "
                + "`gpsloc agent` as that user, or `sudo gpsloc auth grant --uid \(identity.uid) "
                + "'\(request.client)'\(level)` as an administrator")
    }
}

/// A prompter that asks through the router with the identity the daemon verified.
private struct RoutedPrompter: Prompter {
    let router: PromptRouter
    let identity: @Sendable () -> PeerIdentity?

    func ask(_ request: PromptRequest) async -> PromptAnswer? {
        guard let identity = identity() else { return nil }
        return await router.ask(request, identity: identity)
    }
}
