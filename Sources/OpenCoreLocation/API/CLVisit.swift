// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

/// A place where the device stayed: when it arrived, when it left, where, and how precisely
/// (`CLLocationManager.startMonitoringVisits()`).
///
/// A visit is told twice: on arrival, with `departureDate` `Date.distantFuture`, and on
/// departure, with both dates. Arrival is known once the device has stayed within 100 m for five
/// minutes of fix time, and dated from the first fix of the stay.
open class CLVisit: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// When the device arrived; `Date.distantPast` when it was there before monitoring began.
    public let arrivalDate: Date
    /// When the device left; `Date.distantFuture` while it is still there.
    public let departureDate: Date
    /// The centre of the place.
    public let coordinate: CLLocationCoordinate2D
    /// The radius, metres, within which the place lies.
    public let horizontalAccuracy: CLLocationAccuracy

    init(
        arrivalDate: Date, departureDate: Date, coordinate: CLLocationCoordinate2D,
        horizontalAccuracy: CLLocationAccuracy
    ) {
        self.arrivalDate = arrivalDate
        self.departureDate = departureDate
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(arrivalDate.timeIntervalSinceReferenceDate, forKey: "arrivalDate")
        coder.encode(departureDate.timeIntervalSinceReferenceDate, forKey: "departureDate")
        coder.encode(coordinate.latitude, forKey: "latitude")
        coder.encode(coordinate.longitude, forKey: "longitude")
        coder.encode(horizontalAccuracy, forKey: "horizontalAccuracy")
    }

    public required init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "arrivalDate") else { return nil }
        arrivalDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "arrivalDate"))
        departureDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "departureDate"))
        coordinate = CLLocationCoordinate2D(
            latitude: coder.decodeDouble(forKey: "latitude"),
            longitude: coder.decodeDouble(forKey: "longitude"))
        horizontalAccuracy = coder.decodeDouble(forKey: "horizontalAccuracy")
    }

    open override var description: String {
        String(
            format: "<CLVisit <%+.8f,%+.8f> +/- %.0fm, arrived %@, departed %@>", coordinate.latitude,
            coordinate.longitude, horizontalAccuracy, "\(arrivalDate)", "\(departureDate)")
    }
}
