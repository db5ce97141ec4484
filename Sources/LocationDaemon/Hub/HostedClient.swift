// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import LocationWire
import Locking

/// One app of one user, as the daemon hosts it: its core (in a ``HostedApp``), whether it is in
/// use, and the connections of its processes. Several processes of the same app share it, as an
/// app's processes share one authorization on Apple platforms; it is in use while any of them
/// is in the foreground of its terminal and has not said it went to the background.
///
/// When its last connection ends, its sessions are kept for the grace period: a restarted app
/// that opens the same sessions again within it takes them back, is not asked again, and its
/// updates carry on (an Allow Once grant included). After it, the sessions end and the app is
/// no longer in use.
final class HostedClient: Sendable {
    /// The verified identity of the app's latest connection, for its prompts and its log lines;
    /// none for an app hosted only for its monitors.
    final class LatestIdentity: Sendable {
        private let value = Mutex<PeerIdentity?>(nil)
        var identity: PeerIdentity? {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }

    struct Key: Sendable, Hashable {
        var uid: UInt32
        var app: String
        var receiver: String
    }

    /// A session as it was opened, so that a restarted app can take it back.
    struct Session: Sendable, Hashable {
        var id: Int
        var level: WireLevel
        var purposeKey: String?
        var background: Bool
        /// `false`: it holds Always if decided, and asks for no more than when-in-use.
        var asksForAlways = true
    }

    private struct Connection {
        /// Whether its process is in the foreground, asked every second.
        var probe: PeerIdentity.ForegroundProbe
        /// The session its process was last seen in without a controlling terminal, for the
        /// next look (``PeerIdentity/ForegroundProbe/look(knowing:)``).
        var withoutTerminalIn: Int32?
        var claimsBackground = false
        /// Whether it acted as the app (a session, a subscription, a request): an agent's or an
        /// administrator's connection never does, and never keeps the app in use or alive.
        var active = false
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var nextConnection = 0
        /// Sessions of connections that ended, waiting to be taken back.
        var kept: [Session] = []
        /// Bumped whenever the last connection leaves, so a stale grace timer does nothing.
        var generation = 0
    }

    let key: Key
    let app: HostedApp
    let activity: AppActivity
    let latest: LatestIdentity
    private let state = Mutex(State())

    init(key: Key, app: HostedApp, activity: AppActivity, latest: LatestIdentity) {
        self.key = key
        self.app = app
        self.activity = activity
        self.latest = latest
    }

    /// Adds a connection; returns its number.
    func connect(_ identity: PeerIdentity) -> Int {
        latest.identity = identity
        return state.withLock { state in
            state.nextConnection += 1
            state.connections[state.nextConnection] = Connection(probe: identity.foregroundProbe)
            return state.nextConnection
        }
    }

    /// The connection acts as the app from now on.
    func activate(_ connection: Int) {
        state.withLock { $0.connections[connection]?.active = true }
    }

    /// Removes a connection and keeps its sessions; returns the generation the grace timer must
    /// find unchanged, or `nil` while other connections act as the app (or this one never did).
    func disconnect(_ connection: Int, keeping sessions: [Session]) -> Int? {
        state.withLock { state in
            let leaving = state.connections.removeValue(forKey: connection)
            state.kept += sessions
            guard leaving?.active == true || !sessions.isEmpty else {
                // A passive connection leaves no app behind when it was the last of any kind.
                if state.connections.isEmpty && state.kept.isEmpty {
                    state.generation += 1
                    return state.generation
                }
                return nil
            }
            guard !state.connections.values.contains(where: \.active) else { return nil }
            state.generation += 1
            return state.generation
        }
    }

    var isConnected: Bool { state.withLock { !$0.connections.isEmpty } }

    /// Ends the kept sessions if no connection came back since `generation`; `true` if it did.
    func expire(generation: Int) -> Bool {
        let kept = state.withLock { state -> [Session]? in
            guard state.generation == generation, !state.connections.values.contains(where: \.active) else {
                return nil
            }
            defer { state.kept = [] }
            return state.kept
        }
        guard let kept else { return false }
        activity.setInUse(false)
        for session in kept { app.closeSession(session.id) }
        return true
    }

    /// A session for a connection: a kept one opened the same way, or a new one.
    func takeSession(level: WireLevel, purposeKey: String?, background: Bool, asksForAlways: Bool = true)
        -> Session
    {
        let adopted = state.withLock { state -> Session? in
            guard
                let index = state.kept.firstIndex(where: {
                    $0.level == level && $0.purposeKey == purposeKey && $0.background == background
                        && $0.asksForAlways == asksForAlways
                })
            else { return nil }
            return state.kept.remove(at: index)
        }
        if let adopted { return adopted }
        let id =
            background
            ? app.openBackgroundSession()
            : app.openSession(level, purposeKey: purposeKey, asksForAlways: asksForAlways)
        return Session(
            id: id, level: level, purposeKey: purposeKey, background: background, asksForAlways: asksForAlways
        )
    }

    /// A connection says it went to the background (`true`) or came back (`false`).
    func claimBackground(_ claims: Bool, connection: Int) {
        state.withLock { $0.connections[connection]?.claimsBackground = claims }
    }

    /// Sets "in use" from `/proc`: any acting connection's process in the foreground of its
    /// terminal that has not said otherwise. Without one (the grace period) it stays as it was.
    func refreshActivity() {
        let connections = state.withLock { $0.connections.filter(\.value.active) }
        guard !connections.isEmpty else { return }
        // A program's connections share its terminal state: /proc is read once per process, not
        // once per connection (a program may hold hundreds). A pid whose first connection is not
        // in the foreground is not asked again this turn; if a new process took the number of a
        // dead one, it is taken as not in use until the next turn: never more than it may have.
        var notForeground = Set<Int32>()
        var learned: [(connection: Int, withoutTerminalIn: Int32?)] = []
        let inUse = connections.contains { number, connection in
            guard !connection.claimsBackground else { return false }
            let pid = connection.probe.credentials.pid
            guard !notForeground.contains(pid) else { return false }
            let look = connection.probe.look(knowing: connection.withoutTerminalIn)
            if look.withoutTerminalIn != connection.withoutTerminalIn {
                learned.append((number, look.withoutTerminalIn))
            }
            if look.foreground { return true }
            notForeground.insert(pid)
            return false
        }
        if !learned.isEmpty {
            state.withLock { state in
                for (number, session) in learned { state.connections[number]?.withoutTerminalIn = session }
            }
        }
        activity.setInUse(inUse)
    }
}
