// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

/// The level of a session or an authorization request, as the wire spells it.
public enum WireLevel: String, Sendable, Hashable, CaseIterable {
    case none, whenInUse, always
}

/// A change to the system's decisions, made by an administrator (`gpsloc auth`) through the
/// daemon, or by hand on an in-process store.
public enum AuthorizationChange: Sendable, Hashable {
    case grant(app: String, always: Bool, approximate: Bool, once: Bool)
    case deny(app: String)
    /// Forgets one app's decisions, or every app's with `nil`.
    case reset(app: String?)
    case services(enabled: Bool)
    case restrict(app: String, lift: Bool)
}

extension AuthorizationChange: CustomStringConvertible {
    /// The change in words, as a log line says it: `granted '/usr/bin/socat' always, approximate`.
    public var description: String {
        switch self {
        case .grant(let app, let always, let approximate, let once):
            let level = once ? "once" : always ? "always" : "when in use"
            return "granted '\(app)' \(level), \(approximate ? "approximate" : "precise")"
        case .deny(let app): return "denied '\(app)'"
        case .reset(let app?): return "reset the decisions of '\(app)'"
        case .reset(nil): return "reset every app's decisions"
        case .services(let enabled): return "turned location services \(enabled ? "on" : "off")"
        case .restrict(let app, let lift):
            return lift ? "lifted the restriction of '\(app)'" : "restricted '\(app)'"
        }
    }
}

/// The user's answer to a prompt, as an agent sends it.
public enum WireAnswer: String, Sendable, Hashable, CaseIterable {
    case allowOnce, allowOnceApproximate, allowWhileUsing, allowWhileUsingApproximate, allowAlways
    case allowFullAccuracy, deny, dismiss
}

/// What a client asks of the daemon. Numbers that name sessions, subscriptions, precise-location
/// requests and prompts are chosen by the client (sessions, subscriptions, requests) or the
/// daemon (prompts) and are unique within one connection.
public enum WireRequest: Sendable, Hashable {
    /// The first request of every connection.
    case hello(version: Int, receiver: String?)
    /// A `CLServiceSession`.
    case openSession(session: Int, level: WireLevel, purposeKey: String?)
    /// A `CLBackgroundActivitySession`.
    case openBackgroundSession(session: Int)
    case closeSession(session: Int)
    /// `liveUpdates` with an `Activity` raw value; a monitor's feed when `monitoring`;
    /// reduced locations whatever the authorization when `reduced` (`kind` `monitor` or `reduced`).
    /// `continuous`: every fix, without pausing while the device stands still
    /// (`pausesLocationUpdatesAutomatically = false`). On the wire, `kind` lists `monitor`,
    /// `reduced` and `continuous`, separated by commas.
    /// `implicitSession: false` for the delegate API's updates, which ask for nothing: only
    /// `request…Authorization()` does.
    case subscribeUpdates(
        subscription: Int, configuration: Int, monitoring: Bool, reduced: Bool = false,
        continuous: Bool = false, implicitSession: Bool = true)
    case subscribeDiagnostics(subscription: Int, session: Int)
    case unsubscribe(subscription: Int)
    /// `requestWhenInUseAuthorization()` or `requestAlwaysAuthorization()`.
    case requestAuthorization(WireLevel)
    case requestTemporaryFullAccuracy(request: Int, purposeKey: String)
    /// The client says whether it is in use; the daemon only believes it when it says "not".
    case activity(inUse: Bool)
    /// The decisions of a user (the caller's own, or `uid`'s for an administrator).
    case showAuthorization(uid: Int?)
    /// The access history of a user (the caller's own, `uid`'s or, with `all`, everyone's for an
    /// administrator): its entries since `since` (seconds since 1970), of `app` alone when given,
    /// each an `access` event, then `ok`.
    case showActivity(uid: Int?, all: Bool, since: Double?, app: String?)
    /// Who uses location now, then each period's begin and end as it happens (`access` events):
    /// the caller's user's programs, or everyone's with `all` for an administrator.
    case watchActivity(all: Bool)
    case changeAuthorization(uid: Int?, AuthorizationChange)
    /// Makes this connection the caller's agent: prompts for apps under its uid come here.
    case registerAgent
    case answerPrompt(prompt: Int, WireAnswer)
    /// Adds (or replaces) a condition of the app's monitor `monitor`, in the state `assuming`.
    case addCondition(monitor: String, identifier: String, WireCondition, assuming: WireMonitoringState)
    case removeCondition(monitor: String, identifier: String)
    /// The monitor's conditions with the last event consumed for each (a `records` reply).
    case monitorRecords(monitor: String)
    /// The monitor's events, those that happened while nobody listened first.
    case subscribeMonitor(subscription: Int, monitor: String)
    /// The app received the event numbered `sequence`: it becomes its condition's last event.
    case consumedEvent(sequence: Int)

