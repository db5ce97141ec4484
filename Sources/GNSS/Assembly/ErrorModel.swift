// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

extension FixAssembler {
    /// gpsd's 95% user equivalent range errors, metres (`gpsd_error_model`).
    public enum UERE {
        public static let horizontal = 15.0
        public static let vertical = 23.0
        public static let position = 19.0
        public static let horizontalDGPS = 3.75
        public static let verticalDGPS = 5.75
        public static let positionDGPS = 4.75
    }
}

/// gpsd's error model (`gpsd_error_model`), less the parts that need its geoid and magnetic
/// tables: it keeps the two fixes before the current one, fills in the missing altitude, derives
/// speed and climb from the change of position, and estimates the errors of a fix handed out.
struct ErrorModel: Sendable {
    /// What the model keeps of an earlier fix.
    struct State: Sendable {
        var time: UTCTimestamp?
        var mode: FixMode = .notSeen
        var latitude: Double?
        var longitude: Double?
        var altitudeMSL: Double?
        var altitudeHAE: Double?

        init() {}

        init(_ fix: Fix) {
            time = fix.time
            mode = fix.mode
            latitude = fix.latitude
            longitude = fix.longitude
            altitudeMSL = fix.altitudeMSL
            altitudeHAE = fix.altitudeHAE
        }

        var hasAltitude: Bool { altitudeHAE != nil || altitudeMSL != nil }
    }

    /// What the speed and climb errors need of the last fix handed out.
    private struct HandedOut: Sendable {
        var mode: FixMode
        var time: UTCTimestamp?
        var longitudeError: Double?
        var latitudeError: Double?
        var verticalError: Double?
    }

    /// The last state of the fix with a time (gpsd's `lastfix`).
    private(set) var lastFix = State()
    /// The state before that, at least 10 ms older (gpsd's `oldfix`).
    private(set) var oldFix = State()
    private var handedOut: HandedOut?

    /// Brings the fix being merged up to date: out-of-range values dropped, the missing altitude
    /// from the geoid separation, the course in 0..<360, speed and climb derived when the
    /// receiver gave none.
    mutating func apply(to current: inout Fix) {
        var deltaTime: Double?
        if let time = current.time {
            if let last = lastFix.time {
                let delta = time.seconds(since: last)
                if abs(delta) > 0.0099 {
                    oldFix = lastFix
                    deltaTime = delta
                } else if let old = oldFix.time {
                    deltaTime = time.seconds(since: old)
                }
            }
        }
        if let latitude = current.latitude, let longitude = current.longitude {
            if abs(latitude) > 90 || abs(longitude) > 180 {
                current.latitude = nil
                current.longitude = nil
            }
        } else {
            current.latitude = nil
            current.longitude = nil
        }
        if let speed = current.speed, abs(speed) > 9999.9 { current.speed = nil }
        if let climb = current.climb, abs(climb) > 9999.9 { current.climb = nil }
        if let separation = current.geoidSeparation {
            if let hae = current.altitudeHAE, current.altitudeMSL == nil {
                current.altitudeMSL = hae - separation
            } else if current.altitudeHAE == nil, let msl = current.altitudeMSL {
                current.altitudeHAE = msl + separation
            }
        }
        // A course already in 0..<360 (almost always) is left as the remainder would leave it.
        if var course = current.course, !(course >= 0 && course < 360) {
            course = course.truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
            current.course = course
        }
        if let deltaTime, deltaTime > 0, current.mode >= .twoDimensional, oldFix.mode >= .twoDimensional {
            if current.speed == nil, let lat1 = current.latitude, let lon1 = current.longitude,
                let lat0 = oldFix.latitude, let lon0 = oldFix.longitude
            {
                let speed =
                    Geodesy.distance(latitude1: lat0, longitude1: lon0, latitude2: lat1, longitude2: lon1)
                    / deltaTime
                if abs(speed) <= 9999.9 {
                    current.speed = speed
                    current.speedIsDerived = true
                }
            }
            if current.mode == .threeDimensional, oldFix.mode == .threeDimensional, current.climb == nil {
                let now = current.altitudeHAE ?? current.altitudeMSL
                let then = current.altitudeHAE != nil ? oldFix.altitudeHAE : oldFix.altitudeMSL
                if let now, let then {
                    let climb = (now - then) / deltaTime
                    if abs(climb) <= 9999.9 {
                        current.climb = climb
                        current.climbIsDerived = true
                    }
                }
            }
        }
        if current.time != nil { lastFix = State(current) }
    }

    /// The 95% error estimates of a fix about to be handed out: the receiver's own where it sent
    /// them, otherwise DOP × UERE, and speed and climb errors from the fix handed out before.
    func estimates(for fix: Fix, receiver: ErrorEstimates?) -> ErrorEstimates {
        typealias UERE = FixAssembler.UERE
        var errors = receiver ?? ErrorEstimates()
        if fix.time != nil { errors.time = 0.005 }
        guard fix.mode >= .twoDimensional else { return errors }
        let dgps = fix.status == .dgps
        let h = dgps ? UERE.horizontalDGPS : UERE.horizontal
        let v = dgps ? UERE.verticalDGPS : UERE.vertical
        let p = dgps ? UERE.positionDGPS : UERE.position
        var usedModel = false
        if errors.longitude == nil, let xdop = fix.dop.xdop {
            errors.longitude = xdop * h
            usedModel = true
        }
        if errors.latitude == nil, let ydop = fix.dop.ydop {
            errors.latitude = ydop * h
            usedModel = true
        }
        if fix.mode == .threeDimensional, errors.vertical == nil, let vdop = fix.dop.vdop {
            errors.vertical = vdop * v
            usedModel = true
        }
        if errors.horizontal == nil, let hdop = fix.dop.hdop {
            errors.horizontal = hdop * p
            usedModel = true
        }
        if errors.spherical == nil, let pdop = fix.dop.pdop {
            errors.spherical = pdop * p
            usedModel = true
        }
        if errors.source == nil && usedModel { errors.source = .dopModel }
        if let previous = handedOut, previous.mode >= .twoDimensional, let now = fix.time,
            let then = previous.time
        {
            let dt = now.seconds(since: then)
            if dt > 0 {
                if let x0 = previous.longitudeError, let y0 = previous.latitudeError,
                    let x1 = errors.longitude, let y1 = errors.latitude
                {
                    errors.speed = (max(x0, y0) + max(x1, y1)) / dt
                }
                if let v0 = previous.verticalError, let v1 = errors.vertical {
                    errors.climb = (v0 + v1) / dt
                }
            }
        }
        return errors
    }

    /// `fix` was handed out: the next one's speed and climb errors start from it.
    mutating func handedOut(_ fix: Fix) {
        handedOut = HandedOut(
            mode: fix.mode, time: fix.time, longitudeError: fix.errors.longitude,
            latitudeError: fix.errors.latitude, verticalError: fix.errors.vertical)
    }
}
