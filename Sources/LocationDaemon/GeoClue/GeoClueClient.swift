// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import LocationEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One GeoClue2 `Client` object: what its owner set, whether it runs, the app it runs as, and
/// its `Location` objects (the current one and the one before, as GeoClue keeps them).
struct GeoClueClient {
    /// A `Location` object's values: what `LocationUpdated` points to.
    struct Place {
        var latitude: Double
        var longitude: Double
        var accuracy: Double
        /// `-Double.greatestFiniteMagnitude` when unknown, as GeoClue says it.
        var altitude: Double
        /// −1 when unknown.
        var speed: Double
        var heading: Double
        var seconds: UInt64
        var microseconds: UInt64

        /// A location as GeoClue gives it: a reduced one has no altitude, speed or heading (the
        /// engine withholds them already; they are never computed here).
        init(_ location: Location) {
            latitude = location.coordinate.latitude
            longitude = location.coordinate.longitude
            accuracy = location.horizontalAccuracy
            altitude = location.verticalAccuracy > 0 ? location.altitude : -Double.greatestFiniteMagnitude
            speed = location.speed >= 0 ? location.speed : -1
            heading = location.course >= 0 ? location.course : -1
            let time = max(0, location.timestamp.timeIntervalSince1970)
            seconds = UInt64(time)
            microseconds = min(999_999, UInt64(((time - Double(seconds)) * 1e6).rounded()))
        }

        /// The great-circle distance to `other`, in metres.
        func distance(to other: Place) -> Double {
            let radians = Double.pi / 180
            let dLat = (other.latitude - latitude) * radians
            let dLon = (other.longitude - longitude) * radians
            let a =
                sin(dLat / 2) * sin(dLat / 2) + cos(latitude * radians) * cos(other.latitude * radians)
                * sin(dLon / 2) * sin(dLon / 2)
            return 2 * 6_371_008.8 * atan2(a.squareRoot(), (1 - a).squareRoot())
        }
    }

    /// A `Location` object on the bus.
    struct Published {
        var path: String
        var place: Place
        var slot: OpaquePointer?
        /// When a newer one took its place (monotonic seconds).
        var replacedAt: Double?
    }

    /// How long a replaced `Location` stays readable: a client reads the one a `LocationUpdated`
    /// names after the signal, and at 10 Hz, on a loaded machine, two more may come first. (A
    /// client behind is sent the newest location only, so a burst cannot outrun the limit.)
    static let replacedLifetime = 2.0
    static let replacedLimit = 64

    /// What makes the client run: the hosted app's connection and session, and the task that
    /// takes its updates.
    struct Running {
        /// The app it runs as, with the session it holds.
        var program: UnmodifiedProgram
        /// Its app's updates, read on the bus thread.
        var updates: HostedFeed<LocationUpdate>
        /// Its use of location, for the access history and the indicators.
        var period: UsePeriod
    }

    let path: String
    /// The connection that made it: the only one that may use it.
    let owner: String
    let identity: PeerIdentity
    /// Made by `GetClient` (the owner's one) rather than `CreateClient`.
    let shared: Bool
    var slot: OpaquePointer?
    var desktopId = ""
    var requestedLevel = GeoClueAccuracy.none
    var distanceThreshold: UInt32 = 0
    var timeThreshold: UInt32 = 0
    var running: Running?
    var current: Published?
    /// The ones before it, newest last, until their lifetime is over.
    var replaced: [Published] = []
    var nextLocation = 0
    /// When the last location was published (monotonic seconds), for `TimeThreshold`.
    var publishedAt: Double?
    /// The flags of the last update without a location, whose reason was logged; cleared by a
    /// location. GeoClue has no words for a running client that gets nothing, so the daemon's
    /// log says it, once a change of flags rather than once an update.
    var refusalFlags: AuthorizationFlags?

    var isActive: Bool { running != nil }
    /// Every `Location` object it has on the bus.
    var published: [Published] { replaced + (current.map { [$0] } ?? []) }

    /// Publishes `place` at `path` (its object added as `slot`) at `now`; returns the objects whose
    /// lifetime is over, for the caller to remove from the bus.
    mutating func publish(_ place: Place, path: String, slot: OpaquePointer?, now: Double) -> [Published] {
        if var old = current {
            old.replacedAt = now
            replaced.append(old)
        }
        current = Published(path: path, place: place, slot: slot)
        nextLocation += 1
        publishedAt = now
        let expired = replaced.enumerated().filter { index, old in
            now - (old.replacedAt ?? now) > Self.replacedLifetime
                || replaced.count - index > Self.replacedLimit
        }.map(\.element)
        replaced.removeFirst(expired.count)
        return expired
    }
    var locationPath: String { current?.path ?? "/" }

    init(path: String, owner: String, identity: PeerIdentity, shared: Bool) {
        self.path = path
        self.owner = owner
        self.identity = identity
        self.shared = shared
    }

    /// Whether `place`, arriving at `now`, is to be published under the owner's thresholds.
    func passes(_ place: Place, now: Double) -> Bool {
        if let publishedAt, timeThreshold > 0, now - publishedAt < Double(timeThreshold) { return false }
        if let last = current?.place, distanceThreshold > 0,
            last.distance(to: place) < Double(distanceThreshold)
        {
            return false
        }
        return true
    }
}

// The slots are sd-bus's, touched on the bus thread only; the rest is values and Sendable handles.
extension GeoClueClient: @unchecked Sendable {}
