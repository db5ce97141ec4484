// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import LocationEngine

// How a monitor's conditions and events cross the daemon's socket, both ways.

extension MonitoringState {
    /// The wire spells each state by its name.
    package init(_ wire: WireMonitoringState) {
        self = Self(name: wire.rawValue) ?? .unknown
    }

    package var wire: WireMonitoringState { WireMonitoringState(rawValue: description) ?? .unknown }
}

extension WireCondition {
    /// The condition as the engine has it; a beacon whose UUID or values do not parse is `nil`.
    package var condition: MonitorCondition? {
        switch self {
        case .circle(let latitude, let longitude, let radius):
            return .circle(
                GeographicCircle(center: Coordinate(latitude: latitude, longitude: longitude), radius: radius)
            )
        case .beacon(let text, let major, let minor):
            guard let uuid = UUID(uuidString: text) else { return nil }
            guard let major else {
                return minor == nil ? .beacon(BeaconIdentity(uuid: uuid, major: nil, minor: nil)) : nil
            }
            guard let major = UInt16(exactly: major) else { return nil }
            guard let minor else { return .beacon(BeaconIdentity(uuid: uuid, major: major, minor: nil)) }
            guard let minor = UInt16(exactly: minor) else { return nil }
            return .beacon(BeaconIdentity(uuid: uuid, major: major, minor: minor))
        }
    }

    /// A condition in its wire form; `nil` for a type of the app's own, which cannot be
    /// monitored or stored.
    package init?(_ condition: MonitorCondition) {
        switch condition {
        case .circle(let circle):
            self = .circle(
                latitude: circle.center.latitude, longitude: circle.center.longitude, radius: circle.radius)
        case .beacon(let beacon):
            self = .beacon(
                uuid: beacon.uuid.uuidString, major: beacon.major.map(Int.init),
                minor: beacon.minor.map(Int.init))
        case .other:
            return nil
        }
    }
}

extension MonitorFlags {
    package var wireNames: [String] {
        var names = authorization.setNames
        if conditionUnsupported { names.append("conditionUnsupported") }
        if conditionLimitExceeded { names.append("conditionLimitExceeded") }
        if persistenceUnavailable { names.append("persistenceUnavailable") }
        return names
    }

    package init(wireNames names: [String]) {
        self.init()
        authorization = AuthorizationFlags(named: names)
        conditionUnsupported = names.contains("conditionUnsupported")
        conditionLimitExceeded = names.contains("conditionLimitExceeded")
        persistenceUnavailable = names.contains("persistenceUnavailable")
    }
}

extension MonitorEvent {
    package init(wire: WireMonitorEvent) {
        self.init(
            identifier: wire.identifier, state: MonitoringState(wire.state),
            date: Date(timeIntervalSince1970: wire.date), generation: wire.generation)
        flags = MonitorFlags(wireNames: wire.flags)
        sequence = wire.sequence
    }

    package func wire(sequence: Int) -> WireMonitorEvent {
        WireMonitorEvent(
            identifier: identifier, state: state.wire, date: date.timeIntervalSince1970,
            flags: flags.wireNames,
            generation: generation, sequence: sequence)
    }
}
