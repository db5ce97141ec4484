// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

/// A monitor's rules as a pure state machine: the conditions in the order they were added, the
/// state each was last reported in, the limit on geographic conditions, and the events that
/// changes of position, authorization or storage lead to.
///
/// An event is due whenever what a condition would say (its state and flags) differs from what
/// it last said, so every event is a change and nothing is repeated.
package struct MonitorEngine: Sendable {
    /// Geographic conditions one client may monitor, across its monitors.
    package static let conditionLimit = 20

    struct Entry: Sendable {
        var identifier: String
        var condition: MonitorCondition
        /// Which addition of the identifier this is; events of an earlier one are stale.
        var generation: Int
        /// The state found by the last evaluation (or assumed when added).
        var state: MonitoringState
        /// What the last event said, so that only changes are reported.
        var reported: MonitoringState
        var reportedFlags = MonitorFlags()
        /// The last event the app consumed.
        var lastEvent: MonitorEvent
        var limitExceeded = false

        var circle: GeographicCircle? { condition.monitoredCircle }
        var isMonitored: Bool { circle != nil && !limitExceeded }
    }

    private(set) var entries: [Entry] = []
    /// Geographic conditions the client has in its other monitors.
    var othersCount = 0
    /// The authorization flags of the latest update from the service.
    private(set) var authorization = AuthorizationFlags()
    private(set) var persistenceFailing = false
    private var generations = 0

    /// The entry for an identifier.
    func entry(_ identifier: String) -> Entry? {
        entries.first { $0.identifier == identifier }
    }

    /// Puts back a stored condition, in the state of its last consumed event.
    /// A monitored condition last seen unmonitored starts again from `unknown`.
    mutating func restore(
        _ condition: MonitorCondition, identifier: String, lastEvent: (MonitoringState, Date)
    ) {
        generations += 1
        entries.append(
            Entry(
                identifier: identifier, condition: condition, generation: generations,
                state: lastEvent.0 == .unmonitored ? .unknown : lastEvent.0, reported: lastEvent.0,
                lastEvent: MonitorEvent(
                    identifier: identifier, state: lastEvent.0, date: lastEvent.1, generation: generations)))
    }

    /// Adds (or replaces) a condition in the state `assuming`.
    mutating func add(
        _ condition: MonitorCondition, identifier: String, assuming: MonitoringState, date: Date
    ) -> [MonitorEvent] {
        entries.removeAll { $0.identifier == identifier }
        restore(condition, identifier: identifier, lastEvent: (assuming, date))
        return refresh(date: date)
    }

    /// Forgets a condition; one waiting beyond the limit may take its place.
    mutating func remove(_ identifier: String, date: Date) -> [MonitorEvent] {
        entries.removeAll { $0.identifier == identifier }
        return refresh(date: date)
    }

    /// An update from the location service: its authorization flags, and a precise location to
    /// evaluate the geographic conditions against, if it has one.
    mutating func update(authorization: AuthorizationFlags, location: Location?, date: Date)
        -> [MonitorEvent]
    {
        self.authorization = authorization
        if let location {
            for index in entries.indices where entries[index].isMonitored {
                entries[index].state = entries[index].circle!.evaluate(location, from: entries[index].state)
            }
        }
        return refresh(date: location?.timestamp ?? date)
    }

    /// Storing the conditions failed (or works again).
    mutating func persistence(failing: Bool, date: Date) -> [MonitorEvent] {
        persistenceFailing = failing
        return refresh(date: date)
    }

    /// The app received `event`; returns whether the record changed.
    mutating func consumed(_ event: MonitorEvent) -> Bool {
        guard let index = entries.firstIndex(where: { $0.identifier == event.identifier }),
            entries[index].generation == event.generation
        else { return false }
        entries[index].lastEvent = event
        return true
    }

    /// Applies the limit, then gives an event for every condition whose state or flags differ
    /// from what it last said.
    mutating func refresh(date: Date) -> [MonitorEvent] {
        var count = othersCount
        for index in entries.indices where entries[index].circle != nil {
            let exceeded = count >= Self.conditionLimit
            count += 1
            if entries[index].limitExceeded && !exceeded { entries[index].state = .unknown }
            entries[index].limitExceeded = exceeded
        }
        var events: [MonitorEvent] = []
        for index in entries.indices {
            let entry = entries[index]
            var flags = MonitorFlags()
            flags.persistenceUnavailable = persistenceFailing
            let state: MonitoringState
            if entry.circle == nil {
                flags.conditionUnsupported = true
                state = .unmonitored
            } else if entry.limitExceeded {
                flags.conditionLimitExceeded = true
                state = .unmonitored
            } else {
                flags.authorization = authorization
                state = entry.state
            }
            guard state != entry.reported || flags != entry.reportedFlags else { continue }
            entries[index].reported = state
            entries[index].reportedFlags = flags
            var event = MonitorEvent(
                identifier: entry.identifier, state: state, date: date, generation: entry.generation)
            event.flags = flags
            events.append(event)
        }
        return events
    }
}
