// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
@_spi(FrontEnd) import LocationEngine
import LocationWire
import Locking

/// One monitor of a hosted app, as gpslocd keeps it: stored in the app's user's state, and
/// evaluated from the moment it has a condition, whether the app runs or not. What happened while
/// nobody listened waits for the app's next `events` loop.
final class HostedMonitor: Sendable {
    let name: String
    let core: MonitorCore
    /// Called after a condition was added or removed, for the app to open or close the session
    /// that keeps its monitors evaluated.
    private let changed: @Sendable () -> Void

    init(name: String, core: MonitorCore, changed: @escaping @Sendable () -> Void) {
        self.name = name
        self.core = core
        self.changed = changed
    }

    /// Starts evaluating the stored conditions, if there are any (once the app's sessions are
    /// what they should be, so that the first evaluation sees them).
    func evaluateStoredConditions() {
        if !core.identifiers.isEmpty { core.evaluateInBackground() }
    }

    /// Adds (or replaces) a condition; a beacon whose UUID or values do not parse is refused.
    func add(_ condition: WireCondition, identifier: String, assuming: WireMonitoringState)
        throws(WireError)
    {
        guard let condition = condition.condition else {
            throw WireError(
                "the beacon's 'uuid' must be a UUID, and 'major' and 'minor' 0…65535 (a minor needs a major)")
        }
        core.add(condition, identifier: identifier, assuming: MonitoringState(assuming))
        changed()
        core.evaluateInBackground()
    }

    func remove(_ identifier: String) {
        core.remove(identifier)
        changed()
    }

    var isEmpty: Bool { core.identifiers.isEmpty }

    /// The conditions, with the last event the app consumed for each.
    var records: [WireMonitorRecord] {
        core.identifiers.compactMap { identifier in
            guard let record = core.record(for: identifier), let condition = WireCondition(record.condition)
            else {
                return nil
            }
            return WireMonitorRecord(
                identifier: identifier, condition: condition, state: record.lastEvent.state.wire,
                date: record.lastEvent.date.timeIntervalSince1970, generation: record.lastEvent.generation)
        }
    }

    /// A subscriber to the events, for one connection.
    func subscribe() -> HostedMonitorFeed {
        HostedMonitorFeed(core: core, lease: MailboxLease(core.subscribe()))
    }
}

/// The events of a monitor for one connection: each numbered as it is sent, and counted as the
/// app's when the app says it received it. Those never acknowledged (or never sent) go back to
/// the monitor when the connection ends, for the app's next `events` loop.
final class HostedMonitorFeed: Sendable {
    /// Numbers events across the daemon, so an acknowledgement can never name another's event.
    private static let sequences = Atomic<Int>(0)

    private let core: MonitorCore
    private let lease: MailboxLease<MonitorEvent>
    private let sent = Mutex<[Int: MonitorEvent]>([:])

    init(core: MonitorCore, lease: MailboxLease<MonitorEvent>) {
        self.core = core
        self.lease = lease
    }

    /// The next event, or `nil` when the subscription is over.
    func next() async -> WireMonitorEvent? {
        guard let event = await lease.next() else { return nil }
        let sequence = Self.sequences.add(1, ordering: .relaxed).newValue
        sent.withLock { $0[sequence] = event }
        return event.wire(sequence: sequence)
    }

    /// The app received event `sequence`; `false` if it is not one of this feed's.
    func consumed(sequence: Int) -> Bool {
        guard let event = sent.withLock({ $0.removeValue(forKey: sequence) }) else { return false }
        core.consumed(event)
        return true
    }

    /// Ends the subscription; with `requeue`, the events sent and never acknowledged wait for
    /// the next subscriber.
    func cancel(requeue: Bool) {
        let unsent = lease.mailbox.close()
        let unacknowledged = sent.withLock { sent in
            defer { sent = [:] }
            return sent.sorted { $0.key < $1.key }.map(\.value)
        }
        if requeue { core.requeue(unacknowledged + unsent) }
    }
}