    /// The `op` member that names this request.
    public var op: String {
        switch self {
        case .hello: "hello"
        case .openSession: "session.open"
        case .openBackgroundSession: "session.background"
        case .closeSession: "session.close"
        case .subscribeUpdates: "updates.subscribe"
        case .subscribeDiagnostics: "diagnostics.subscribe"
        case .unsubscribe: "unsubscribe"
        case .requestAuthorization: "authorization.request"
        case .requestTemporaryFullAccuracy: "accuracy.request"
        case .activity: "activity"
        case .showAuthorization: "auth.show"
        case .showActivity: "activity.show"
        case .watchActivity: "activity.watch"
        case .changeAuthorization(_, let change):
            switch change {
            case .grant: "auth.grant"
            case .deny: "auth.deny"
            case .reset: "auth.reset"
            case .services: "auth.services"
            case .restrict: "auth.restrict"
            }
        case .registerAgent: "agent.register"
        case .answerPrompt: "agent.answer"
        case .addCondition: "monitor.add"
        case .removeCondition: "monitor.remove"
        case .monitorRecords: "monitor.records"
        case .subscribeMonitor: "monitor.subscribe"
        case .consumedEvent: "monitor.consumed"
        }
    }

    /// Every `op` the daemon knows, for the error that names an unknown one.
    public static let operations = [
        "hello", "session.open", "session.background", "session.close", "updates.subscribe",
        "diagnostics.subscribe", "unsubscribe", "authorization.request", "accuracy.request", "activity",
        "auth.show", "activity.show", "activity.watch", "auth.grant", "auth.deny", "auth.reset",
        "auth.services", "auth.restrict",
        "agent.register", "agent.answer", "monitor.add", "monitor.remove", "monitor.records",
        "monitor.subscribe", "monitor.consumed",
    ]

