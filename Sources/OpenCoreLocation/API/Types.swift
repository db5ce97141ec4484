// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import LocationEngine

public typealias CLLocationDegrees = Double
public typealias CLLocationDistance = Double
public typealias CLLocationAccuracy = Double
public typealias CLLocationSpeed = Double
public typealias CLLocationSpeedAccuracy = Double
public typealias CLLocationDirection = Double
public typealias CLLocationDirectionAccuracy = Double
public typealias CLBeaconMajorValue = UInt16
public typealias CLBeaconMinorValue = UInt16

/// A latitude and longitude in degrees, WGS 84.
public struct CLLocationCoordinate2D: Sendable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees

    public init() {
        latitude = 0
        longitude = 0
    }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Whether a coordinate lies within ±90° latitude and ±180° longitude.
public func CLLocationCoordinate2DIsValid(_ coordinate: CLLocationCoordinate2D) -> Bool {
    coordinate.latitude.isFinite && coordinate.longitude.isFinite
        && abs(coordinate.latitude) <= 90 && abs(coordinate.longitude) <= 180
}

/// A coordinate, as Core Location's C function makes one.
public func CLLocationCoordinate2DMake(
    _ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees
) -> CLLocationCoordinate2D {
    CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}

/// The largest distance, and the longest time interval, Core Location's APIs take ("no limit").
public let CLLocationDistanceMax: CLLocationDistance = .greatestFiniteMagnitude
public let CLTimeIntervalMax: TimeInterval = .greatestFiniteMagnitude
/// The heading filter value meaning "every change".
public let kCLHeadingFilterNone: CLLocationDirection = -1

/// The coordinate Core Location uses for "no coordinate".
public let kCLLocationCoordinate2DInvalid = CLLocationCoordinate2D(latitude: -180, longitude: -180)
/// The distance filter value meaning "every movement".
public let kCLDistanceFilterNone: CLLocationDistance = -1
public let kCLLocationAccuracyBestForNavigation: CLLocationAccuracy = -2
public let kCLLocationAccuracyBest: CLLocationAccuracy = -1
public let kCLLocationAccuracyNearestTenMeters: CLLocationAccuracy = 10
public let kCLLocationAccuracyHundredMeters: CLLocationAccuracy = 100
public let kCLLocationAccuracyKilometer: CLLocationAccuracy = 1000
public let kCLLocationAccuracyThreeKilometers: CLLocationAccuracy = 3000
/// Asks for reduced ("approximate") locations (`CLLocationManager.desiredAccuracy`); Apple's value.
/// The `horizontalAccuracy` such locations actually carry is their cell's radius: 3,600 m for
/// every cell but those within 0.2° of a pole (3,700 m there), and the
/// position itself is also moved by a secret offset of about 2.5 km per axis (see PRIVACY.md).
public let kCLLocationAccuracyReduced: CLLocationAccuracy = 3000

/// What the user, an administrator or the system decided about an app's use of location: the
/// engine's `AuthorizationStatus`, under Core Location's name (the same cases and raw values).
public typealias CLAuthorizationStatus = AuthorizationStatus

extension AuthorizationStatus {
    /// macOS's name for Always authorization (the same raw value, 3).
    @available(*, deprecated, renamed: "authorizedAlways")
    public static var authorized: CLAuthorizationStatus { .authorizedAlways }
}

/// Whether an app receives precise locations or approximate ones: the engine's
/// `AccuracyAuthorization`, under Core Location's name.
public typealias CLAccuracyAuthorization = AccuracyAuthorization

/// Where a location came from.
public final class CLLocationSourceInformation: NSObject, Sendable {
    /// The location was produced by software simulation, such as a replayed log.
    public let isSimulatedBySoftware: Bool
    /// The location was produced by an external device, such as a GPS receiver.
    public let isProducedByAccessory: Bool

    public init(softwareSimulationState isSoftware: Bool, andExternalAccessoryState isAccessory: Bool) {
        isSimulatedBySoftware = isSoftware
        isProducedByAccessory = isAccessory
    }
}

/// The floor of a building, which a GNSS receiver never knows.
public final class CLFloor: NSObject, Sendable {
    public let level: Int
    public init(level: Int) { self.level = level }
}
