// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
@_spi(FrontEnd) import LocationEngine

/// A condition a ``CLMonitor`` watches: ``CLMonitor/CircularGeographicCondition`` or
/// ``CLMonitor/BeaconIdentityCondition``.
public protocol CLCondition: Codable, Sendable {}

/// The state of a monitored condition: the engine's `MonitoringState`, under Core Location's name
/// (`unknown`, `satisfied`, `unsatisfied`, `unmonitored`; stored by name).
public typealias CLMonitoringState = MonitoringState

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

    /// Opens the monitor called `name` for the current `LocationContext`'s client: in client
    /// mode, the one gpslocd keeps for the app.
    public init(_ name: String) async {
        self.name = name
        core = await LocationContext.current.monitor(named: name)
    }

    /// Adds `condition` under `identifier` (replacing any condition with that identifier) in the
    /// state `assuming`: an event follows only when the condition is found in another state.
    public func add(_ condition: any Condition, identifier: String, assuming state: CLMonitoringState) {
        core.add(monitorCondition(condition), identifier: identifier, assuming: state)
    }

    /// Adds `condition` under `identifier` in the `unknown` state.
    public func add(_ condition: any Condition, identifier: String) {
        core.add(monitorCondition(condition), identifier: identifier, assuming: .unknown)
    }

    /// Stops monitoring the condition and forgets it.
    public func remove(_ identifier: String) {
        core.remove(identifier)
    }

    /// The identifiers of the monitor's conditions, in the order they were added.
    public var identifiers: [String] { core.identifiers }

    /// The condition and the last event the app consumed for it.
    public func record(for identifier: String) -> Record? {
        core.record(for: identifier).map {
            Record(condition: apiCondition($0.condition), lastEvent: Event($0.lastEvent))
        }
    }

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

        /// Stored as the engine stores a circle: `latitude`, `longitude`, `radius`.
        public init(from decoder: any Decoder) throws {
            self.init(try GeographicCircle(from: decoder))
        }

        public func encode(to encoder: any Encoder) throws {
            try GeographicCircle(
                center: Coordinate(latitude: center.latitude, longitude: center.longitude), radius: radius
            ).encode(to: encoder)
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

        /// The engine's event this one shows: every property below reads it.
        let engineEvent: MonitorEvent

        public var identifier: String { engineEvent.identifier }
        /// The most specific condition the event applies to (none for circles).
        public var refinement: (any Condition)? { nil }
        public var state: State { engineEvent.state }
        public var date: Date { engineEvent.date }
        public var authorizationDenied: Bool { engineEvent.flags.authorization.authorizationDenied }
        public var authorizationDeniedGlobally: Bool {
            engineEvent.flags.authorization.authorizationDeniedGlobally
        }
        public var authorizationRestricted: Bool { engineEvent.flags.authorization.authorizationRestricted }
        public var authorizationRequestInProgress: Bool {
            engineEvent.flags.authorization.authorizationRequestInProgress
        }
        public var insufficientlyInUse: Bool { engineEvent.flags.authorization.insufficientlyInUse }
        public var serviceSessionRequired: Bool { engineEvent.flags.authorization.serviceSessionRequired }
        /// Geographic conditions are not evaluated under approximate location.
        public var accuracyLimited: Bool { engineEvent.flags.authorization.accuracyLimited }
        /// The condition's type cannot be monitored here.
        public var conditionUnsupported: Bool { engineEvent.flags.conditionUnsupported }
        /// The client monitors more conditions of this type than allowed.
        public var conditionLimitExceeded: Bool { engineEvent.flags.conditionLimitExceeded }
        /// The condition or its last event could not be stored.
        public var persistenceUnavailable: Bool { engineEvent.flags.persistenceUnavailable }

        /// The event the engine handed out.
        init(_ event: MonitorEvent) {
            engineEvent = event
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
            let lease: MailboxLease<MonitorEvent>

            public mutating func next() async throws -> Event? {
                guard let event = await lease.next() else { return nil }
                core.consumed(event)
                return Event(event)
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error)
                -> Event?
            {
                guard let event = await lease.next() else { return nil }
                core.consumed(event)
                return Event(event)
            }
        }
    }
}

extension CLMonitor.CircularGeographicCondition: CustomStringConvertible {
    public var description: String {
        String(format: "circle %.6f,%.6f radius %.0f m", center.latitude, center.longitude, radius)
    }
}
