// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS

/// Decides when a device has stopped moving, so that updates can pause until it moves again.
///
/// A device is stationary once its fixes have stayed within ``Tuning/radius`` (or twice their own
/// horizontal accuracy, whichever is larger) of an anchor for ``Tuning/duration`` seconds of fix
/// time, with speed under ``Tuning/speed``. Then one update says so, and nothing follows until a
/// fix leaves the anchor's circle or reports a speed above the threshold; that fix is delivered
/// with `stationary == false`.
public struct StationaryDetector: Sendable {
    public struct Tuning: Sendable, Hashable {
        /// Metres a fix may wander from the anchor without counting as movement.
        public var radius: Double
        /// Seconds without movement before the device counts as stationary.
        public var duration: Double
        /// Metres per second above which a reported speed counts as movement.
        public var speed: Double

        public init(radius: Double, duration: Double, speed: Double) {
            self.radius = radius
            self.duration = duration
            self.speed = speed
        }
    }

    public enum Decision: Sendable, Hashable {
        /// Deliver the location (not stationary).
        case deliver
        /// Deliver the location once with `stationary == true`; silence follows.
        case becameStationary
        /// Stationary: deliver nothing.
        case silent
    }

    public let tuning: Tuning
    /// Where the device was when it last moved: the centre of its stay once it is stationary.
    public private(set) var anchor: Location?
    public private(set) var isStationary = false

    public init(tuning: Tuning) { self.tuning = tuning }

    public mutating func observe(_ location: Location) -> Decision {
        guard let anchor else {
            self.anchor = location
            return .deliver
        }
        // The speed first: a moving device says so for the price of a comparison, where the
        // distance takes trigonometry (every subscriber of every app, at every fix).
        let moved =
            (location.speed >= 0 && location.speed > tuning.speed)
            || location.distance(from: anchor) > max(tuning.radius, 2 * location.horizontalAccuracy)
        if moved {
            self.anchor = location
            isStationary = false
            return .deliver
        }
        if isStationary { return .silent }
        if location.timestamp.timeIntervalSince(anchor.timestamp) >= tuning.duration {
            isStationary = true
            return .becameStationary
        }
        return .deliver
    }

    /// Forgets the anchor, as after a gap in the fixes.
    public mutating func reset() {
        anchor = nil
        isStationary = false
    }
}
