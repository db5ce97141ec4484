/// One element of ``liveUpdates(_:)``: a location, or why there is none, with the state of the
/// service at that moment.
public struct CLLocationUpdate: Sendable {
    /// The latest location; `nil` when none can be given (see the flags).
    public let location: CLLocation?
    /// Updates pause after this one because the device stopped moving.
    public let isStationary: Bool
    public let locationUnavailable: Bool
    /// The authorization flags; the properties below read them.
    let flags: AuthorizationFlags

    public var authorizationDenied: Bool { flags.authorizationDenied }
    public var authorizationDeniedGlobally: Bool { flags.authorizationDeniedGlobally }
    public var authorizationRestricted: Bool { flags.authorizationRestricted }
    public var authorizationRequestInProgress: Bool { flags.authorizationRequestInProgress }
    public var insufficientlyInUse: Bool { flags.insufficientlyInUse }
    public var accuracyLimited: Bool { flags.accuracyLimited }
    public var serviceSessionRequired: Bool { flags.serviceSessionRequired }

    /// The newer spelling of ``isStationary``.
    public var stationary: Bool { isStationary }

    init(
        location: CLLocation?, flags: AuthorizationFlags, stationary: Bool = false,
        unavailable: Bool = false
    ) {
        self.location = location
        self.flags = flags
        isStationary = stationary
        locationUnavailable = unavailable
    }

    /// The kind of activity updates are for; it tunes filtering and stationary detection, it does
    /// not suppress updates.
    public struct LiveConfiguration: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let `default` = LiveConfiguration(rawValue: 0)
        public static let automotiveNavigation = LiveConfiguration(rawValue: 1)
        public static let otherNavigation = LiveConfiguration(rawValue: 2)
        public static let fitness = LiveConfiguration(rawValue: 3)
        public static let airborne = LiveConfiguration(rawValue: 4)
        public static let maritime = LiveConfiguration(rawValue: 5)

        public var description: String {
            switch rawValue {
            case 1: "automotiveNavigation"
            case 2: "otherNavigation"
            case 3: "fitness"
            case 4: "airborne"
            case 5: "maritime"
            default: "default"
            }
        }

        /// How long and how still a device must be to count as stationary for this activity.
        public var stationaryTuning: StationaryDetector.Tuning {
            switch rawValue {
            case 1: .init(radius: 25, duration: 180, speed: 1.0)  // traffic lights are not a stop
            case 2: .init(radius: 15, duration: 120, speed: 0.5)
            case 3: .init(radius: 10, duration: 120, speed: 0.3)  // a runner's pause
            case 4: .init(radius: 50, duration: 300, speed: 2.0)
            case 5: .init(radius: 60, duration: 300, speed: 0.5)  // a boat swinging at anchor
            default: .init(radius: 15, duration: 60, speed: 0.5)
            }
        }
    }

    /// Updates from the current ``LocationContext``'s receiver. Iterating acts as a
    /// when-in-use service session (unless the manifest requires explicit sessions); breaking out
    /// of the loop or cancelling its task ends the updates.
    public static func liveUpdates(_ configuration: LiveConfiguration = .default) -> Updates {
        Updates(context: LocationContext.current, configuration: configuration)
    }

    /// ``liveUpdates(_:)`` with the default configuration, for `for try await update in
    /// CLLocationUpdate.liveUpdates { … }`.
    public static var liveUpdates: Updates { liveUpdates(.default) }

    /// The asynchronous sequence of updates; each iteration is a subscription of its own.
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = CLLocationUpdate
        public typealias Failure = any Error

        let context: LocationContext
        let configuration: LiveConfiguration
        /// Reduced locations whatever the authorization (`CLLocationManager.desiredAccuracy`).
        var reduced = false

        public func makeAsyncIterator() -> Iterator {
            Iterator(
                lease: MailboxLease(
                    context.subscribeUpdates(configuration: configuration, wantsReduced: reduced)))
        }

        public struct Iterator: AsyncIteratorProtocol {
            let lease: MailboxLease<CLLocationUpdate>

            public mutating func next() async throws -> CLLocationUpdate? {
                await lease.mailbox.next()
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error)
                -> CLLocationUpdate?
            {
                await lease.mailbox.next()
            }
        }
    }
}
