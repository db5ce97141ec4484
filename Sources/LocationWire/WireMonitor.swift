// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

/// A condition a monitor watches, as it crosses the socket: `{"circle":{"lat":…,"lon":…,"radius":…}}`
/// or `{"beacon":{"uuid":"…","major":…,"minor":…}}`.
public enum WireCondition: Codable, Sendable, Hashable {
    case circle(latitude: Double, longitude: Double, radius: Double)
    /// Major and minor are `nil` when they match any value.
    case beacon(uuid: String, major: Int?, minor: Int?)

    private enum Kind: String, CodingKey { case circle, beacon }
    private enum Member: String, CodingKey { case lat, lon, radius, uuid, major, minor }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        if container.contains(.circle) {
            let circle = try container.nestedContainer(keyedBy: Member.self, forKey: .circle)
            // Held at the resolution the line writes (a nanodegree, a millimetre), so that the
            // daemon keeps the condition the client will read back.
            self = .circle(
                latitude: roundedToFixed(try circle.decode(Double.self, forKey: .lat), 9),
                longitude: roundedToFixed(try circle.decode(Double.self, forKey: .lon), 9),
                radius: roundedToFixed(try circle.decode(Double.self, forKey: .radius), 3))
        } else if container.contains(.beacon) {
            let beacon = try container.nestedContainer(keyedBy: Member.self, forKey: .beacon)
            self = .beacon(
                uuid: try beacon.decode(String.self, forKey: .uuid),
                major: try beacon.decodeIfPresent(Int.self, forKey: .major),
                minor: try beacon.decodeIfPresent(Int.self, forKey: .minor))
        } else {
            throw DecodingError.keyNotFound(
                Kind.circle,
                .init(codingPath: decoder.codingPath, debugDescription: "a condition is a circle or a beacon")
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .circle(let latitude, let longitude, let radius):
            var circle = container.nestedContainer(keyedBy: Member.self, forKey: .circle)
            try circle.encode(latitude, forKey: .lat)
            try circle.encode(longitude, forKey: .lon)
            try circle.encode(radius, forKey: .radius)
        case .beacon(let uuid, let major, let minor):
            var beacon = container.nestedContainer(keyedBy: Member.self, forKey: .beacon)
            try beacon.encode(uuid, forKey: .uuid)
            try beacon.encodeIfPresent(major, forKey: .major)
            try beacon.encodeIfPresent(minor, forKey: .minor)
        }
    }

    func write(_ json: inout JSONObjectWriter) {
        switch self {
        case .circle(let latitude, let longitude, let radius):
            json.openObject("circle")
            json.add("lat", latitude, decimals: 9)
            json.add("lon", longitude, decimals: 9)
            json.add("radius", radius, decimals: 3)
        case .beacon(let uuid, let major, let minor):
            json.openObject("beacon")
            json.add("uuid", string: uuid)
            json.add("major", integer: major)
            json.add("minor", integer: minor)
        }
        json.closeObject()
    }
}

/// The states a monitored condition can be in, by the names the wire uses.
public enum WireMonitoringState: String, Codable, Sendable, Hashable, CaseIterable {
    case unknown, satisfied, unsatisfied, unmonitored
}

/// One event of a monitor: a condition's change of state (or of what stops it being monitored).
/// `generation` tells which addition of the identifier it belongs to; `sequence` numbers it
/// for the daemon, which counts it consumed when the client says so (`monitor.consumed`).
public struct WireMonitorEvent: Sendable, Hashable {
    public var identifier: String
    public var state: WireMonitoringState
    /// Seconds since 1970-01-01 UTC.
    public var date: Double
    public var flags: [String]
    public var generation: Int
    public var sequence: Int

    public init(
        identifier: String, state: WireMonitoringState, date: Double, flags: [String], generation: Int,
        sequence: Int
    ) {
        self.identifier = identifier
        self.state = state
        self.date = date
        self.flags = flags
        self.generation = generation
        self.sequence = sequence
    }
}

/// A condition of a monitor and the last event the app consumed for it.
public struct WireMonitorRecord: Codable, Sendable, Hashable {
    public var identifier: String
    public var condition: WireCondition
    public var state: WireMonitoringState
    /// Seconds since 1970-01-01 UTC.
    public var date: Double
    public var generation: Int

    public init(
        identifier: String, condition: WireCondition, state: WireMonitoringState, date: Double,
        generation: Int
    ) {
        self.identifier = identifier
        self.condition = condition
        self.state = state
        self.date = date
        self.generation = generation
    }
}