    /// Reads a request line; the error names the member at fault and what it should be.
    public static func parse(_ line: some Collection<UInt8>) throws(WireError) -> (
        id: Int?, request: WireRequest
    ) {
        let fields = try WireLine.parse(line, what: "the request")
        guard let op = fields.op else {
            throw WireError(
                "the request has no 'op'; it must be one of: \(operations.joined(separator: ", "))")
        }
        let what = "request '\(op)'"
        func need<T>(_ value: T?, _ name: String, _ kind: String) throws(WireError) -> T {
            guard let value else { throw WireError("\(what) needs '\(name)', \(kind)") }
            return value
        }
        func level(_ text: String?, allowing: [WireLevel]) throws(WireError) -> WireLevel {
            let text = try need(
                text, "authorization", "one of " + allowing.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            )
            guard let value = WireLevel(rawValue: text), allowing.contains(value) else {
                let names = allowing.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                throw WireError("\(what): '\(text)' is not a level; it must be one of \(names)")
            }
            return value
        }
        func app() throws(WireError) -> String {
            let app = try need(fields.app, "app", "an app identifier")
            guard !app.isEmpty, app.utf8.count <= 512 else {
                throw WireError("\(what): 'app' must be 1 to 512 bytes long")
            }
            return app
        }
        /// A monitor's name or a condition's identifier: 1 to 256 bytes.
        func name(_ value: String?, _ member: String) throws(WireError) -> String {
            let value = try need(value, member, "a name of 1 to 256 bytes")
            guard !value.isEmpty, value.utf8.count <= 256 else {
                throw WireError("\(what): '\(member)' must be 1 to 256 bytes long")
            }
            return value
        }
        let request: WireRequest
        switch op {
        case "hello":
            request = .hello(
                version: try need(
                    fields.version, "version", "the protocol version (\(WireProtocol.version))"),
                receiver: fields.receiver)
        case "session.open":
            request = .openSession(
                session: try need(fields.session, "session", "a number of the client's choosing"),
                level: try level(fields.authorization, allowing: WireLevel.allCases),
                purposeKey: fields.purposeKey)
        case "session.background":
            request = .openBackgroundSession(
                session: try need(fields.session, "session", "a number of the client's choosing"))
        case "session.close":
            request = .closeSession(
                session: try need(fields.session, "session", "the number of an open session"))
        case "updates.subscribe":
            let kinds = Set((fields.kind ?? "").split(separator: ",").map(String.init))
            request = .subscribeUpdates(
                subscription: try need(
                    fields.subscription, "subscription", "a number of the client's choosing"),
                configuration: fields.configuration ?? 0, monitoring: kinds.contains("monitor"),
                reduced: kinds.contains("reduced"), continuous: kinds.contains("continuous"),
                implicitSession: !kinds.contains("sessionless"))
        case "diagnostics.subscribe":
            request = .subscribeDiagnostics(
                subscription: try need(
                    fields.subscription, "subscription", "a number of the client's choosing"),
                session: try need(fields.session, "session", "the number of an open session"))
        case "unsubscribe":
            request = .unsubscribe(
                subscription: try need(fields.subscription, "subscription", "the number of a subscription"))
        case "authorization.request":
            request = .requestAuthorization(try level(fields.authorization, allowing: [.whenInUse, .always]))
        case "accuracy.request":
            request = .requestTemporaryFullAccuracy(
                request: try need(fields.request, "request", "a number of the client's choosing"),
                purposeKey: try need(
                    fields.purposeKey, "purposeKey", "a key of NSLocationTemporaryUsageDescriptionDictionary")
            )
        case "activity":
            request = .activity(inUse: try need(fields.inUse, "inUse", "true or false"))
        case "auth.show":
            request = .showAuthorization(uid: fields.uid)
        case "activity.show":
            request = .showActivity(
                uid: fields.uid, all: fields.all ?? false, since: fields.since,
                app: fields.app == nil ? nil : try app())
        case "activity.watch":
            request = .watchActivity(all: fields.all ?? false)
        case "auth.grant":
            let always: Bool
            switch fields.level ?? "whenInUse" {
            case "whenInUse": always = false
            case "always": always = true
            case let other:
                throw WireError("\(what): 'level' is '\(other)'; it must be 'whenInUse' or 'always'")
            }
            if always && fields.once == true {
                throw WireError("\(what): 'once' applies to when-in-use only; drop it or grant when-in-use")
            }
            request = .changeAuthorization(
                uid: fields.uid,
                .grant(
                    app: try app(), always: always, approximate: fields.approximate ?? false,
                    once: fields.once ?? false))
        case "auth.deny":
            request = .changeAuthorization(uid: fields.uid, .deny(app: try app()))
        case "auth.reset":
            if fields.all == true {
                guard fields.app == nil else {
                    throw WireError("\(what): name one 'app' or send 'all': true, not both")
                }
                request = .changeAuthorization(uid: fields.uid, .reset(app: nil))
            } else {
                request = .changeAuthorization(uid: fields.uid, .reset(app: try app()))
            }
        case "auth.services":
            request = .changeAuthorization(
                uid: fields.uid, .services(enabled: try need(fields.enabled, "enabled", "true or false")))
        case "auth.restrict":
            request = .changeAuthorization(
                uid: fields.uid, .restrict(app: try app(), lift: fields.lift ?? false))
        case "agent.register":
            request = .registerAgent
        case "agent.answer":
            let text = try need(fields.answer, "answer", "an answer")
            guard let answer = WireAnswer(rawValue: text) else {
                let names = WireAnswer.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                throw WireError("\(what): '\(text)' is not an answer; it must be one of \(names)")
            }
            request = .answerPrompt(
                prompt: try need(fields.prompt, "prompt", "the number of a prompt"), answer)
        case "monitor.add":
            let text = fields.assuming ?? "unknown"
            guard let assuming = WireMonitoringState(rawValue: text) else {
                let names = WireMonitoringState.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                throw WireError("\(what): 'assuming' is '\(text)'; it must be one of \(names)")
            }
            request = .addCondition(
                monitor: try name(fields.monitor, "monitor"),
                identifier: try name(fields.identifier, "identifier"),
                try need(
                    fields.condition, "condition", #"{"circle":{"lat":…,"lon":…,"radius":…}} or a beacon"#),
                assuming: assuming)
        case "monitor.remove":
            request = .removeCondition(
                monitor: try name(fields.monitor, "monitor"),
                identifier: try name(fields.identifier, "identifier"))
        case "monitor.records":
            request = .monitorRecords(monitor: try name(fields.monitor, "monitor"))
        case "monitor.subscribe":
            request = .subscribeMonitor(
                subscription: try need(
                    fields.subscription, "subscription", "a number of the client's choosing"),
                monitor: try name(fields.monitor, "monitor"))
        case "monitor.consumed":
            request = .consumedEvent(
                sequence: try need(fields.sequence, "sequence", "the sequence of a monitor event received"))
        default:
            throw WireError(
                "'\(op)' is not a request; the requests are: \(operations.joined(separator: ", "))")
        }
        return (fields.id, request)
    }

    /// The request as one line, `\n` included.
    public func encoded(id: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONObjectWriter.append(to: &bytes, estimate: 256) { json in
            json.add("op", string: op)
            json.add("id", integer: id)
            switch self {
            case .hello(let version, let receiver):
                json.add("version", integer: version)
                json.add("receiver", string: receiver)
            case .openSession(let session, let level, let purposeKey):
                json.add("session", integer: session)
                json.add("authorization", string: level.rawValue)
                json.add("purposeKey", string: purposeKey)
            case .openBackgroundSession(let session), .closeSession(let session):
                json.add("session", integer: session)
            case .subscribeUpdates(
                let subscription, let configuration, let monitoring, let reduced, let continuous,
                let implicitSession):
                json.add("subscription", integer: subscription)
                json.add("configuration", integer: configuration)
                let kinds = [
                    (monitoring, "monitor"), (reduced, "reduced"), (continuous, "continuous"),
                    (!implicitSession, "sessionless"),
                ].filter(\.0).map(\.1)
                if !kinds.isEmpty { json.add("kind", string: kinds.joined(separator: ",")) }
            case .subscribeDiagnostics(let subscription, let session):
                json.add("subscription", integer: subscription)
                json.add("session", integer: session)
            case .unsubscribe(let subscription):
                json.add("subscription", integer: subscription)
            case .requestAuthorization(let level):
                json.add("authorization", string: level.rawValue)
            case .requestTemporaryFullAccuracy(let request, let purposeKey):
                json.add("request", integer: request)
                json.add("purposeKey", string: purposeKey)
            case .activity(let inUse):
                json.add("inUse", bool: inUse)
            case .showAuthorization(let uid):
                json.add("uid", integer: uid)
            case .showActivity(let uid, let all, let since, let app):
                json.add("uid", integer: uid)
                if all { json.add("all", bool: true) }
                json.add("since", since, decimals: 3)
                json.add("app", string: app)
            case .watchActivity(let all):
                if all { json.add("all", bool: true) }
            case .changeAuthorization(let uid, let change):
                json.add("uid", integer: uid)
                switch change {
                case .grant(let app, let always, let approximate, let once):
                    json.add("app", string: app)
                    json.add("level", string: always ? "always" : "whenInUse")
                    json.add("approximate", bool: approximate)
                    json.add("once", bool: once)
                case .deny(let app):
                    json.add("app", string: app)
                case .reset(let app):
                    if let app { json.add("app", string: app) } else { json.add("all", bool: true) }
                case .services(let enabled):
                    json.add("enabled", bool: enabled)
                case .restrict(let app, let lift):
                    json.add("app", string: app)
                    json.add("lift", bool: lift)
                }
            case .registerAgent:
                break
            case .answerPrompt(let prompt, let answer):
                json.add("prompt", integer: prompt)
                json.add("answer", string: answer.rawValue)
            case .addCondition(let monitor, let identifier, let condition, let assuming):
                json.add("monitor", string: monitor)
                json.add("identifier", string: identifier)
                json.openObject("condition")
                condition.write(&json)
                json.closeObject()
                json.add("assuming", string: assuming.rawValue)
            case .removeCondition(let monitor, let identifier):
                json.add("monitor", string: monitor)
                json.add("identifier", string: identifier)
            case .monitorRecords(let monitor):
                json.add("monitor", string: monitor)
            case .subscribeMonitor(let subscription, let monitor):
                json.add("subscription", integer: subscription)
                json.add("monitor", string: monitor)
            case .consumedEvent(let sequence):
                json.add("sequence", integer: sequence)
            }
        }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
