// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

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

    /// The kind of activity updates are for, as Apple declares it (an exhaustive `switch` needs no
    /// `default`); it tunes stationary detection, it does not suppress updates.
    public enum LiveConfiguration: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case `default` = 0
        case automotiveNavigation = 1
        case otherNavigation = 2
        case fitness = 3
        case airborne = 4

        public var description: String { "\(activity)" }

        /// The activity this configuration stands for.
        public var activity: Activity { Activity(rawValue: rawValue)! }
    }

    /// The activities updates can be tuned for: Apple's ``LiveConfiguration`` and a boat's,
    /// `maritime`, which Apple does not have (``liveUpdates(for:)``). The engine's
    /// `ActivityProfile`: the same cases and raw values, and the `stationaryTuning` each gives.
    public typealias Activity = ActivityProfile

    /// Updates tuned for an ``Activity``, including those Apple's ``LiveConfiguration`` lacks
    /// (`.maritime`); otherwise the same as ``liveUpdates(_:)``.
    public static func liveUpdates(for activity: Activity) -> Updates {
        Updates(context: LocationContext.current, configuration: activity)
    }

    /// Updates from the current `LocationContext`'s receiver. Iterating acts as a
    /// when-in-use service session (unless the manifest requires explicit sessions); breaking out
    /// of the loop or cancelling its task ends the updates.
    public static func liveUpdates(_ configuration: LiveConfiguration = .default) -> Updates {
        Updates(context: LocationContext.current, configuration: configuration.activity)
    }

    /// ``liveUpdates(_:)`` with the default configuration, for `for try await update in
    /// CLLocationUpdate.liveUpdates { … }`.
    public static var liveUpdates: Updates { liveUpdates(.default) }

    /// The asynchronous sequence of updates; each iteration is a subscription of its own.
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = CLLocationUpdate
        public typealias Failure = any Error

        let context: LocationContext
        let configuration: Activity
        /// Reduced locations whatever the authorization (`CLLocationManager.desiredAccuracy`).
        var reduced = false
        /// Every fix, without pausing while still (`pausesLocationUpdatesAutomatically = false`).
        var continuous = false
        /// Whether iterating holds an implicit when-in-use session, which asks the user; the
        /// delegate API's updates do not.
        var implicitSession = true

        public func makeAsyncIterator() -> Iterator {
            Iterator(
                updates: context.liveUpdates(
                    for: configuration, reduced: reduced, continuous: continuous,
                    implicitSession: implicitSession
                ).makeAsyncIterator())
        }

        public struct Iterator: AsyncIteratorProtocol {
            var updates: LiveUpdates.Iterator

            public mutating func next() async throws -> CLLocationUpdate? {
                await updates.next().map(CLLocationUpdate.init)
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error)
                -> CLLocationUpdate?
            {
                await updates.next(isolation: actor).map(CLLocationUpdate.init)
            }
        }
    }
}
