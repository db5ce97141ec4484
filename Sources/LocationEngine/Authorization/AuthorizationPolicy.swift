// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

/// How much authorization a service session asks for.
public enum SessionLevel: Int, Sendable, Hashable, Comparable {
    case none = 0
    case whenInUse = 1
    case always = 2

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The authorization an app has, as the user, an administrator or the system decided it.
public enum AuthorizationStatus: Int32, Sendable, Hashable, CaseNamed {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorizedAlways = 3
    case authorizedWhenInUse = 4

    private static let names = [
        "notDetermined", "restricted", "denied", "authorizedAlways", "authorizedWhenInUse",
    ]

    /// The case's name, as the wire and `gpsloc auth` spell it.
    public var description: String { Self.names[Int(rawValue)] }
}

/// Whether an app receives precise locations or reduced ones.
public enum AccuracyAuthorization: Int, Sendable, Hashable, CaseNamed {
    case fullAccuracy = 0
    case reducedAccuracy = 1

    private static let names = ["fullAccuracy", "reducedAccuracy"]

    /// The case's name, as the wire spells it.
    public var description: String { Self.names[rawValue] }
}

/// A session an app holds: an explicit service session (`CLServiceSession` in the Apple API), or
/// the implicit one that subscribing to updates or monitor events, or holding a background
/// activity session, amounts to.
package struct SessionRequirement: Sendable, Hashable {
    package var level: SessionLevel
    package var purposeKey: String?
    package var explicit: Bool
    /// Keeps a when-in-use app in use in the background (a background activity session).
    package var keepsInUse = false
    /// `false` for an `.always` session that holds Always when its user decided it, and asks for
    /// no more than when-in-use: the session the daemon holds for a program that asks for
    /// nothing itself (a gpsd client, a GeoClue app), served on its user's decision alone.
    package var asksForAlways = true

    package init(
        level: SessionLevel, purposeKey: String? = nil, explicit: Bool, keepsInUse: Bool = false,
        asksForAlways: Bool = true
    ) {
        self.level = level
        self.purposeKey = purposeKey
        self.explicit = explicit
        self.keepsInUse = keepsInUse
        self.asksForAlways = asksForAlways
    }
}

/// Why updates are missing, or what limits them: the flags that every update, every session's
/// diagnostics and every monitor event carry (Core Location's names).
///
/// Held as one bit each: they go with every update, and as nine separate values they were
/// copied, passed and compared one by one for every subscriber at every fix (`BENCHMARKS.md`,
/// round 2, twenty-third part).
public struct AuthorizationFlags: Sendable, Hashable {
    /// The flags that are set, a bit each, in the order of the properties below.
    package private(set) var bits: UInt16 = 0

    public var authorizationDenied: Bool {
        get { self[0] }
        set { self[0] = newValue }
    }
    public var authorizationDeniedGlobally: Bool {
        get { self[1] }
        set { self[1] = newValue }
    }
    public var authorizationRestricted: Bool {
        get { self[2] }
        set { self[2] = newValue }
    }
    public var authorizationRequestInProgress: Bool {
        get { self[3] }
        set { self[3] = newValue }
    }
    public var insufficientlyInUse: Bool {
        get { self[4] }
        set { self[4] = newValue }
    }
    public var serviceSessionRequired: Bool {
        get { self[5] }
        set { self[5] = newValue }
    }
    public var fullAccuracyDenied: Bool {
        get { self[6] }
        set { self[6] = newValue }
    }
    public var alwaysAuthorizationDenied: Bool {
        get { self[7] }
        set { self[7] = newValue }
    }
    public var accuracyLimited: Bool {
        get { self[8] }
        set { self[8] = newValue }
    }

    public init() {}

    /// The flags whose bits are set in `bits` (as ``bits`` holds them).
    package init(bits: UInt16) {
        self.bits = bits
    }

    fileprivate subscript(bit: UInt16) -> Bool {
        get { bits & (1 << bit) != 0 }
        set { bits = newValue ? bits | (1 << bit) : bits & ~(1 << bit) }
    }
}

extension AuthorizationFlags {
    /// Each flag's name in Core Location's API, at its bit: how the flags are printed and how
    /// they cross the daemon's socket.
    package static let names = [
        "authorizationDenied", "authorizationDeniedGlobally", "authorizationRestricted",
        "authorizationRequestInProgress", "insufficientlyInUse", "serviceSessionRequired",
        "fullAccuracyDenied", "alwaysAuthorizationDenied", "accuracyLimited",
    ]

