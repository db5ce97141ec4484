// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The secret behind the reducer's offset: 32 bytes from the system's cryptographic random
/// source, kept where no client can read them (the daemon's state directory, or the store's
/// directory when the core runs in the app's own process) and never sent anywhere.
public struct ReducerSecret: Sendable {
    let bytes: [UInt8]

    /// A secret made of these bytes (tests, and a secret read back from its file).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// A fresh secret from the system's cryptographic random source.
    public static func random() -> ReducerSecret {
        var generator = SystemRandomNumberGenerator()
        return ReducerSecret(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The file a directory keeps its secret in.
    public static func path(in directory: String) -> String { directory + "/reducer.key" }

    /// The secret kept in `directory`, made and written (0600, atomically) the first time.
    public static func load(directory: String) throws(SecretError) -> ReducerSecret {
        let path = path(in: directory)
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else {
                throw SecretError(
                    path: path,
                    reason:
                        "it holds \(counted(data.count, "byte", "bytes")), not 32; remove it and a new one is made "
                        + "(approximate locations then move to a new offset)")
            }
            return ReducerSecret(bytes: Array(data))
        }
        let secret = random()
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SecretError(
                path: path, reason: "its directory cannot be created (\(errorWords(error)))")
        }
        if let failure = writeAtomically(Data(secret.bytes), to: path) {
            throw SecretError(path: path, reason: failure)
        }
        return secret
    }

    public struct SecretError: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "the reducer's secret \(path) cannot be used: \(reason)" }
    }
}

/// The secret offset the reducer adds to a position before snapping it to the grid, in metres
/// north and east: Gaussian with σ = ``sigma`` per axis, drifting ``driftPerHour`` of σ an hour.
///
/// It is Android's `LocationFudger` walk (`offset = w·offset + c·N` every hour, `c` = 3 % of σ,
/// `w = √(1 − c²/σ²)`), taken a day at a time (`w²⁴`, and the day's `c` that keeps σ) and
/// interpolated within the day, and made a function of the secret and the time alone: the offset
/// of day `d` is `Σ c·wᵏ·N(d − k)` over the last `window` days, `N(d)` a standard normal pair
/// drawn from HMAC-SHA256 of the secret and `d`. So the same fix always meets the same offset,
/// whatever restarted in between, and every app on every receiver of the machine meets the same
/// one: apps comparing notes, or one app listening to two receivers (or to one device under two
/// names), meet one offset and gain nothing by averaging.
public struct ReducerOffset: Sendable {
    /// σ per axis, metres: half a cell (2.5 km). Android uses a quarter, which hides a parked
    /// device well; but a moving one gives its cell edges away (a drive along a known road is
    /// fitted through its cells), and then the offset is all that is left between an attacker and
    /// the track: `tools/privacy-attack` places such a car within 0.94 km with a quarter, 1.5 km
    /// being the aim.
    public static let sigma = AccuracyReducer.cellHeight * AccuracyReducer.metresPerDegree / 2
    /// How much of σ the offset takes anew each hour. Slow on purpose: its correlation time is
    /// about 2,200 hours (three months), so a month of averaging a parked device still meets
    /// nearly one offset and cannot remove it, while an offset an observer once learned (from a
    /// visit to a known place) is worth little a season later.
    public static let driftPerHour = 0.03
    /// How many days of innovations the offset sums; `w^window` is under 2 %.
    static let window: Int64 = 365

    private static let weight = pow(1 - driftPerHour * driftPerHour, 24 / 2)
    private static let innovationWeight = (1 - weight * weight).squareRoot()
    private static let tailWeight = pow(weight, Double(window))

    private let secret: [UInt8]
    /// The offsets of the day computed last and of the day after it.
    private var day: Int64?
    private var today = (north: 0.0, east: 0.0)
    private var tomorrow = (north: 0.0, east: 0.0)

    public init(secret: ReducerSecret) {
        self.secret = secret.bytes
    }

    /// The offset at `date`, metres north and east.
    public mutating func metres(at date: Date) -> (north: Double, east: Double) {
        let days = date.timeIntervalSince1970 / 86_400
        let now = Int64(days.rounded(.down))
        if let day, now == day + 1 {
            today = tomorrow
            tomorrow = step(from: tomorrow, to: now + 1)
        } else if day != now {
            today = dayOffset(now)
            tomorrow = step(from: today, to: now + 1)
        }
        day = now
        let f = days - Double(now)
        return (
            today.north + f * (tomorrow.north - today.north), today.east + f * (tomorrow.east - today.east)
        )
    }

    /// The offset of day `d`, summed from its innovations.
    private func dayOffset(_ d: Int64) -> (north: Double, east: Double) {
        var offset = (north: 0.0, east: 0.0)
        var factor = Self.innovationWeight * Self.sigma
        for k in 0..<Self.window {
            let n = innovation(d - k)
            offset.north += factor * n.0
            offset.east += factor * n.1
            factor *= Self.weight
        }
        return offset
    }

    /// The offset of day `d` from that of the day before: the newest innovation comes in, the
    /// oldest leaves, so it equals ``dayOffset(_:)``.
    private func step(from previous: (north: Double, east: Double), to d: Int64) -> (
        north: Double, east: Double
    ) {
        let c = Self.innovationWeight * Self.sigma
        let new = innovation(d)
        let old = innovation(d - Self.window)
        return (
            Self.weight * previous.north + c * new.0 - c * Self.tailWeight * old.0,
            Self.weight * previous.east + c * new.1 - c * Self.tailWeight * old.1
        )
    }

    /// A standard normal pair for day `d`, from the secret (Box–Muller).
    private func innovation(_ d: Int64) -> (Double, Double) {
        let (u1, u2) = units(domain: 0, d)
        let radius = (-2 * log(u1)).squareRoot()
        let angle = 2 * Double.pi * u2
        return (radius * cos(angle), radius * sin(angle))
    }

    /// A number in (0, 1) for the output told at `time`, from the secret: what draws the next
    /// interval of the cadence, so that the same history always gives the same times, whichever
    /// process or how many subscriptions listened.
    func unit(after time: Date) -> Double {
        units(domain: 1, Int64((time.timeIntervalSince1970 * 1000).rounded())).0
    }

    /// Two numbers in (0, 1) from HMAC-SHA256 of the secret, a domain and a value.
    private func units(domain: UInt8, _ value: Int64) -> (Double, Double) {
        var message = [domain]
        withUnsafeBytes(of: value.bigEndian) { message.append(contentsOf: $0) }
        let code = Digest.hmacSHA256(key: secret, message: message)
        func unit(_ offset: Int) -> Double {
            var value: UInt64 = 0
            for i in 0..<8 { value = value << 8 | UInt64(code[offset + i]) }
            return (Double(value >> 11) + 0.5) / Double(1 << 53)
        }
        return (unit(0), unit(8))
    }
}
