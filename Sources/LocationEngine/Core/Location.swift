// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

/// A latitude and longitude in degrees, WGS 84.
public struct Coordinate: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Within ±90° latitude and ±180° longitude, and finite.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}

/// A position as the engine hands it to a subscriber: precise (from one fix) or reduced (the
/// accuracy reducer's cell centre, with speed, course and altitude withheld). Values that are not
/// known are negative (−1), as Core Location reports them; a new location knows only its position,
/// accuracy and time, and the rest is set on it.
public struct Location: Sendable, Hashable {
    public var coordinate: Coordinate
    /// Above mean sea level, metres; 0 when not known.
    public var altitude = 0.0
    /// Above the WGS 84 ellipsoid, metres; 0 when not known.
    public var ellipsoidalAltitude = 0.0
    /// The radius of uncertainty, metres.
    public var horizontalAccuracy: Double
    /// Negative when the altitude is not known.
    public var verticalAccuracy = -1.0
    /// Degrees from true north, 0..<360; negative when not known.
    public var course = -1.0
    public var courseAccuracy = -1.0
    /// Metres per second; negative when not known.
    public var speed = -1.0
    public var speedAccuracy = -1.0
    /// The fix's own time (the receiver's), or the reducer's for a reduced location.
    public var timestamp: Date
    /// Where the location came from, when that is known.
    public var source: Source?
    /// The receiver's true heading at the fix, when it gives one.
    public var heading: Heading?

    /// A position with its accuracy and time; nothing else known yet.
    public init(coordinate: Coordinate, horizontalAccuracy: Double, timestamp: Date) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.timestamp = timestamp
    }

    /// Where a location came from.
    public struct Source: Sendable, Hashable {
        /// Produced by software (a replayed log).
        public var isSimulatedBySoftware: Bool
        /// Produced by an external device (a GNSS receiver).
        public var isProducedByAccessory: Bool

        public init(isSimulatedBySoftware: Bool, isProducedByAccessory: Bool) {
            self.isSimulatedBySoftware = isSimulatedBySoftware
            self.isProducedByAccessory = isProducedByAccessory
        }
    }

    /// A true heading, with the magnetic variation when the receiver gives it.
    public struct Heading: Sendable, Hashable {
        /// Degrees from true north, 0..<360.
        public var trueHeading: Double
        /// Degrees east of true north; `nil` when not known.
        public var magneticVariation: Double?

        public init(trueHeading: Double, magneticVariation: Double?) {
            self.trueHeading = trueHeading
            self.magneticVariation = magneticVariation
        }

        /// The heading from magnetic north, 0..<360 (the true heading without a variation).
        public var magneticHeading: Double {
            var magnetic = trueHeading - (magneticVariation ?? 0)
            magnetic = magnetic.truncatingRemainder(dividingBy: 360)
            if magnetic < 0 { magnetic += 360 }
            return magnetic
        }
    }
}

/// What one subscriber is told: a location, or why there is none, with the authorization's
/// flags at that moment.
public struct LocationUpdate: Sendable, Hashable {
    public var location: Location?
    public var flags: AuthorizationFlags
    /// The device has stood still long enough for updates to pause.
    public var isStationary: Bool
    /// No position can be had now.
    public var locationUnavailable: Bool

    public init(
        location: Location?, flags: AuthorizationFlags, stationary: Bool = false, unavailable: Bool = false
    ) {
        self.location = location
        self.flags = flags
        isStationary = stationary
        locationUnavailable = unavailable
    }
}

/// Why a request for temporary precise location was refused.
public struct AccuracyRequestRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The app may not ask (no purpose key, not authorized, not in use).
        case denied
        /// The user declined.
        case promptDeclined
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
