// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import LocationEngine

/// A location fix: position, altitude, speed and course with their accuracies, and a timestamp.
///
/// As in Core Location, a value that is not known is marked invalid rather than made up: the
/// coordinate is invalid when `horizontalAccuracy < 0`, the altitudes when `verticalAccuracy <= 0`,
/// speed and course when they or their accuracies are negative (`-1`).
open class CLLocation: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The engine's value this location shows: every property below reads it.
    let engineLocation: Location

    public var coordinate: CLLocationCoordinate2D {
        CLLocationCoordinate2D(
            latitude: engineLocation.coordinate.latitude, longitude: engineLocation.coordinate.longitude)
    }
    /// Metres above mean sea level.
    public var altitude: CLLocationDistance { engineLocation.altitude }
    /// Metres above the WGS 84 ellipsoid.
    public var ellipsoidalAltitude: CLLocationDistance { engineLocation.ellipsoidalAltitude }
    /// The radius of uncertainty of `coordinate`, metres (2-D RMS); negative when invalid.
    public var horizontalAccuracy: CLLocationAccuracy { engineLocation.horizontalAccuracy }
    /// The uncertainty of the altitudes, metres; zero or negative when invalid.
    public var verticalAccuracy: CLLocationAccuracy { engineLocation.verticalAccuracy }
    /// Metres per second over ground; negative when invalid.
    public var speed: CLLocationSpeed { engineLocation.speed }
    public var speedAccuracy: CLLocationSpeedAccuracy { engineLocation.speedAccuracy }
    /// Degrees clockwise from true north; negative when invalid.
    public var course: CLLocationDirection { engineLocation.course }
    public var courseAccuracy: CLLocationDirectionAccuracy { engineLocation.courseAccuracy }
    public var timestamp: Date { engineLocation.timestamp }
    /// Always `nil`: a GNSS receiver does not know the floor.
    public var floor: CLFloor? { nil }
    public let sourceInformation: CLLocationSourceInformation?
    /// The receiver's heading at this fix, for `CLLocationManager`'s heading updates; set only on
    /// a precise location made from a fix that had one.
    let heading: CLHeading?

    /// A location at 0°, 0° now, with no accuracy, speed or course: what `CLLocation()` gives on
    /// Apple platforms, as a placeholder (`@Published var location = CLLocation()`).
    public override convenience init() {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: 0, longitude: 0), altitude: 0,
            ellipsoidalAltitude: 0,
            horizontalAccuracy: 0, verticalAccuracy: -1, course: -1, courseAccuracy: -1, speed: -1,
            speedAccuracy: -1, timestamp: Date(), sourceInfo: nil)
    }

    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0,
            horizontalAccuracy: 0, verticalAccuracy: -1, course: -1, courseAccuracy: -1, speed: -1,
            speedAccuracy: -1, timestamp: Date())
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy, verticalAccuracy: CLLocationAccuracy, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: verticalAccuracy, course: -1, courseAccuracy: -1, speed: -1,
            speedAccuracy: -1, timestamp: timestamp)
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy, verticalAccuracy: CLLocationAccuracy,
        course: CLLocationDirection, speed: CLLocationSpeed, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: verticalAccuracy, course: course, courseAccuracy: -1, speed: speed,
            speedAccuracy: -1, timestamp: timestamp)
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy, verticalAccuracy: CLLocationAccuracy,
        course: CLLocationDirection, courseAccuracy: CLLocationDirectionAccuracy,
        speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, ellipsoidalAltitude: altitude,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
            course: course, courseAccuracy: courseAccuracy, speed: speed,
            speedAccuracy: speedAccuracy, timestamp: timestamp, sourceInfo: nil)
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        horizontalAccuracy: CLLocationAccuracy, verticalAccuracy: CLLocationAccuracy,
        course: CLLocationDirection, courseAccuracy: CLLocationDirectionAccuracy,
        speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date,
        sourceInfo: CLLocationSourceInformation
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, ellipsoidalAltitude: altitude,
            horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
            course: course, courseAccuracy: courseAccuracy, speed: speed,
            speedAccuracy: speedAccuracy, timestamp: timestamp, sourceInfo: sourceInfo)
    }

    /// Every property; the other initializers call this one.
    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
        ellipsoidalAltitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy, course: CLLocationDirection,
        courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed,
        speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date,
        sourceInfo: CLLocationSourceInformation?
    ) {
        var location = Location(
            coordinate: Coordinate(latitude: coordinate.latitude, longitude: coordinate.longitude),
            horizontalAccuracy: horizontalAccuracy, timestamp: timestamp)
        location.altitude = altitude
        location.ellipsoidalAltitude = ellipsoidalAltitude
        location.verticalAccuracy = verticalAccuracy
        location.course = course
        location.courseAccuracy = courseAccuracy
        location.speed = speed
        location.speedAccuracy = speedAccuracy
        location.source = sourceInfo.map {
            Location.Source(
                isSimulatedBySoftware: $0.isSimulatedBySoftware,
                isProducedByAccessory: $0.isProducedByAccessory)
        }
        engineLocation = location
        sourceInformation = sourceInfo
        heading = nil
    }

    /// The location the engine handed out, with its heading when it has one.
    init(_ location: Location) {
        engineLocation = location
        sourceInformation = location.source.map {
            CLLocationSourceInformation(
                softwareSimulationState: $0.isSimulatedBySoftware,
                andExternalAccessoryState: $0.isProducedByAccessory)
        }
        heading = location.heading.map {
            CLHeading(
                trueHeading: $0.trueHeading, magneticVariation: $0.magneticVariation,
                timestamp: location.timestamp)
        }
    }

    // MARK: NSCopying, NSSecureCoding

    /// A location is immutable: its copy is itself, as Apple's is.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    /// Archives every property (`NSKeyedArchiver`), as apps archive fixes on Apple platforms.
    open func encode(with coder: NSCoder) {
        coder.encode(coordinate.latitude, forKey: "latitude")
        coder.encode(coordinate.longitude, forKey: "longitude")
        coder.encode(altitude, forKey: "altitude")
        coder.encode(ellipsoidalAltitude, forKey: "ellipsoidalAltitude")
        coder.encode(horizontalAccuracy, forKey: "horizontalAccuracy")
        coder.encode(verticalAccuracy, forKey: "verticalAccuracy")
        coder.encode(course, forKey: "course")
        coder.encode(courseAccuracy, forKey: "courseAccuracy")
        coder.encode(speed, forKey: "speed")
        coder.encode(speedAccuracy, forKey: "speedAccuracy")
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: "timestamp")
        if let sourceInformation {
            coder.encode(sourceInformation.isSimulatedBySoftware, forKey: "simulatedBySoftware")
            coder.encode(sourceInformation.isProducedByAccessory, forKey: "producedByAccessory")
        }
    }

    /// Reads what ``encode(with:)`` wrote; `nil` when the archive holds no location.
    public required convenience init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "latitude"), coder.containsValue(forKey: "timestamp") else {
            return nil
        }
        let source =
            coder.containsValue(forKey: "simulatedBySoftware")
            ? CLLocationSourceInformation(
                softwareSimulationState: coder.decodeBool(forKey: "simulatedBySoftware"),
                andExternalAccessoryState: coder.decodeBool(forKey: "producedByAccessory")) : nil
        self.init(
            coordinate: CLLocationCoordinate2D(
                latitude: coder.decodeDouble(forKey: "latitude"),
                longitude: coder.decodeDouble(forKey: "longitude")),
            altitude: coder.decodeDouble(forKey: "altitude"),
            ellipsoidalAltitude: coder.decodeDouble(forKey: "ellipsoidalAltitude"),
            horizontalAccuracy: coder.decodeDouble(forKey: "horizontalAccuracy"),
            verticalAccuracy: coder.decodeDouble(forKey: "verticalAccuracy"),
            course: coder.decodeDouble(forKey: "course"),
            courseAccuracy: coder.decodeDouble(forKey: "courseAccuracy"),
            speed: coder.decodeDouble(forKey: "speed"),
            speedAccuracy: coder.decodeDouble(forKey: "speedAccuracy"),
            timestamp: Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp")),
            sourceInfo: source)
    }

    /// The great-circle distance to another location, metres (on the WGS 84 ellipsoid).
    public func distance(from location: CLLocation) -> CLLocationDistance {
        Geodesy.distance(
            latitude1: coordinate.latitude, longitude1: coordinate.longitude,
            latitude2: location.coordinate.latitude, longitude2: location.coordinate.longitude)
    }

    open override var description: String {
        var text = String(
            format: "<%+.8f,%+.8f> +/- %.2fm", coordinate.latitude, coordinate.longitude,
            horizontalAccuracy)
        if verticalAccuracy > 0 {
            text += String(format: " (alt %.2fm +/- %.2fm)", altitude, verticalAccuracy)
        }
        if speed >= 0 { text += String(format: " speed %.2f mps", speed) }
        if course >= 0 { text += String(format: " course %.2f", course) }
        return text + " @ \(timestamp)"
    }
}
