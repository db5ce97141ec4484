// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Geodesic helpers on the WGS84 ellipsoid.
public enum Geodesy {
    static let semiMajorAxis = 6_378_137.0
    static let flattening = 1 / 298.257223563
    static let semiMinorAxis = semiMajorAxis * (1 - flattening)
    static let degreesToRadians = Double.pi / 180

    /// The ellipsoidal distance in metres between two points given in degrees (Vincenty's inverse
    /// formula; falls back to a spherical distance for nearly antipodal points).
    public static func distance(
        latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double
    ) -> Double {
        let a = semiMajorAxis
        let b = semiMinorAxis
        let f = flattening
        let l = (longitude2 - longitude1) * degreesToRadians
        let u1 = atan((1 - f) * tan(latitude1 * degreesToRadians))
        let u2 = atan((1 - f) * tan(latitude2 * degreesToRadians))
        let sinU1 = sin(u1)
        let cosU1 = cos(u1)
        let sinU2 = sin(u2)
        let cosU2 = cos(u2)
        var lambda = l
        for _ in 0..<100 {
            let sinLambda = sin(lambda)
            let cosLambda = cos(lambda)
            let sinSigma =
                ((cosU2 * sinLambda) * (cosU2 * sinLambda)
                + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) * (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda))
                .squareRoot()
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cosSqAlpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cosSqAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSqAlpha : 0
            let c = f / 16 * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha))
            let previous = lambda
            lambda =
                l + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let uSq = cosSqAlpha * (a * a - b * b) / (b * b)
                let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
                let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
                let deltaSigma =
                    bigB * sinSigma
                    * (cos2SigmaM + bigB / 4
                        * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM
                            * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * bigA * (sigma - deltaSigma)
            }
        }
        return sphericalDistance(
            latitude1: latitude1, longitude1: longitude1, latitude2: latitude2, longitude2: longitude2)
    }

    /// The great-circle distance in metres on a sphere of the WGS84 mean radius.
    public static func sphericalDistance(
        latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double
    ) -> Double {
        let phi1 = latitude1 * degreesToRadians
        let phi2 = latitude2 * degreesToRadians
        let dPhi = phi2 - phi1
        let dLambda = (longitude2 - longitude1) * degreesToRadians
        let h = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// The point `distance` metres from a start point along `bearing` degrees true, on a sphere.
    public static func destination(
        latitude: Double, longitude: Double, bearing: Double, distance: Double
    ) -> (latitude: Double, longitude: Double) {
        let radius = 6_371_008.8
        let delta = distance / radius
        let theta = bearing * degreesToRadians
        let phi1 = latitude * degreesToRadians
        let lambda1 = longitude * degreesToRadians
        let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
        let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
        var longitude2 = lambda2 / degreesToRadians
        if longitude2 > 180 { longitude2 -= 360 }
        if longitude2 < -180 { longitude2 += 360 }
        return (phi2 / degreesToRadians, longitude2)
    }

    /// Dilutions of precision from satellite geometry: the least-squares covariance of an
    /// east/north/up/clock solution from the satellites' azimuths and elevations (degrees).
    /// `nil` with fewer than four satellites or a singular geometry.
    public static func dilution(
        azimuthsAndElevations satellites: some Sequence<(azimuth: Double, elevation: Double)>
    ) -> DOP? {
        var accumulator = DilutionAccumulator()
        for satellite in satellites {
            accumulator.add(azimuth: satellite.azimuth, elevation: satellite.elevation)
        }
        return accumulator.dilution
    }

    /// The normal matrix GᵀG of a dilution computation, built one satellite at a time; rows of G
    /// are [cos(el)sin(az), cos(el)cos(az), sin(el), 1].
    struct DilutionAccumulator {
        private var xx = 0.0, xy = 0.0, xz = 0.0, x = 0.0
        private var yy = 0.0, yz = 0.0, y = 0.0
        private var zz = 0.0, z = 0.0
        private var count = 0
        /// The table, held so that each lookup does not check that it is initialized.
        private let table = Geodesy.wholeDegrees

        @inline(__always)
        mutating func add(azimuth: Double, elevation: Double) {
            add(sineAndCosine(degrees: azimuth), sineAndCosine(degrees: elevation))
        }

        /// A satellite whose view is in whole degrees, as GSV sends it.
        @inline(__always)
        mutating func add(azimuthDegrees azimuth: Int, elevationDegrees elevation: Int) {
            add(sineAndCosine(wholeDegrees: azimuth), sineAndCosine(wholeDegrees: elevation))
        }

        /// `sin` and `cos` of an angle in degrees, from the table when the angle is a whole
        /// number of degrees in 0…359 (the same values as computing them).
        @inline(__always)
        private func sineAndCosine(degrees: Double) -> (Double, Double) {
            if let whole = Int(exactly: degrees) { return sineAndCosine(wholeDegrees: whole) }
            let radians = degrees * degreesToRadians
            return (sin(radians), cos(radians))
        }

        @inline(__always)
        private func sineAndCosine(wholeDegrees degrees: Int) -> (Double, Double) {
            if degrees >= 0 && degrees < 360 {
                let entry = table[degrees]
                return (entry.sine, entry.cosine)
            }
            let radians = Double(degrees) * degreesToRadians
            return (sin(radians), cos(radians))
        }

        @inline(__always)
        private mutating func add(_ azimuth: (Double, Double), _ elevation: (Double, Double)) {
            let (sinAzimuth, cosAzimuth) = azimuth
            let (sinElevation, cosElevation) = elevation
            let east = cosElevation * sinAzimuth
            let north = cosElevation * cosAzimuth
            let up = sinElevation
            xx += east * east
            xy += east * north
            xz += east * up
            x += east
            yy += north * north
            yz += north * up
            y += north
            zz += up * up
            z += up
            count += 1
        }

        /// `nil` with fewer than four satellites or a singular geometry.
        var dilution: DOP? {
            guard count >= 4 else { return nil }
            let n = Double(count)
            let inverse = withUnsafeTemporaryAllocation(of: Double.self, capacity: 32) { storage in
                let matrix = storage.baseAddress!
                (matrix[0], matrix[1], matrix[2], matrix[3]) = (xx, xy, xz, x)
                (matrix[4], matrix[5], matrix[6], matrix[7]) = (xy, yy, yz, y)
                (matrix[8], matrix[9], matrix[10], matrix[11]) = (xz, yz, zz, z)
                (matrix[12], matrix[13], matrix[14], matrix[15]) = (x, y, z, n)
                return invert4x4(matrix, into: matrix + 16)
            }
            guard let (xx, yy, zz, tt) = inverse else { return nil }
            guard xx >= 0, yy >= 0, zz >= 0, tt >= 0 else { return nil }
            var dop = DOP()
            dop.xdop = xx.squareRoot()
            dop.ydop = yy.squareRoot()
            dop.vdop = zz.squareRoot()
            dop.tdop = tt.squareRoot()
            dop.hdop = (xx + yy).squareRoot()
            dop.pdop = (xx + yy + zz).squareRoot()
            dop.gdop = (xx + yy + zz + tt).squareRoot()
            return dop
        }
    }

    /// Sine and cosine of whole degrees 0…359, computed once: satellite views come in whole degrees.
    /// It lives as long as the program, so a pointer to it can be held without a reference count
    /// and each lookup need not check the index against an array's count.
    nonisolated(unsafe) private static let wholeDegrees: UnsafePointer<(sine: Double, cosine: Double)> = {
        let table = UnsafeMutablePointer<(sine: Double, cosine: Double)>.allocate(capacity: 360)
        for degrees in 0..<360 {
            let radians = Double(degrees) * degreesToRadians
            table[degrees] = (sin(radians), cos(radians))
        }
        return UnsafePointer(table)
    }()

    /// Inverts the 4×4 matrix `a` (row by row; overwritten) into `inverse` by Gauss–Jordan
    /// elimination with partial pivoting; returns the inverse's diagonal, `nil` when singular.
    private static func invert4x4(
        _ a: UnsafeMutablePointer<Double>, into inverse: UnsafeMutablePointer<Double>
    ) -> (Double, Double, Double, Double)? {
        for index in 0..<16 { inverse[index] = index % 5 == 0 ? 1 : 0 }
        for column in 0..<4 {
            var pivot = column
            for row in column..<4 where abs(a[row * 4 + column]) > abs(a[pivot * 4 + column]) { pivot = row }
            guard abs(a[pivot * 4 + column]) > 1e-12 else { return nil }
            if pivot != column {
                for k in 0..<4 {
                    let (p, c) = (pivot * 4 + k, column * 4 + k)
                    (a[p], a[c]) = (a[c], a[p])
                    (inverse[p], inverse[c]) = (inverse[c], inverse[p])
                }
            }
            let scale = a[column * 4 + column]
            for k in 0..<4 {
                a[column * 4 + k] /= scale
                inverse[column * 4 + k] /= scale
            }
            for row in 0..<4 where row != column {
                let factor = a[row * 4 + column]
                if factor == 0 { continue }
                for k in 0..<4 {
                    a[row * 4 + k] -= factor * a[column * 4 + k]
                    inverse[row * 4 + k] -= factor * inverse[column * 4 + k]
                }
            }
        }
        return (inverse[0], inverse[5], inverse[10], inverse[15])
    }
}
