// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
@_spi(FrontEnd) import LocationEngine
import LocationWire
import Locking

/// A monitor gpslocd keeps for the app (client mode): the daemon stores its conditions and
/// evaluates them, whether the app runs or not, and keeps what happened while nobody listened
/// for the next iteration of `events`. This side mirrors the conditions for ``identifiers`` and
/// ``record(for:)`` (fetched when the monitor opens, then kept in step with what the app does),
/// and tells the daemon which events the app received.
final class RemoteMonitor: MonitorBackend {
    let name: String
    private let client: DaemonClient
    private let log: @Sendable (String) -> Void

    private struct Entry {
        var identifier: String
        var condition: MonitorCondition
        var lastEvent: MonitorEvent
    }

    private final class Mirror: Sendable {
        let entries = Mutex<[Entry]>([])
    }

    private let mirror = Mirror()
    private let fetch: Task<Void, Never>

    init(name: String, client: DaemonClient, log: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.client = client
        self.log = log
        let mirror = mirror
        fetch = Task {
            switch await client.call(.monitorRecords(monitor: name)) {
            case .records(_, let records)?:
                let loaded = records.compactMap { record -> Entry? in
                    guard let condition = record.condition.condition else { return nil }
                    return Entry(
                        identifier: record.identifier, condition: condition,
                        lastEvent: MonitorEvent(
                            identifier: record.identifier, state: MonitoringState(record.state),
                            date: Date(timeIntervalSince1970: record.date), generation: record.generation))
                }
                mirror.entries.withLock { $0 = loaded }
            case .error(_, let message)?:
                log("monitor \"\(name)\": gpslocd refused its conditions: \(message)")
            default:
                log(
                    "monitor \"\(name)\": gpslocd at \(client.path) did not answer; its conditions are "
                        + "unknown here until it does (they are kept by the daemon)")
            }
        }
    }

    /// Waits until the conditions were fetched (or the daemon could not give them).
    func loaded() async { await fetch.value }

    func add(_ condition: MonitorCondition, identifier: String, assuming: MonitoringState) {
        mirror.entries.withLock { entries in
            entries.removeAll { $0.identifier == identifier }
            entries.append(
                Entry(
                    identifier: identifier, condition: condition,
                    lastEvent: MonitorEvent(
                        identifier: identifier, state: assuming, date: Date(), generation: 0)))
        }
        guard let wire = WireCondition(condition) else {
            log(
                "monitor \"\(name)\": condition \"\(identifier)\" is a \(condition.typeName), which is not "
                    + "monitored or stored")
            return
        }
        warnIfAway("added", identifier)
        client.send(.addCondition(monitor: name, identifier: identifier, wire, assuming: assuming.wire))
    }

    /// A change made while the daemon is away never reaches it: say so, rather than lose it quietly.
    private func warnIfAway(_ change: String, _ identifier: String) {
        guard !client.isConnected else { return }
        log(
            "monitor \"\(name)\": gpslocd at \(client.path) is not reachable, so condition \"\(identifier)\" "
                + "was not \(change) there; do it again once the daemon is back")
    }

    func remove(_ identifier: String) {
        mirror.entries.withLock { $0.removeAll { $0.identifier == identifier } }
        warnIfAway("removed", identifier)
        client.send(.removeCondition(monitor: name, identifier: identifier))
    }

    var identifiers: [String] { mirror.entries.withLock { $0.map(\.identifier) } }

    func record(for identifier: String) -> MonitorRecord? {
        mirror.entries.withLock { entries in
            entries.first { $0.identifier == identifier }.map {
                ($0.condition, $0.lastEvent)
            }
        }
    }

    func subscribe() -> Mailbox<MonitorEvent> {
        client.subscribeMonitor(name: name)
    }

    func consumed(_ event: MonitorEvent) {
        mirror.entries.withLock { entries in
            if let index = entries.firstIndex(where: { $0.identifier == event.identifier }) {
                entries[index].lastEvent = event
            }
        }
        if let sequence = event.sequence { client.send(.consumedEvent(sequence: sequence)) }
    }
}
