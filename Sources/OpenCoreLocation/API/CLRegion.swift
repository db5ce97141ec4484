// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

/// Where the device is with respect to a region.
public enum CLRegionState: Int, Sendable, Hashable, CustomStringConvertible {
    case unknown = 0
    case inside = 1
    case outside = 2

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .inside: "inside"
        case .outside: "outside"
        }
    }
}

/// A region monitored with `CLLocationManager.startMonitoring(for:)`, known by its identifier:
/// two regions with one identifier are the same region, and monitoring one replaces the other.
open class CLRegion: NSObject, NSCopying, @unchecked Sendable {
    public let identifier: String
    /// Whether entering the region is told (`locationManager(_:didEnterRegion:)`); default true.
    open var notifyOnEntry = true
    /// Whether leaving the region is told (`locationManager(_:didExitRegion:)`); default true.
    open var notifyOnExit = true

    init(identifier: String) {
        self.identifier = identifier
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = CLRegion(identifier: identifier)
        copy.notifyOnEntry = notifyOnEntry
        copy.notifyOnExit = notifyOnExit
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? CLRegion)?.identifier == identifier
    }

    open override var hash: Int { identifier.hashValue }
}

/// A circle on the earth: a centre and a radius in metres.
open class CLCircularRegion: CLRegion, @unchecked Sendable {
    public let center: CLLocationCoordinate2D
    public let radius: CLLocationDistance

    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.center = center
        self.radius = radius
        super.init(identifier: identifier)
    }

    /// Whether `coordinate` lies within the circle.
    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        CLLocation(latitude: center.latitude, longitude: center.longitude)
            .distance(from: CLLocation(latitude: coordinate.latitude, longitude: coordinate.longitude))
            <= radius
    }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = CLCircularRegion(center: center, radius: radius, identifier: identifier)
        copy.notifyOnEntry = notifyOnEntry
        copy.notifyOnExit = notifyOnExit
        return copy
    }

    open override var description: String {
        String(
            format: "CLCircularRegion (identifier:'%@', center:<%+.8f,%+.8f>, radius:%.2f)", identifier,
            center.latitude, center.longitude, radius)
    }
}
