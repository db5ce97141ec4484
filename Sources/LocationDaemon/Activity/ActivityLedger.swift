// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import LocationWire
import Locking

/// Who uses location now, on every front-end, and what the access history is told: each period
/// of use as it begins and ends (``UsePeriod`` opens and closes them), each refusal. Indicators
/// watch it (``watch(uid:_:)``): each is told the periods open when it starts watching, then
/// every begin and end, in the order they happened, for the users it may see.
final class ActivityLedger: Sendable {
    /// A program as the ledger names it: its verified identity and how it was proved, and the
    /// front-end it asks through.
    struct Accessor: Sendable {
        var uid: UInt32
        var app: String
        var proof: String
        var frontEnd: WireAccess.FrontEnd

        init(_ identity: PeerIdentity, via frontEnd: WireAccess.FrontEnd) {
            uid = identity.uid
            app = identity.app
            proof = identity.basis.proof
            self.frontEnd = frontEnd
        }

        init(uid: UInt32, app: String, proof: String, frontEnd: WireAccess.FrontEnd) {
            self.uid = uid
            self.app = app
            self.proof = proof
            self.frontEnd = frontEnd
        }
    }

    private struct Watcher {
        /// The user whose programs it sees; `nil`: everyone's (root, an administrator).
        var uid: UInt32?
        var tell: @Sendable (WireAccess) -> Void
    }

    private struct State {
        var open: [String: WireAccess] = [:]
        var watchers: [Int: Watcher] = [:]
        var nextWatcher = 0
        var inUseObservers: [Int: @Sendable (Bool) -> Void] = [:]
    }

    let history: AccessHistory?
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    init(history: AccessHistory?, now: @escaping @Sendable () -> Date = { Date() }) {
        self.history = history
        self.now = now
    }

    /// Opens a period of use for `accessor`, precise or approximate; returns its begin.
    func begin(_ accessor: Accessor, precise: Bool) -> WireAccess {
        let begin = WireAccess(
            kind: .begin, id: UUID().uuidString, time: AccessHistory.seconds(now()), uid: accessor.uid,
            app: accessor.app, proof: accessor.proof, frontEnd: accessor.frontEnd, precise: precise)
        history?.record(begin, now: now())
        changed { state in
            state.open[begin.id] = begin
            return begin
        }
        return begin
    }

    /// Closes the period `begin` opened, which delivered `updates` locations (once: a period
    /// ``endAll()`` ended already is not ended again).
    func end(_ begin: WireAccess, updates: Int?, interrupted: Bool = false) {
        var end = begin
        end.kind = .end
        end.time = AccessHistory.seconds(now())
        end.precise = nil
        end.updates = updates
        end.interrupted = interrupted ? true : nil
        var wasOpen = false
        changed { state in
            wasOpen = state.open.removeValue(forKey: begin.id) != nil
            return wasOpen ? end : nil
        }
        if wasOpen { history?.record(end, now: now()) }
    }

    /// The daemon stops: every period open now ends, marked interrupted (its count of updates
    /// stays with its front-end, which is stopping too).
    func endAll() {
        for begin in programs(visibleTo: nil) { end(begin, updates: nil, interrupted: true) }
    }

    /// Records that `accessor` asked and got nothing, and why.
    func refused(_ accessor: Accessor, _ reason: RefusalReason, _ text: String) {
        let refusal = WireAccess(
            kind: .refusal, id: UUID().uuidString, time: AccessHistory.seconds(now()), uid: accessor.uid,
            app: accessor.app, proof: accessor.proof, frontEnd: accessor.frontEnd, reason: reason.rawValue,
            text: text)
        history?.record(refusal, now: now())
    }

    /// Applies a change of the open periods and tells the watchers who may see it, and the
    /// observers of ``isInUse`` when that changed: under the lock, so that every watcher hears
    /// of begins and ends in the order they happened.
    private func changed(_ change: (inout State) -> WireAccess?) {
        state.withLock { state in
            let wasInUse = !state.open.isEmpty
            guard let entry = change(&state) else { return }
            for watcher in state.watchers.values where watcher.uid == nil || watcher.uid == entry.uid {
                watcher.tell(entry)
            }
            if wasInUse != !state.open.isEmpty {
                for observer in state.inUseObservers.values { observer(!state.open.isEmpty) }
            }
        }
    }

    /// The periods open now that `uid` may see (everyone's for `nil`), oldest first.
    func programs(visibleTo uid: UInt32?) -> [WireAccess] {
        state.withLock { state in
            state.open.values.filter { uid == nil || $0.uid == uid }.sorted {
                ($0.time, $0.id) < ($1.time, $1.id)
            }
        }
    }

    /// Whether any program on any front-end is being served.
    var isInUse: Bool { state.withLock { !$0.open.isEmpty } }

    /// Tells `tell` the open periods `uid` may see (everyone's for `nil`), then each begin and
    /// end of them as it happens, until ``unwatch(_:)``. `tell` runs under the ledger's lock: it
    /// must only queue what it is told (a connection's output, a bus thread's work).
    func watch(uid: UInt32?, _ tell: @escaping @Sendable (WireAccess) -> Void) -> Int {
        state.withLock { state in
            for entry in state.open.values.sorted(by: { ($0.time, $0.id) < ($1.time, $1.id) })
            where uid == nil || entry.uid == uid {
                tell(entry)
            }
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = Watcher(uid: uid, tell: tell)
            return state.nextWatcher
        }
    }

    func unwatch(_ watcher: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: watcher) }
    }

    /// Calls `observer` with ``isInUse`` each time it changes (under the ledger's lock, as
    /// ``watch(uid:_:)``'s `tell`).
    func observeInUse(_ observer: @escaping @Sendable (Bool) -> Void) -> Int {
        state.withLock { state in
            state.nextWatcher += 1
            state.inUseObservers[state.nextWatcher] = observer
            return state.nextWatcher
        }
    }

    func removeInUseObserver(_ observer: Int) {
        _ = state.withLock { $0.inUseObservers.removeValue(forKey: observer) }
    }

    /// A period of use for `accessor`, for a front-end to tell what it delivers.
    func period(for accessor: Accessor) -> UsePeriod { UsePeriod(ledger: self, accessor: accessor) }
}
