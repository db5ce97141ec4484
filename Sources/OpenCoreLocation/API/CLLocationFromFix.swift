// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import LocationEngine

extension CLLocation {
    /// The 1σ user equivalent range error assumed when a receiver gives only DOPs, metres.
    /// `horizontalAccuracy` is then HDOP × this value: the 2-D RMS error by definition of HDOP.
    public static let assumedRangeError = Location.assumedRangeError
    /// The same with differential corrections (DGPS, SBAS, RTK).
    public static let assumedRangeErrorDifferential = Location.assumedRangeErrorDifferential

    /// The location of a fix, or `nil` when the fix has no position.
    ///
    /// - `horizontalAccuracy` is the 2-D RMS error: from the receiver's GST standard deviations
    ///   when it sent them, else its GBS 1σ errors, else HDOP × ``assumedRangeError``, else half the receiver's own 95%
    ///   estimate (PGRME); with none of these, 50 m for a 3-D fix and 200 m for a 2-D one. It is
    ///   never zero or negative.
    /// - The altitudes are valid only for a 3-D fix with an altitude.
    /// - Speed and course are `-1` when the receiver gave none; their accuracies are `-1` unless
    ///   known.
    /// - `timestamp` is the fix's UTC time, or `fallbackTime` when the receiver gave no date
    ///   (`Fix.bestTime(received:)` makes one).
    public convenience init?(fix: Fix, origin: FixOrigin, fallbackTime: Date) {
        guard let location = Location(fix: fix, origin: origin, fallbackTime: fallbackTime) else {
            return nil
        }
        self.init(location)
    }
}
