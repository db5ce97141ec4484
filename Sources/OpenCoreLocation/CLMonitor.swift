// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

/// A condition a ``CLMonitor`` watches: ``CLMonitor/CircularGeographicCondition`` or
/// ``CLMonitor/BeaconIdentityCondition``.
public protocol CLCondition: Codable, Sendable {}

/// The state of a monitored condition.
public enum CLMonitoringState: UInt, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Not yet known (no confident fix since the condition was added).
    case unknown = 0
    case satisfied = 1
    case unsatisfied = 2
    /// The condition is not being monitored (unsupported, or over the limit).
    case unmonitored = 3

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .satisfied: "satisfied"
        case .unsatisfied: "unsatisfied"
        case .unmonitored: "unmonitored"
        }
    }

    /// Stored by name, so that a monitor's file reads plainly.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard
            let state = [Self.unknown, .satisfied, .unsatisfied, .unmonitored].first(where: {
                $0.description == name
            })
        else {
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

/// Watches conditions, such as being inside a circle, and reports their changes as events.
///
/// A monitor is opened by name; conditions and the last event the app consumed for each are
/// stored next to the authorization store (per client and name) and survive restarts. Opening
/// the same name again in a process gives the same live monitor, not a second one. Conditions are
/// evaluated while ``events`` is iterated, which acts as a when-in-use service session; each
/// client may monitor at most ``maximumGeographicConditions`` circles across its monitors.
public actor CLMonitor {
    public typealias Condition = CLCondition

    /// How many geographic conditions one client may monitor, across all its monitors; further
    /// ones are kept but unmonitored, with events that say `conditionLimitExceeded`.
    public static let maximumGeographicConditions = MonitorEngine.conditionLimit

    public nonisolated let name: String
    let core: any MonitorBackend

    /// Opens the monitor called `name` for the current ``LocationContext``'s client: in client
    /// mode, the one gpslocd keeps for the app.
    public init(_ name: String) async {
        self.name = name
        core = await LocationContext.current.monitor(named: name)
    }

    /// Adds `condition` under `identifier` (replacing any condition with that identifier) in the
    /// state `assuming`: an event follows only when the condition is found in another state.
    public func add(_ condition: any Condition, identifier: String, assuming state: CLMonitoringState) {
        core.add(condition, identifier: identifier, assuming: state)
    }

    /// Adds `condition` under `identifier` in the `unknown` state.
    public func add(_ condition: any Condition, identifier: String) {
        core.add(condition, identifier: identifier, assuming: .unknown)
    }

    /// Stops monitoring the condition and forgets it.
    public func remove(_ identifier: String) {
        core.remove(identifier)
    }

    /// The identifiers of the monitor's conditions, in the order they were added.
    public var identifiers: [String] { core.identifiers }

    /// The condition and the last event the app consumed for it.
    public func record(for identifier: String) -> Record? { core.record(for: identifier) }

    /// The events of every condition; iterate them to have the conditions monitored.
    public var events: Events { Events(core: core) }

    /// A circle on the ground: satisfied when the device is inside it.
    ///
    /// The fix's uncertainty counts: the state becomes `satisfied` only when the whole
    /// uncertainty circle (capped at half the radius) is inside, and `unsatisfied` only when it
    /// is wholly outside; in between the state stays as it was, so a device on the edge does not
    /// flap.
    public struct CircularGeographicCondition: Condition, Hashable {
        public let center: CLLocationCoordinate2D
        public let radius: CLLocationDistance

        public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) {
            self.center = center
            self.radius = radius
        }

        var isValid: Bool {
            CLLocationCoordinate2DIsValid(center) && radius.isFinite && radius > 0
        }

        // Spelled out: CLLocationCoordinate2D is not Equatable, as on Apple platforms.
        public static func == (a: Self, b: Self) -> Bool {
            a.center.latitude == b.center.latitude && a.center.longitude == b.center.longitude
                && a.radius == b.radius
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(center.latitude)
            hasher.combine(center.longitude)
            hasher.combine(radius)
        }

        /// The state a location shows, starting from `current`.
        func evaluate(_ location: CLLocation, from current: CLMonitoringState) -> CLMonitoringState {
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
            center = CLLocationCoordinate2D(
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
    /// There is no beacon hardware here: such conditions are kept but report
    /// `conditionUnsupported`.
    public struct BeaconIdentityCondition: Condition, Hashable {
        public let uuid: UUID
        public let major: CLBeaconMajorValue?
        public let minor: CLBeaconMinorValue?

        public init(uuid: UUID) {
            self.init(uuid: uuid, major: nil, minor: nil)
        }

        public init(uuid: UUID, major: CLBeaconMajorValue) {
            self.init(uuid: uuid, major: major, minor: nil)
        }

        public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue) {
            self.init(uuid: uuid, major: Optional(major), minor: Optional(minor))
        }

        private init(uuid: UUID, major: CLBeaconMajorValue?, minor: CLBeaconMinorValue?) {
            self.uuid = uuid
            self.major = major
            self.minor = minor
        }
    }

    /// A condition and the last event the app consumed for it.
    public struct Record: Sendable {
        public let condition: any Condition
        public let lastEvent: Event
    }

    /// A change of a condition's state, or why its events cannot be delivered.
    public struct Event: Sendable {
        public typealias State = CLMonitoringState

        public let identifier: String
        /// The most specific condition the event applies to (none for circles).
        public let refinement: (any Condition)?
        public let state: State
        public let date: Date
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRestricted: Bool
        public let authorizationRequestInProgress: Bool
        public let insufficientlyInUse: Bool
        public let serviceSessionRequired: Bool
        /// Geographic conditions are not evaluated under approximate location.
        public let accuracyLimited: Bool
        /// The condition's type cannot be monitored here.
        public let conditionUnsupported: Bool
        /// The client monitors more conditions of this type than allowed.
        public let conditionLimitExceeded: Bool
        /// The condition or its last event could not be stored.
        public let persistenceUnavailable: Bool
        /// Which addition of the identifier the event belongs to.
        let generation: Int
        /// The daemon's number for the event, which it is told back when the app receives it.
        let sequence: Int?

        init(
            identifier: String, state: State, date: Date, flags: MonitorFlags = MonitorFlags(),
            generation: Int, sequence: Int? = nil
        ) {
            self.identifier = identifier
            refinement = nil
            self.state = state
            self.date = date
            authorizationDenied = flags.authorization.authorizationDenied
            authorizationDeniedGlobally = flags.authorization.authorizationDeniedGlobally
            authorizationRestricted = flags.authorization.authorizationRestricted
            authorizationRequestInProgress = flags.authorization.authorizationRequestInProgress
            insufficientlyInUse = flags.authorization.insufficientlyInUse
            serviceSessionRequired = flags.authorization.serviceSessionRequired
            accuracyLimited = flags.authorization.accuracyLimited
            conditionUnsupported = flags.conditionUnsupported
            conditionLimitExceeded = flags.conditionLimitExceeded
            persistenceUnavailable = flags.persistenceUnavailable
            self.generation = generation
            self.sequence = sequence
        }

        /// What the event says beyond its state.
        var flags: MonitorFlags {
            var flags = MonitorFlags(
                conditionUnsupported: conditionUnsupported, conditionLimitExceeded: conditionLimitExceeded,
                persistenceUnavailable: persistenceUnavailable)
            flags.authorization.authorizationDenied = authorizationDenied
            flags.authorization.authorizationDeniedGlobally = authorizationDeniedGlobally
            flags.authorization.authorizationRestricted = authorizationRestricted
            flags.authorization.authorizationRequestInProgress = authorizationRequestInProgress
            flags.authorization.insufficientlyInUse = insufficientlyInUse
            flags.authorization.serviceSessionRequired = serviceSessionRequired
            flags.authorization.accuracyLimited = accuracyLimited
            return flags
        }
    }

    /// The monitor's events; each iteration is a subscriber of its own, and an event counts as
    /// consumed (it becomes the record's `lastEvent`) when the loop receives it.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        public typealias Failure = any Error

        let core: any MonitorBackend

        public func makeAsyncIterator() -> Iterator {
            Iterator(core: core, lease: MailboxLease(core.subscribe()))
        }

        public struct Iterator: AsyncIteratorProtocol {
            let core: any MonitorBackend
            let lease: MailboxLease<Event>

            public mutating func next() async throws -> Event? {
                guard let event = await lease.mailbox.next() else { return nil }
                core.consumed(event)
                return event
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error)
                -> Event?
            {
                guard let event = await lease.mailbox.next() else { return nil }
                core.consumed(event)
                return event
            }
        }
    }
}

extension CLMonitor.CircularGeographicCondition: CustomStringConvertible {
    public var description: String {
        String(format: "circle %.6f,%.6f radius %.0f m", center.latitude, center.longitude, radius)
    }
}
