// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

/// One update of a subscription as it crosses the socket.
public struct WireUpdate: Sendable, Hashable {
    /// The names of the authorization flags that are set (`accuracyLimited`, `authorizationDenied`…).
    public var flags: [String]
    public var stationary: Bool
    public var unavailable: Bool
    public var location: WireLocation?

    public init(flags: [String], stationary: Bool, unavailable: Bool, location: WireLocation?) {
        self.flags = flags
        self.stationary = stationary
        self.unavailable = unavailable
        self.location = location
    }
}

/// The authorization an app has, as its hello reply and every change report it.
public struct WireAuthorization: Sendable, Hashable {
    /// A `CLAuthorizationStatus` case name.
    public var status: String
    /// A `CLAccuracyAuthorization` case name.
    public var accuracy: String
    public var servicesEnabled: Bool

    public init(status: String, accuracy: String, servicesEnabled: Bool) {
        self.status = status
        self.accuracy = accuracy
        self.servicesEnabled = servicesEnabled
    }
}

/// A question for the user, as the daemon sends it to the user's agent: the identity is the one
/// the daemon verified, never a name the app chose.
public struct WirePrompt: Sendable, Hashable {
    /// `whenInUse`, `always` or `temporaryFullAccuracy`.
    public var kind: String
    public var identity: WireIdentity
    public var reason: String
    public var purposeKey: String?
    public var defaultsToApproximate: Bool

    public init(
        kind: String, identity: WireIdentity, reason: String, purposeKey: String?, defaultsToApproximate: Bool
    ) {
        self.kind = kind
        self.identity = identity
        self.reason = reason
        self.purposeKey = purposeKey
        self.defaultsToApproximate = defaultsToApproximate
    }
}

/// A user's decisions as `auth.show` returns them.
public struct WireDecisions: Sendable, Hashable {
    /// Where the daemon keeps them.
    public var store: String
    public var uid: Int
    public var servicesEnabled: Bool
    public var restrictAll: Bool
    public var restricted: [String]
    /// Each app's decision in words, as `gpsloc auth show` prints it.
    public var decisions: [String: String]

    public init(
        store: String, uid: Int, servicesEnabled: Bool, restrictAll: Bool, restricted: [String],
        decisions: [String: String]
    ) {
        self.store = store
        self.uid = uid
        self.servicesEnabled = servicesEnabled
        self.restrictAll = restrictAll
        self.restricted = restricted
        self.decisions = decisions
    }
}

/// What the daemon sends: replies to requests (`reply`) and what it says on its own (`event`).
public enum WireEvent: Sendable, Hashable {
    case hello(id: Int?, identity: WireIdentity, WireAuthorization)
    /// Done; `note` is what the one who asked should hear of it (a decision for a name nothing
    /// knows), sent as `message`.
    case ok(id: Int?, note: String? = nil)
    case error(id: Int?, message: String)
    case decisions(id: Int?, WireDecisions)
    case update(subscription: Int, WireUpdate)
    case diagnostic(subscription: Int, flags: [String])
    /// Why the subscription's updates carry no location, in words its user can act on (the
    /// program, its user, and the command that changes the decision): sent before the first
    /// update of each new reason.
    case why(subscription: Int, text: String)
    /// The subscription's stream is over (its session ended).
    case finish(subscription: Int)
    case authorization(WireAuthorization)
    /// The answer to a precise-location request: granted when `error` is `nil`.
    case accuracyAnswer(request: Int, error: String?)
    case prompt(prompt: Int, WirePrompt)
    /// The prompt was answered elsewhere or is no longer wanted.
    case withdraw(prompt: Int)
    /// A monitor's conditions (`monitor.records`).
    case records(id: Int?, [WireMonitorRecord])
    case monitorEvent(subscription: Int, WireMonitorEvent)
    /// An entry of the access history (for `activity.show`, with its `id`), or a period's begin
    /// or end as it happens (for `activity.watch`).
    case access(id: Int?, WireAccess)

