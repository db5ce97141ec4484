// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

/// What the device is used for, as far as deciding when it stands still goes; the raw values are
/// Core Location's `CLLocationUpdate.LiveConfiguration` and `Activity` values, and the wire's. It
/// prints as its case's name.
public enum ActivityProfile: Int, Sendable, Hashable, CaseIterable {
    case `default` = 0
    case automotiveNavigation = 1
    case otherNavigation = 2
    case fitness = 3
    case airborne = 4
    case maritime = 5

    /// How still the device must be, and for how long, before its updates pause.
    public var stationaryTuning: StationaryDetector.Tuning {
        switch self {
        // Traffic lights are not a stop.
        case .automotiveNavigation: .init(radius: 25, duration: 180, speed: 1.0)
        case .otherNavigation: .init(radius: 15, duration: 120, speed: 0.5)
        case .fitness: .init(radius: 10, duration: 120, speed: 0.3)  // a runner's pause
        case .airborne: .init(radius: 50, duration: 300, speed: 2.0)
        case .maritime: .init(radius: 60, duration: 300, speed: 0.5)  // a boat swinging at anchor
        case .default: .init(radius: 15, duration: 60, speed: 0.5)
        }
    }
}
