// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

/// What a `CLLocationManager`'s updates are for, with Apple's raw values; it tunes when a still
/// device counts as stopped, as ``CLLocationUpdate/LiveConfiguration`` does.
public enum CLActivityType: Int, Sendable, Hashable, CaseIterable {
    case other = 1
    case automotiveNavigation = 2
    case fitness = 3
    case otherNavigation = 4
    case airborne = 5

    /// The activity of live updates with the same tuning.
    var activity: CLLocationUpdate.Activity {
        switch self {
        case .other: .default
        case .automotiveNavigation: .automotiveNavigation
        case .fitness: .fitness
        case .otherNavigation: .otherNavigation
        case .airborne: .airborne
        }
    }
}
