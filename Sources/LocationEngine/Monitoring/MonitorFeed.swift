// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Locking

/// The one feed of fixes an app's monitors are evaluated from: a single monitoring subscription
/// of the app's engine (which holds its implicit when-in-use session), each update handed to every
/// monitor that wants it, in turn. One subscription per app rather than per monitor: 10,000
/// monitors of 160 apps wake 160 feeds per epoch, not 10,000.
package final class MonitorFeed: Sendable {
    private struct Member {
        weak var core: MonitorCore?
    }

    private struct State {
        var members: [ObjectIdentifier: Member] = [:]
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())

    init() {}

    /// `core` is told every update from now on; the first member starts the subscription.
    func join(_ core: MonitorCore) {
        state.withLock { state in
            state.members[ObjectIdentifier(core)] = Member(core: core)
            guard state.task == nil else { return }
            let updates = core.engine.subscribeUpdates(profile: .default, monitoring: true)
            state.task = Task { [weak self] in
                let lease = MailboxLease(updates)
                while let update = await lease.mailbox.next() {
                    guard let self else { return }
                    for core in self.members { core.receive(update) }
                }
                if !Task.isCancelled { self?.ended() }
            }
        }
    }

    /// `core` is told nothing more; the last member to leave ends the subscription.
    func leave(_ core: MonitorCore) {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.members[ObjectIdentifier(core)] = nil
            state.members = state.members.filter { $0.value.core != nil }
            guard state.members.isEmpty else { return nil }
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    private var members: [MonitorCore] {
        state.withLock { state in state.members.values.compactMap(\.core) }
    }

    /// The receiver has nothing more: neither has any monitor.
    private func ended() {
        let cores = state.withLock { state -> [MonitorCore] in
            defer {
                state.members = [:]
                state.task = nil
            }
            return state.members.values.compactMap(\.core)
        }
        for core in cores { core.feedEnded() }
    }
}
