// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

/// Every member a line of the protocol may carry, each optional: a request, a reply and an event
/// all read through this one shape, and the typed views (``WireRequest``, ``WireEvent``) check
/// which members their kind needs. Unknown members are ignored, so a newer peer may add some.
public struct WireLine: Decodable, Sendable {
    public var op: String?
    public var reply: String?
    public var event: String?
    public var id: Int?
    public var version: Int?
    public var receiver: String?
    public var session: Int?
    public var subscription: Int?
    public var request: Int?
    public var prompt: Int?
    public var authorization: String?
    public var purposeKey: String?
    public var configuration: Int?
    public var inUse: Bool?
    public var uid: Int?
    public var app: String?
    public var level: String?
    public var approximate: Bool?
    public var once: Bool?
    public var all: Bool?
    public var enabled: Bool?
    public var lift: Bool?
    public var answer: String?
    public var message: String?
    public var error: String?
    public var flags: [String]?
    public var stationary: Bool?
    public var unavailable: Bool?
    public var location: WireLocation?
    public var status: String?
    public var accuracy: String?
    public var servicesEnabled: Bool?
    public var identity: WireIdentity?
    public var kind: String?
    public var reason: String?
    public var defaultsToApproximate: Bool?
    public var store: String?
    public var decisions: [String: String]?
    public var restricted: [String]?
    public var restrictAll: Bool?
    public var monitor: String?
    public var identifier: String?
    public var condition: WireCondition?
    public var assuming: String?
    public var state: String?
    public var date: Double?
    public var generation: Int?
    public var sequence: Int?
    public var records: [WireMonitorRecord]?
    public var access: WireAccess?
    public var since: Double?

    /// Parses one line; `what` names it in errors ("a request").
    public static func parse(_ line: some Collection<UInt8>, what: String) throws(WireError) -> WireLine {
        do {
            return try JSONDecoder().decode(WireLine.self, from: Data(line))
        } catch let error as DecodingError {
            throw WireError("\(what) is not understood: \(Self.explain(error))")
        } catch {
            throw WireError("\(what) is not understood: \(error)")
        }
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context):
            let name = path(context)
            return name.isEmpty
                ? "send one JSON object per line, {…}"
                : "'\(name)' must be \(describe(type))"
        case .dataCorrupted(let context):
            let name = path(context)
            return name.isEmpty
                ? "it is not valid JSON; send one JSON object per line" : "'\(name)' is malformed"
        case .valueNotFound(let type, let context):
            return "'\(path(context))' must be \(describe(type)), not null"
        case .keyNotFound(let key, _):
            return "'\(key.stringValue)' is missing"
        @unknown default:
            return "\(error)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a whole number"
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        case is Double.Type: "a number"
        case is [String].Type: "a list of strings"
        default: "an object"
        }
    }
}

/// A location as it crosses the socket: what `CLLocation` holds, `-1` for what is invalid. Made
/// from the engine's `Location` (`Location.wire`) or read from a line.
public struct WireLocation: Codable, Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double
    public var ellipsoidalAltitude: Double
    public var horizontalAccuracy: Double
    public var verticalAccuracy: Double
    public var speed: Double
    public var speedAccuracy: Double
    public var course: Double
    public var courseAccuracy: Double
    /// Seconds since 1970-01-01 UTC.
    public var time: Double
    /// The receiver's true heading and the magnetic heading it makes, degrees, when it sent one
    /// (HDT or THS); only ever on a precise location.
    public var heading: Double?
    public var magneticHeading: Double?
    /// Produced by software (a replayed log), as `CLLocationSourceInformation` says; absent, not
    /// false, for a receiver's fix.
    public var simulated: Bool?

    enum CodingKeys: String, CodingKey {
        case latitude = "lat"
        case longitude = "lon"
        case altitude = "alt"
        case ellipsoidalAltitude = "altHAE"
        case horizontalAccuracy = "hacc"
        case verticalAccuracy = "vacc"
        case speed
        case speedAccuracy = "sacc"
        case course
        case courseAccuracy = "cacc"
        case time
        case heading
        case magneticHeading = "mheading"
        case simulated = "sim"
    }
}

/// Who the daemon found on the other end of a connection, from the kernel: shown to the client
/// in its hello reply and to the user's agent with every prompt.
public struct WireIdentity: Codable, Sendable, Hashable {
    /// The app identifier decisions are kept under.
    public var app: String
    public var uid: Int
    public var pid: Int
    /// The program's executable, when it could be read.
    public var executable: String?
    /// The systemd unit the program runs in, if any.
    public var unit: String?
    /// The Flatpak app id, if the program runs in a Flatpak sandbox.
    public var flatpak: String?
    /// Whether an administrator registered the app (`/etc/opencorelocation/apps.d`).
    public var registered: Bool
    /// The service of its user's own manager the program runs in, if any.
    public var userUnit: String?
    /// The snap whose AppArmor confinement the program runs under, if any.
    public var snap: String?
    /// How the daemon established the identity ("system unit tracker.service", "Flatpak sandbox
    /// of org.example.Maps", "unregistered program at /usr/bin/socat"…).
    public var proof: String?
    /// Whether the program runs in a sandbox (it may not speak for its user).
    public var sandboxed: Bool?
    /// The desktop id (`org.gnome.Maps`) of the system's desktop entry that runs the program's
    /// executable, when that proved who it is.
    public var desktopEntry: String?

    public init(
        app: String, uid: Int, pid: Int, executable: String?, unit: String?, flatpak: String?,
        registered: Bool
    ) {
        self.app = app
        self.uid = uid
        self.pid = pid
        self.executable = executable
        self.unit = unit
        self.flatpak = flatpak
        self.registered = registered
    }
}
