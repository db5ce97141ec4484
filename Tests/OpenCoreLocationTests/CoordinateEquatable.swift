// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import OpenCoreLocation

// What apps write, since Core Location's CLLocationCoordinate2D is not Equatable (an app adds
// `@retroactive`, which this package, declaring the type, may not). This `==` is the one generic
// code uses, as it would be on Apple platforms.
extension CLLocationCoordinate2D: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude
    }
}
