// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CGeoClueBus
import CSDBus
import LocationEngine
import LocationWire
import Locking

/// The GeoClue agents on the bus (`org.freedesktop.GeoClue2.Agent`, what gnome-shell implements):
/// each registered with `AddAgent` by a program outside any sandbox, asked its user's first
/// question through the daemon's prompt router, its `AuthorizeApp` answer taken as the user's.
final class GeoClueAgents: Sendable {
    private struct State {
        /// Each connection registered as an agent: its user and its number with the router.
        var agents: [String: (uid: UInt32, id: Int)] = [:]
        /// Questions put to agents, by token: the router's prompt and the user asked.
        var questions: [UInt64: (prompt: Int, uid: UInt32)] = [:]
        var nextQuestion: UInt64 = 0
    }

    private let daemon: Daemon
    private let state = Mutex(State())

    init(daemon: Daemon) {
        self.daemon = daemon
    }

    /// `AddAgent` from `sender`, identified as `identity`: it answers its user's questions from
    /// now on, as `gpsloc agent` does. `bus` is the connection to ask it on.
    func add(_ sender: String, identity: PeerIdentity, bus: @escaping @Sendable () -> BusConnection?)
        throws(WireError)
    {
        try daemon.requireUnsandboxed(identity, to: "register as its user's agent")
        if state.withLock({ $0.agents[sender] != nil }) { return }
        let uid = identity.uid
        let id = daemon.router.register(uid: uid) { [weak self] prompt, question in
            self?.ask(agent: sender, uid: uid, prompt: prompt, question, bus: bus()) ?? false
        }
        state.withLock { $0.agents[sender] = (uid, id) }
        daemon.log("GeoClue2: \(identity.summary) answers uid \(uid)'s questions as a GeoClue agent")
    }

    /// The connection left the bus: it is no agent any more.
    func gone(_ sender: String) {
        guard let agent = state.withLock({ $0.agents.removeValue(forKey: sender) }) else { return }
        daemon.router.unregister(uid: agent.uid, agent: agent.id)
    }

    /// The bus was lost: every agent with it.
    func forgetAll() {
        let agents = state.withLock { state in
            defer { state = State() }
            return Array(state.agents.values)
        }
        for agent in agents { daemon.router.unregister(uid: agent.uid, agent: agent.id) }
    }

    /// Puts the first question to a GeoClue agent, which can show an app by its desktop id only:
    /// so only for an app whose desktop id is known for certain (a Flatpak's id from its sandbox,
    /// the desktop entry that runs its executable, a registered app's identifier), never for a
    /// program that names itself.
    private func ask(agent: String, uid: UInt32, prompt: Int, _ question: WirePrompt, bus: BusConnection?)
        -> Bool
    {
        guard question.kind == PromptRequest.Kind.whenInUse.rawValue, let bus else { return false }
        let desktopId: String
        if let flatpak = question.identity.flatpak {
            desktopId = flatpak
        } else if let entry = question.identity.desktopEntry {
            desktopId = entry
        } else if question.identity.registered {
            desktopId = question.identity.app
        } else {
            return false
        }
        let level = question.defaultsToApproximate ? GeoClueAccuracy.city : GeoClueAccuracy.exact
        bus.perform { [self] in
            let token = state.withLock { state -> UInt64 in
                state.nextQuestion += 1
                state.questions[state.nextQuestion] = (prompt, uid)
                return state.nextQuestion
            }
            // The user may take their time; the question is withdrawn with the prompt.
            let sent = ocl_agent_authorize(bus.bus, bus.callback, agent, desktopId, level, token, 600_000_000)
            if sent < 0 { _ = state.withLock { $0.questions.removeValue(forKey: token) } }
        }
        return true
    }

    /// An agent's `AuthorizeApp` answer (`failed`: it gave none).
    func authorized(token: UInt64, failed: Bool, authorized: Bool, level: UInt32) {
        guard let question = state.withLock({ $0.questions.removeValue(forKey: token) }) else { return }
        // An agent that did not answer leaves the question to the user's other agents.
        guard !failed else { return }
        try? daemon.router.answer(
            prompt: question.prompt, uid: question.uid,
            GeoClueAccuracy.answer(authorized: authorized, level: level))
    }
}
