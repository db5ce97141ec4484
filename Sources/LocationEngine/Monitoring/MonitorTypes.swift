// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS

/// The state of a monitored condition; stored by name, so that a monitor's file reads plainly.
public enum MonitoringState: UInt, Sendable, Hashable, Codable, CaseNamed {
    /// Not yet known (no confident fix since the condition was added).
    case unknown = 0
    case satisfied = 1
    case unsatisfied = 2
    /// The condition is not being monitored (unsupported, or over the limit).
    case unmonitored = 3

    private static let names = ["unknown", "satisfied", "unsatisfied", "unmonitored"]

    public var description: String { Self.names[Int(rawValue)] }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let state = Self(name: name) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(name)\" is not a monitoring state")
        }
        self = state
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A circle on the ground: satisfied while the device is inside it.
public struct GeographicCircle: Sendable, Hashable, Codable {
    public var center: Coordinate
    /// Metres.
    public var radius: Double

    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }

    public var isValid: Bool { center.isValid && radius.isFinite && radius > 0 }

    /// The state a location shows, starting from `current`: `satisfied` only when the whole
    /// uncertainty circle (capped at half the radius) is inside, `unsatisfied` only when it is
    /// wholly outside; in between the state stays as it was, so a device on the edge does not flap.
    public func evaluate(_ location: Location, from current: MonitoringState) -> MonitoringState {
        let uncertainty = max(0, location.horizontalAccuracy)
        let distance = Geodesy.distance(
            latitude1: center.latitude, longitude1: center.longitude,
            latitude2: location.coordinate.latitude, longitude2: location.coordinate.longitude)
        if distance <= radius - min(uncertainty, radius / 2) { return .satisfied }
        if distance > radius + uncertainty { return .unsatisfied }
        return current
    }

    enum CodingKeys: String, CodingKey { case latitude, longitude, radius }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        center = Coordinate(
            latitude: try c.decode(Double.self, forKey: .latitude),
            longitude: try c.decode(Double.self, forKey: .longitude))
        radius = try c.decode(Double.self, forKey: .radius)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(center.latitude, forKey: .latitude)
        try c.encode(center.longitude, forKey: .longitude)
        try c.encode(radius, forKey: .radius)
    }
}

/// Beacons with a UUID and, optionally, a major and minor value (omitted ones match any).
public struct BeaconIdentity: Sendable, Hashable, Codable {
    public var uuid: UUID
    public var major: UInt16?
    public var minor: UInt16?

    public init(uuid: UUID, major: UInt16?, minor: UInt16?) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }
}

/// What a monitor watches. Only circles are evaluated here: there is no beacon hardware, so a
/// beacon is kept and stored but reports `conditionUnsupported`, and a condition of another kind
/// (an app's own type) is kept in memory only, opaque to the engine.
public enum MonitorCondition: Sendable {
    case circle(GeographicCircle)
    case beacon(BeaconIdentity)
    /// A condition the engine does not know; `value` is the app's own, handed back unchanged.
    case other(typeName: String, value: any Sendable)

    /// The name of the condition's type, for messages.
    public var typeName: String {
        switch self {
        case .circle: "GeographicCircle"
        case .beacon: "BeaconIdentity"
        case .other(let typeName, _): typeName
        }
    }

    /// The circle, when this is a valid one (the only kind that is evaluated).
    public var monitoredCircle: GeographicCircle? {
        guard case .circle(let circle) = self, circle.isValid else { return nil }
        return circle
    }
}

/// What an event says beyond its state.
public struct MonitorFlags: Sendable, Hashable {
    public var authorization = AuthorizationFlags()
    public var conditionUnsupported = false
    public var conditionLimitExceeded = false
    public var persistenceUnavailable = false

    public init() {}
}

/// A change of a condition's state, or of why its events cannot be delivered.
public struct MonitorEvent: Sendable, Hashable {
    public var identifier: String
    public var state: MonitoringState
    public var date: Date
    public var flags = MonitorFlags()
    /// Which addition of the identifier the event belongs to; events of an earlier one are stale.
    public var generation: Int
    /// The daemon's number for the event, which it is told back when the app receives it.
    public var sequence: Int?

    /// An event that says only its condition's state (no flags), numbered by no daemon yet.
    public init(identifier: String, state: MonitoringState, date: Date, generation: Int) {
        self.identifier = identifier
        self.state = state
        self.date = date
        self.generation = generation
    }
}

/// A condition and the last event the app consumed for it.
public typealias MonitorRecord = (condition: MonitorCondition, lastEvent: MonitorEvent)

/// What a monitor of an app talks to: the one kept and evaluated by the engine (``MonitorCore``),
/// or, for a client of gpslocd, the one the daemon keeps. Every monitor opened with one name in
/// one app shares one backend.
package protocol MonitorBackend: AnyObject, Sendable {
    func add(_ condition: MonitorCondition, identifier: String, assuming: MonitoringState)
    func remove(_ identifier: String)
    /// The identifiers of the conditions, in the order they were added.
    var identifiers: [String] { get }
    func record(for identifier: String) -> MonitorRecord?
    /// A new subscriber to the events, those that came while nobody listened first.
    func subscribe() -> Mailbox<MonitorEvent>
    /// The app received `event`: it becomes its condition's last event.
    func consumed(_ event: MonitorEvent)
}
