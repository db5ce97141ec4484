// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine

/// The direction a device points, as Core Location reports it; here from a receiver's heading
/// sentences (`$--HDT` or `$--THS`: a GNSS compass, a gyro compass on a ship), never from a magnetometer.
open class CLHeading: NSObject, @unchecked Sendable {
    /// Degrees from magnetic north: the true heading less the magnetic variation the receiver
    /// reported (RMC); the true heading itself when it reported none.
    public let magneticHeading: CLLocationDirection
    /// Degrees from true north, 0 to 359.9…
    public let trueHeading: CLLocationDirection
    /// The maximum error, degrees. 0: NMEA's heading sentences report none.
    public let headingAccuracy: CLLocationDirection
    /// The raw magnetometer values, microteslas: 0, as there is no magnetometer.
    public let x: CLHeadingComponentValue = 0
    public let y: CLHeadingComponentValue = 0
    public let z: CLHeadingComponentValue = 0
    public let timestamp: Date

    init(trueHeading: CLLocationDirection, magneticVariation: Double?, timestamp: Date) {
        self.trueHeading = trueHeading
        magneticHeading =
            Location.Heading(trueHeading: trueHeading, magneticVariation: magneticVariation).magneticHeading
        headingAccuracy = 0
        self.timestamp = timestamp
    }

    open override var description: String {
        String(
            format: "magneticHeading %.2f trueHeading %.2f accuracy %.2f", magneticHeading, trueHeading,
            headingAccuracy)
            + " @ \(timestamp)"
    }
}

/// A component of the raw geomagnetic vector, microteslas (always 0 here: no magnetometer).
public typealias CLHeadingComponentValue = Double

/// How the device is held, for heading on Apple's phones; a receiver's heading does not depend
/// on it, so it is kept and has no effect.
public enum CLDeviceOrientation: Int32, Sendable, Hashable {
    case unknown = 0
    case portrait = 1
    case portraitUpsideDown = 2
    case landscapeLeft = 3
    case landscapeRight = 4
    case faceUp = 5
    case faceDown = 6
}
