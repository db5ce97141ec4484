// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire

// How a monitor's conditions and events cross the daemon's socket, both ways.

extension CLMonitoringState {
    init(_ wire: WireMonitoringState) {
        switch wire {
        case .unknown: self = .unknown
        case .satisfied: self = .satisfied
        case .unsatisfied: self = .unsatisfied
        case .unmonitored: self = .unmonitored
        }
    }

    var wire: WireMonitoringState {
        switch self {
        case .unknown: .unknown
        case .satisfied: .satisfied
        case .unsatisfied: .unsatisfied
        case .unmonitored: .unmonitored
        }
    }
}

extension WireCondition {
    /// The condition as the API has it; a beacon whose UUID or values do not parse is `nil`.
    var condition: (any CLCondition)? {
        switch self {
        case .circle(let latitude, let longitude, let radius):
            return CLMonitor.CircularGeographicCondition(
                center: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), radius: radius)
        case .beacon(let text, let major, let minor):
            guard let uuid = UUID(uuidString: text) else { return nil }
            guard let major else { return minor == nil ? CLMonitor.BeaconIdentityCondition(uuid: uuid) : nil }
            guard let major = CLBeaconMajorValue(exactly: major) else { return nil }
            guard let minor else { return CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major) }
            guard let minor = CLBeaconMinorValue(exactly: minor) else { return nil }
            return CLMonitor.BeaconIdentityCondition(uuid: uuid, major: major, minor: minor)
        }
    }

    /// A condition of the API's in its wire form; `nil` for a type of the app's own, which
    /// cannot be monitored or stored.
    init?(_ condition: any CLCondition) {
        if let circle = condition as? CLMonitor.CircularGeographicCondition {
            self = .circle(
                latitude: circle.center.latitude, longitude: circle.center.longitude, radius: circle.radius)
        } else if let beacon = condition as? CLMonitor.BeaconIdentityCondition {
            self = .beacon(
                uuid: beacon.uuid.uuidString, major: beacon.major.map(Int.init),
                minor: beacon.minor.map(Int.init))
        } else {
            return nil
        }
    }
}

extension MonitorFlags {
    var wireNames: [String] {
        var names = authorization.wireNames
        if conditionUnsupported { names.append("conditionUnsupported") }
        if conditionLimitExceeded { names.append("conditionLimitExceeded") }
        if persistenceUnavailable { names.append("persistenceUnavailable") }
        return names
    }

    init(wireNames names: [String]) {
        self.init(
            authorization: AuthorizationFlags(wireNames: names),
            conditionUnsupported: names.contains("conditionUnsupported"),
            conditionLimitExceeded: names.contains("conditionLimitExceeded"),
            persistenceUnavailable: names.contains("persistenceUnavailable"))
    }
}

extension CLMonitor.Event {
    init(wire: WireMonitorEvent) {
        self.init(
            identifier: wire.identifier, state: CLMonitoringState(wire.state),
            date: Date(timeIntervalSince1970: wire.date), flags: MonitorFlags(wireNames: wire.flags),
            generation: wire.generation, sequence: wire.sequence)
    }

    func wire(sequence: Int) -> WireMonitorEvent {
        WireMonitorEvent(
            identifier: identifier, state: state.wire, date: date.timeIntervalSince1970,
            flags: flags.wireNames,
            generation: generation, sequence: sequence)
    }
}