    /// The names of the flags that are set, in the order of their bits.
    package var setNames: [String] {
        Self.names.indices.filter { self[UInt16($0)] }.map { Self.names[$0] }
    }

    /// The flags named; names not in ``names`` are ignored (a newer daemon may add some).
    package init(named names: [String]) {
        self.init()
        for name in names {
            if let bit = Self.names.firstIndex(of: name) { self[UInt16(bit)] = true }
        }
    }
}

extension AuthorizationFlags: CustomDebugStringConvertible {
    /// The flags that are set, by name, as the separate values they stand for would print.
    public var debugDescription: String {
        "AuthorizationFlags(\(setNames.map { "\($0): true" }.joined(separator: ", ")))"
    }
}

/// The authorization's verdict on updates: whether they flow at all, whether they are precise,
/// and the flags they carry.
struct UpdateGate: Sendable, Hashable {
    var deliver: Bool
    var full: Bool
    var flags: AuthorizationFlags
}

/// What a prompt decision leads to: a question for the user, or a request refused without one.
enum PromptDecision: Sendable, Hashable {
    case ask(PromptRequest)
    /// The request cannot be shown; the text says why and what to do.
    case refuse(String)
}

/// The authorization rules of Core Location as a pure state machine: given the stored decisions,
/// the manifest, the sessions held, whether the app is in use and what is being asked, it says
/// which flags apply, whether locations may flow and at what accuracy, and what to ask next.
package struct AuthorizationState: Sendable {
    package var client: String { didSet { lookUp() } }
    package var manifest: Manifest { didSet { summarize() } }
    package var snapshot: AuthorizationSnapshot { didSet { lookUp() } }
    package var sessions: [Int: SessionRequirement] = [:] { didSet { summarize() } }
    /// What the questions asked at every fix need of ``sessions``, worked out when they change:
    /// each subscription holds a session, and reading all of them several times per fix was a
    /// pass over every client of the app at every epoch.
    private var summary = SessionSummary()
    /// One-shot requests of the delegate API (`requestWhenInUseAuthorization()` and
    /// `requestAlwaysAuthorization()`), kept until they are answered or moot.
    package var managerRequest: SessionLevel?
    package var inUse: Bool
    /// Whether the app was in use when ``reconcileUse()`` last ran.
    package var wasInUse = true
    /// The question showing now.
    package var prompt: PromptRequest?
    /// Purpose keys granted temporary full accuracy; they lapse when the app leaves use.
    package var temporaryFullAccuracy: Set<String> = []
    /// Purpose keys whose precise-location request was declined or could not be asked.
    package var declinedPurposes: Set<String> = []
    /// Refusals already reported, so each is logged once.
    package var reported: Set<String> = []

    /// The client's decision in ``snapshot``, and whether an administrator restricts it: looked
    /// up when either changes, not for each fix (several of these are read for every one, and
    /// the lookup hashes the client's name).
    package private(set) var record: ClientAuthorization
    package private(set) var restricted: Bool

    package init(client: String, manifest: Manifest, snapshot: AuthorizationSnapshot, inUse: Bool) {
        self.client = client
        self.manifest = manifest
        self.snapshot = snapshot
        self.inUse = inUse
        (record, restricted) = Self.entry(of: client, in: snapshot)
    }

    private mutating func lookUp() { (record, restricted) = Self.entry(of: client, in: snapshot) }

    private mutating func summarize() {
        summary = SessionSummary(sessions, explicitOnly: manifest.requiresExplicitServiceSession)
    }

    private static func entry(of client: String, in snapshot: AuthorizationSnapshot) -> (
        ClientAuthorization, Bool
    ) {
        (snapshot[client], snapshot.isRestricted(client))
    }

    package var status: AuthorizationStatus {
        if !snapshot.servicesEnabled { return .denied }
        if restricted { return .restricted }
        switch record.decision {
        case .notDetermined: return .notDetermined
        case .denied: return .denied
        case .whenInUse: return .authorizedWhenInUse
        case .always: return .authorizedAlways
        }
    }

    package var isAuthorized: Bool { status == .authorizedWhenInUse || status == .authorizedAlways }

    package var accuracy: AccuracyAuthorization {
        if record.precise || !temporaryFullAccuracy.isEmpty { return .fullAccuracy }
        return .reducedAccuracy
    }

    /// The sessions that count: explicit ones, and implicit ones unless the manifest requires
    /// explicit sessions. Filtered as it is read, without an array.
    package var effectiveSessions: some Sequence<SessionRequirement> {
        let explicitOnly = manifest.requiresExplicitServiceSession
        return sessions.values.lazy.filter { $0.explicit || !explicitOnly }
    }

    /// The highest level asked for, by a session that counts or the delegate API's request.
    /// The level the app asks for: what its sessions and its requests would have it be asked.
    package var requestedLevel: SessionLevel {
        max(managerRequest ?? .none, summary.askedLevel)
    }

    package var serviceSessionRequired: Bool {
        guard manifest.requiresExplicitServiceSession else { return false }
        if !summary.explicit { return true }
        // A `.none` session satisfies the requirement only once the app is authorized.
        return !isAuthorized && !summary.explicitAuthorizing
    }

    /// Always takes effect only while the app holds an `.always` session.
    package var alwaysActive: Bool {
        record.decision == .always && summary.level == .always
    }

    /// In use: in the foreground, or kept in use by a background activity session (whatever
    /// the manifest says about explicit sessions), or Always authorized and holding an `.always`
    /// session.
    package var effectivelyInUse: Bool {
        inUse || alwaysActive || summary.keepsInUse
    }

    /// The common flags: global switch, restrictions, denial, session and in-use state.
    package var baseFlags: AuthorizationFlags {
        var flags = AuthorizationFlags()
        flags.authorizationRequestInProgress = prompt != nil
        if !snapshot.servicesEnabled {
            flags.authorizationDeniedGlobally = true
            flags.authorizationDenied = true
            return flags
        }
        if restricted {
            flags.authorizationRestricted = true
            return flags
        }
        flags.serviceSessionRequired = serviceSessionRequired
        switch record.decision {
        case .denied:
            flags.authorizationDenied = true
        case .notDetermined:
            if !inUse {
                flags.insufficientlyInUse = true
            } else if prompt == nil, requestedLevel >= .whenInUse,
                manifest.whenInUseUsageDescription == nil
            {
                // The request was refused without a prompt: it behaves as a denial.
                flags.authorizationDenied = true
            }
        case .whenInUse, .always:
            if !effectivelyInUse { flags.insufficientlyInUse = true }
        }
        return flags
    }

    /// The flags of an explicit session's diagnostics.
    package func diagnostic(for session: SessionRequirement) -> AuthorizationFlags {
        var flags = baseFlags
        flags.accuracyLimited = isAuthorized && accuracy == .reducedAccuracy
        if let key = session.purposeKey, accuracy == .reducedAccuracy, declinedPurposes.contains(key) {
            flags.fullAccuracyDenied = true
        }
        if session.level == .always, record.decision == .whenInUse,
            record.alwaysPrompted || record.once
        {
            flags.alwaysAuthorizationDenied = true
        }
        return flags
    }

    /// Whether updates flow to a subscriber, and whether they are precise.
    var updateGate: UpdateGate {
        var flags = baseFlags
        let blocked =
            flags.authorizationDenied || flags.authorizationRestricted || flags.insufficientlyInUse
            || flags.serviceSessionRequired || !isAuthorized
        if blocked { return UpdateGate(deliver: false, full: false, flags: flags) }
        let full = accuracy == .fullAccuracy
        flags.accuracyLimited = !full
        return UpdateGate(deliver: true, full: full, flags: flags)
    }

    /// What to ask next, if anything: prompts are shown only to an app in use, with location
    /// services on and no restriction, one at a time.
    mutating func nextPrompt() -> PromptDecision? {
        guard prompt == nil, inUse, snapshot.servicesEnabled, !restricted else { return nil }
        let level = requestedLevel
        switch record.decision {
        case .notDetermined where level >= .whenInUse:
            guard let reason = manifest.whenInUseUsageDescription else {
                // A program with no manifest at all (a tool, a script) cannot be given a key: it
                // is decided on by name instead.
                let fix =
                    manifest.alwaysUsageDescription == nil && manifest.temporaryUsageDescriptions.isEmpty
                    ? "it cannot be asked without one: decide for it with `gpsloc auth grant '\(client)'` "
                        + "(or `gpsloc auth deny`), or give it an Info.plist or a registration that has one"
                    : "add one to its Info.plist or registration"
                return .refuse(
                    "\(client) asked for location access, but it has no "
                        + "NSLocationWhenInUseUsageDescription; \(fix)")
            }
            return .ask(
                PromptRequest(
                    kind: .whenInUse, client: client, reason: reason,
                    defaultsToApproximate: manifest.defaultAccuracyReduced))
        case .whenInUse where level == .always && !record.once && !record.alwaysPrompted:
            guard let reason = manifest.alwaysUsageDescription else {
                return .refuse(
                    "\(client) asked for Always access, but its manifest has no "
                        + "NSLocationAlwaysAndWhenInUseUsageDescription; add one to its Info.plist")
            }
            return .ask(PromptRequest(kind: .always, client: client, reason: reason))
        case .whenInUse, .always:
            guard accuracy == .reducedAccuracy else { return nil }
            let keys = Set(effectiveSessions.compactMap(\.purposeKey))
            for key in keys.sorted()
            where !declinedPurposes.contains(key) && !temporaryFullAccuracy.contains(key) {
                guard let reason = manifest.temporaryUsageDescriptions[key] else {
                    declinedPurposes.insert(key)
                    return .refuse(
                        "\(client) asked for precise location with the purpose key \"\(key)\", which "
                            + "is not in its NSLocationTemporaryUsageDescriptionDictionary")
                }
                return .ask(
                    PromptRequest(
                        kind: .temporaryFullAccuracy, client: client, reason: reason, purposeKey: key))
            }
            return nil
        default:
            return nil
        }
    }

    /// Applies the user's answer to the question that was showing; returns whether the stored
    /// decisions changed.
    package mutating func answer(_ answer: PromptAnswer?, to request: PromptRequest) -> Bool {
        if prompt == request { prompt = nil }
        let before = snapshot
        switch request.kind {
        case .whenInUse:
            guard record.decision == .notDetermined else { break }
            switch answer {
            case .allowOnce(let precise):
                snapshot[client].decision = .whenInUse
                snapshot[client].once = true
                snapshot[client].precise = precise
            case .allowWhileUsing(let precise):
                snapshot[client].decision = .whenInUse
                snapshot[client].once = false
                snapshot[client].precise = precise
            case .allowAlways, .allowFullAccuracy:
                snapshot[client].decision = .whenInUse
                snapshot[client].once = false
                snapshot[client].precise = !manifest.defaultAccuracyReduced
            case .deny:
                snapshot[client].decision = .denied
            case nil:
                break
            }
            if managerRequest == .whenInUse || answer == .deny { managerRequest = nil }
        case .always:
            guard answer != nil else { break }
            snapshot[client].alwaysPrompted = true
            if answer == .allowAlways, record.decision == .whenInUse {
                snapshot[client].decision = .always
            }
            managerRequest = nil
        case .temporaryFullAccuracy:
            guard let key = request.purposeKey else { break }
            switch answer {
            case .allowFullAccuracy, .allowAlways, .allowWhileUsing(precise: true),
                .allowOnce(precise: true):
                temporaryFullAccuracy.insert(key)
            case nil:
                break
            default:
                declinedPurposes.insert(key)
            }
        }
        snapshot[client].pendingRequest = nil
        if isAuthorized, managerRequest == .whenInUse { managerRequest = nil }
        return snapshot != before
    }

    /// Brings the use-dependent grants up to date after any change. When the app stops being in
    /// use (it leaves the foreground and no background activity session keeps it in use), Allow
    /// Once lapses (the decision goes back to undetermined, to be asked again) and temporary full
    /// accuracy ends. Returns whether the stored decisions changed.
    package mutating func reconcileUse() -> Bool {
        let now = effectivelyInUse
        defer { wasInUse = now }
        guard wasInUse, !now else { return false }
        temporaryFullAccuracy.removeAll()
        declinedPurposes.removeAll()
        guard record.once, record.decision == .whenInUse else { return false }
        snapshot[client].decision = .notDetermined
        snapshot[client].once = false
        return true
    }
}

/// What an app's sessions ask for, in sum.
private struct SessionSummary {
    /// The highest level of the sessions that count (explicit ones only, when the manifest
    /// requires explicit sessions).
    var level = SessionLevel.none
    /// The highest level they ask for: ``level``, but when-in-use for a session that holds
    /// Always without asking for it (``SessionRequirement/asksForAlways``).
    var askedLevel = SessionLevel.none
    /// Whether a session keeps the app in use (counted whatever the manifest says).
    var keepsInUse = false
    /// Whether there is an explicit session at all, and one at when-in-use or above.
    var explicit = false
    var explicitAuthorizing = false

    init() {}

    init(_ sessions: [Int: SessionRequirement], explicitOnly: Bool) {
        for session in sessions.values {
            keepsInUse = keepsInUse || session.keepsInUse
            if session.explicit {
                explicit = true
                explicitAuthorizing = explicitAuthorizing || session.level >= .whenInUse
            }
            if session.explicit || !explicitOnly {
                level = max(level, session.level)
                askedLevel = max(
                    askedLevel, session.asksForAlways ? session.level : min(session.level, .whenInUse))
            }
        }
    }
}