    /// The event as one line, `\n` included.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    /// Appends the event as one line, `\n` included.
    public func append(to bytes: inout [UInt8]) {
        JSONObjectWriter.append(to: &bytes, estimate: 512) { json in
            switch self {
            case .hello(let id, let identity, let authorization):
                json.add("reply", string: "hello")
                json.add("id", integer: id)
                json.add("version", integer: WireProtocol.version)
                json.openObject("identity")
                Self.write(identity, &json)
                json.closeObject()
                Self.write(authorization, &json)
            case .ok(let id, let note):
                json.add("reply", string: "ok")
                json.add("id", integer: id)
                if let note { json.add("message", string: note) }
            case .error(let id, let message):
                json.add("reply", string: "error")
                json.add("id", integer: id)
                json.add("message", string: message)
            case .decisions(let id, let decisions):
                json.add("reply", string: "decisions")
                json.add("id", integer: id)
                json.add("store", string: decisions.store)
                json.add("uid", integer: decisions.uid)
                json.add("servicesEnabled", bool: decisions.servicesEnabled)
                json.add("restrictAll", bool: decisions.restrictAll)
                json.openArray("restricted")
                for app in decisions.restricted { json.element(string: app) }
                json.closeArray()
                json.openObject("decisions")
                for (app, text) in decisions.decisions.sorted(by: { $0.key < $1.key }) {
                    json.add(key: app, string: text)
                }
                json.closeObject()
            case .update(let subscription, let update):
                json.add("event", string: "update")
                json.add("subscription", integer: subscription)
                Self.write(flags: update.flags, &json)
                json.add("stationary", bool: update.stationary)
                json.add("unavailable", bool: update.unavailable)
                if let location = update.location {
                    json.openObject("location")
                    Self.write(location, &json)
                    json.closeObject()
                }
            case .diagnostic(let subscription, let flags):
                json.add("event", string: "diagnostic")
                json.add("subscription", integer: subscription)
                Self.write(flags: flags, &json)
            case .why(let subscription, let text):
                json.add("event", string: "why")
                json.add("subscription", integer: subscription)
                json.add("message", string: text)
            case .finish(let subscription):
                json.add("event", string: "finish")
                json.add("subscription", integer: subscription)
            case .authorization(let authorization):
                json.add("event", string: "authorization")
                Self.write(authorization, &json)
            case .accuracyAnswer(let request, let error):
                json.add("event", string: "accuracy")
                json.add("request", integer: request)
                json.add("error", string: error)
            case .prompt(let prompt, let question):
                json.add("event", string: "prompt")
                json.add("prompt", integer: prompt)
                json.add("kind", string: question.kind)
                json.openObject("identity")
                Self.write(question.identity, &json)
                json.closeObject()
                json.add("reason", string: question.reason)
                json.add("purposeKey", string: question.purposeKey)
                json.add("defaultsToApproximate", bool: question.defaultsToApproximate)
            case .withdraw(let prompt):
                json.add("event", string: "withdraw")
                json.add("prompt", integer: prompt)
            case .records(let id, let records):
                json.add("reply", string: "records")
                json.add("id", integer: id)
                json.openArray("records")
                for record in records {
                    json.openObject()
                    json.add("identifier", string: record.identifier)
                    json.openObject("condition")
                    record.condition.write(&json)
                    json.closeObject()
                    json.add("state", string: record.state.rawValue)
                    json.add("date", record.date, decimals: 3)
                    json.add("generation", integer: record.generation)
                    json.closeObject()
                }
                json.closeArray()
            case .monitorEvent(let subscription, let event):
                json.add("event", string: "monitor")
                json.add("subscription", integer: subscription)
                json.add("identifier", string: event.identifier)
                json.add("state", string: event.state.rawValue)
                json.add("date", event.date, decimals: 3)
                Self.write(flags: event.flags, &json)
                json.add("generation", integer: event.generation)
                json.add("sequence", integer: event.sequence)
            case .access(let id, let access):
                json.add("event", string: "access")
                json.add("id", integer: id)
                json.openObject("access")
                access.write(&json)
                json.closeObject()
            }
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    private static func write(flags: [String], _ json: inout JSONObjectWriter) {
        json.openArray("flags")
        for flag in flags { json.element(string: flag) }
        json.closeArray()
    }

    private static func write(_ authorization: WireAuthorization, _ json: inout JSONObjectWriter) {
        json.add("status", string: authorization.status)
        json.add("accuracy", string: authorization.accuracy)
        json.add("servicesEnabled", bool: authorization.servicesEnabled)
    }

    private static func write(_ identity: WireIdentity, _ json: inout JSONObjectWriter) {
        json.add("app", string: identity.app)
        json.add("uid", integer: identity.uid)
        json.add("pid", integer: identity.pid)
        json.add("executable", string: identity.executable)
        json.add("unit", string: identity.unit)
        json.add("flatpak", string: identity.flatpak)
        json.add("userUnit", string: identity.userUnit)
        json.add("snap", string: identity.snap)
        json.add("registered", bool: identity.registered)
        json.add("proof", string: identity.proof)
        if let sandboxed = identity.sandboxed { json.add("sandboxed", bool: sandboxed) }
        json.add("desktopEntry", string: identity.desktopEntry)
    }

    private static func write(_ location: WireLocation, _ json: inout JSONObjectWriter) {
        json.add("lat", location.latitude, decimals: 9)
        json.add("lon", location.longitude, decimals: 9)
        json.add("alt", location.altitude, decimals: 3)
        json.add("altHAE", location.ellipsoidalAltitude, decimals: 3)
        json.add("hacc", location.horizontalAccuracy, decimals: 3)
        json.add("vacc", location.verticalAccuracy, decimals: 3)
        json.add("speed", location.speed, decimals: 3)
        json.add("sacc", location.speedAccuracy, decimals: 3)
        json.add("course", location.course, decimals: 3)
        json.add("cacc", location.courseAccuracy, decimals: 3)
        json.add("time", location.time, decimals: 3)
        json.add("heading", location.heading, decimals: 2)
        json.add("mheading", location.magneticHeading, decimals: 2)
        if location.simulated == true { json.add("sim", bool: true) }
    }

    /// Reads a line the daemon sent.
    public static func parse(_ line: some Collection<UInt8>) throws(WireError) -> WireEvent {
        let fields = try WireLine.parse(line, what: "the daemon's line")
        func need<T>(_ value: T?, _ name: String) throws(WireError) -> T {
            guard let value else { throw WireError("the daemon's line has no '\(name)'") }
            return value
        }
        func authorization() throws(WireError) -> WireAuthorization {
            WireAuthorization(
                status: try need(fields.status, "status"), accuracy: try need(fields.accuracy, "accuracy"),
                servicesEnabled: try need(fields.servicesEnabled, "servicesEnabled"))
        }
        if let reply = fields.reply {
            switch reply {
            case "hello":
                return .hello(
                    id: fields.id, identity: try need(fields.identity, "identity"), try authorization())
            case "ok": return .ok(id: fields.id, note: fields.message)
            case "error": return .error(id: fields.id, message: fields.message ?? "(no message)")
            case "decisions":
                return .decisions(
                    id: fields.id,
                    WireDecisions(
                        store: try need(fields.store, "store"), uid: try need(fields.uid, "uid"),
                        servicesEnabled: try need(fields.servicesEnabled, "servicesEnabled"),
                        restrictAll: fields.restrictAll ?? false, restricted: fields.restricted ?? [],
                        decisions: fields.decisions ?? [:]))
            case "records": return .records(id: fields.id, fields.records ?? [])
            default: throw WireError("the daemon sent an unknown reply '\(reply)'")
            }
        }
        let event = try need(fields.event, "event")
        switch event {
        case "update":
            return .update(
                subscription: try need(fields.subscription, "subscription"),
                WireUpdate(
                    flags: fields.flags ?? [], stationary: fields.stationary ?? false,
                    unavailable: fields.unavailable ?? false, location: fields.location))
        case "diagnostic":
            return .diagnostic(
                subscription: try need(fields.subscription, "subscription"), flags: fields.flags ?? [])
        case "why":
            return .why(
                subscription: try need(fields.subscription, "subscription"),
                text: try need(fields.message, "message"))
        case "finish": return .finish(subscription: try need(fields.subscription, "subscription"))
        case "authorization": return .authorization(try authorization())
        case "accuracy":
            return .accuracyAnswer(request: try need(fields.request, "request"), error: fields.error)
        case "prompt":
            return .prompt(
                prompt: try need(fields.prompt, "prompt"),
                WirePrompt(
                    kind: try need(fields.kind, "kind"), identity: try need(fields.identity, "identity"),
                    reason: fields.reason ?? "", purposeKey: fields.purposeKey,
                    defaultsToApproximate: fields.defaultsToApproximate ?? false))
        case "withdraw": return .withdraw(prompt: try need(fields.prompt, "prompt"))
        case "access": return .access(id: fields.id, try need(fields.access, "access"))
        case "monitor":
            let text = try need(fields.state, "state")
            guard let state = WireMonitoringState(rawValue: text) else {
                throw WireError("the daemon sent a monitor event in an unknown state '\(text)'")
            }
            return .monitorEvent(
                subscription: try need(fields.subscription, "subscription"),
                WireMonitorEvent(
                    identifier: try need(fields.identifier, "identifier"), state: state,
                    date: try need(fields.date, "date"), flags: fields.flags ?? [],
                    generation: try need(fields.generation, "generation"),
                    sequence: try need(fields.sequence, "sequence")))
        default: throw WireError("the daemon sent an unknown event '\(event)'")
        }
    }
}
