// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_spi(FrontEnd) import LocationEngine

/// Why a recorder records nothing, told as it knows it: at once when updates come without a
/// location, again when the reason changes, and every `reminder` while it lasts (a box nobody
/// watches would otherwise be silent for days). A location ends it. Fed each update with the
/// time it came; a pure state machine, so that its timing is tested with a manual clock.
public struct RecordingSilence: Sendable {
    /// Why updates carry no location, in words that say what fixes it.
    public struct Reason: Sendable, Hashable {
        public var text: String
        /// A decision keeps it from recording (rather than the receiver having no fix): a run that
        /// ends having recorded nothing for it did not succeed.
        public var refused: Bool
    }

    public let reminder: Duration
    /// The command that grants the program Always, when the recorder knows it (gpslocd's own
    /// words name it for a client of the daemon).
    public let grant: String?
    /// The reason now, and when it was last said.
    public private(set) var reason: Reason?
    private var said: ContinuousClock.Instant?
    /// Whether any location came in this run.
    public private(set) var recorded = false

    public init(reminder: Duration = .seconds(600), grant: String? = nil) {
        self.reminder = reminder
        self.grant = grant
    }

    /// The line to say for `update`, which came at `now`, if one is due.
    public mutating func note(_ update: LocationUpdate, at now: ContinuousClock.Instant) -> String? {
        if update.location != nil {
            recorded = true
            defer { (reason, said) = (nil, nil) }
            return reason.map { _ in "locations come again; recording" }
        }
        guard let found = Self.reason(of: update, grant: grant) else { return nil }
        if found != reason {
            (reason, said) = (found, now)
            return "recording nothing: \(found.text)"
        }
        guard let said, now - said >= reminder else { return nil }
        self.said = now
        return "still recording nothing: \(found.text)"
    }

    /// Why `update` has no location, from its flags, with `grant`, the command that fixes a
    /// refusal, when known; nil when nothing says.
    public static func reason(of update: LocationUpdate, grant: String? = nil) -> Reason? {
        let flags = update.flags
        let always = "it needs Always" + (grant.map { " (\($0))" } ?? "")
        let refused: String? =
            if flags.authorizationDeniedGlobally {
                "location services are off on this machine (gpsloc auth services on)"
            } else if flags.authorizationRestricted {
                "this program is restricted from location by an administrator"
            } else if flags.authorizationDenied {
                "this program is denied location; \(always)"
            } else if flags.authorizationRequestInProgress {
                "its user has not answered yet (gpsloc agent); \(always)"
            } else if flags.insufficientlyInUse {
                "it may have location while in use only, and a recorder is never in use: \(always)"
            } else if flags.serviceSessionRequired {
                "no session allows it updates"
            } else {
                nil
            }
        if let refused { return Reason(text: refused, refused: true) }
        if update.locationUnavailable {
            return Reason(
                text: "the receiver gives no fix (is its antenna connected, and under the sky?)",
                refused: false)
        }
        return nil
    }
}
