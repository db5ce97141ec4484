// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

// The engine's values as the Apple API has them. The engine speaks in its own types; these are
// the only places where they become `CL…` ones.

extension CLLocationUpdate {
    /// The update the engine handed out.
    init(_ update: LocationUpdate) {
        self.init(
            location: update.location.map(CLLocation.init), flags: update.flags,
            stationary: update.isStationary, unavailable: update.locationUnavailable)
    }
}

extension CLError {
    /// The error a refused precise-location request gives.
    init(_ refusal: AccuracyRequestRefusal) {
        self.init(refusal.reason == .promptDeclined ? .promptDeclined : .denied, refusal.message)
    }
}

extension CLMonitor.CircularGeographicCondition {
    init(_ circle: GeographicCircle) {
        self.init(
            center: CLLocationCoordinate2D(
                latitude: circle.center.latitude, longitude: circle.center.longitude),
            radius: circle.radius)
    }
}

/// A condition of the API's as the engine keeps it: circles and beacons by value, any other type
/// (the app's own) opaque, handed back as it was given.
func monitorCondition(_ condition: any CLCondition) -> MonitorCondition {
    if let circle = condition as? CLMonitor.CircularGeographicCondition {
        return .circle(
            GeographicCircle(
                center: Coordinate(latitude: circle.center.latitude, longitude: circle.center.longitude),
                radius: circle.radius))
    }
    if let beacon = condition as? CLMonitor.BeaconIdentityCondition {
        return .beacon(BeaconIdentity(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor))
    }
    return .other(typeName: "\(type(of: condition))", value: condition)
}

/// The API's condition for one the engine keeps.
func apiCondition(_ condition: MonitorCondition) -> any CLCondition {
    switch condition {
    case .circle(let circle): return CLMonitor.CircularGeographicCondition(circle)
    case .beacon(let beacon):
        switch (beacon.major, beacon.minor) {
        case (let major?, let minor?):
            return CLMonitor.BeaconIdentityCondition(uuid: beacon.uuid, major: major, minor: minor)
        case (let major?, nil): return CLMonitor.BeaconIdentityCondition(uuid: beacon.uuid, major: major)
        default: return CLMonitor.BeaconIdentityCondition(uuid: beacon.uuid)
        }
    case .other(_, let value):
        // Only `monitorCondition(_:)` makes one, from an app's `CLCondition`.
        return value as! any CLCondition
    }
}
