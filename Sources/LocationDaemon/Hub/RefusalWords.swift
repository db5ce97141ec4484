// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import LocationWire

/// Why a program gets no location: the word the access history counts it by, and the words its
/// front-end tells it.
struct Refusal: Sendable, Hashable {
    var reason: RefusalReason
    var text: String
}

/// What a program that asks for nothing itself (a gpsd client, a GeoClue app) is told when it
/// gets no location, whichever protocol carries the words: the program, its user and the command
/// that changes the decision.
enum RefusalWords {
    /// Why nothing comes, in words a user reading the client's output can act on (`undecided`:
    /// nobody decided on the app yet).
    static func text(_ flags: AuthorizationFlags, identity: PeerIdentity, undecided: Bool) -> String? {
        refusal(flags, identity: identity, undecided: undecided)?.text
    }

    /// Why nothing comes, and its reason's word (`undecided`: nobody decided on the app yet).
    static func refusal(_ flags: AuthorizationFlags, identity: PeerIdentity, undecided: Bool) -> Refusal? {
        let uid = identity.uid
        if case .network = identity.basis {
            let grant =
                "`sudo gpsloc auth grant '\(identity.app)' always --approximate` (or without --approximate)"
            if flags.authorizationRestricted || flags.authorizationDenied {
                return Refusal(
                    reason: .networkClient,
                    text:
                        "\(identity.basis.proof): an administrator denied \(identity.app); \(grant) allows it"
                )
            }
            if flags.authorizationDeniedGlobally {
                return Refusal(reason: .servicesOff, text: "location services are off on this machine")
            }
            return nil
        }
        let grant = "sudo gpsloc auth grant --uid \(uid) '\(identity.app)' always"
        if flags.authorizationDeniedGlobally {
            return Refusal(
                reason: .servicesOff,
                text: "location services are off on this machine; an administrator turns them on with "
                    + "`sudo gpsloc auth services on`")
        }
        if flags.authorizationRestricted {
            return Refusal(
                reason: .restricted,
                text: "\(identity.app) (uid \(uid)) is restricted from location by an administrator")
        }
        // Nobody decided: whatever the engine's flags say of a question it could not put, no
        // decision is spoken of as if one had been made.
        let askable = identity.manifest.whenInUseUsageDescription != nil
        if undecided && !askable {
            return Refusal(reason: .noUsageDescription, text: cannotBeAsked(identity))
        }
        if flags.authorizationDenied && !undecided {
            return Refusal(
                reason: .denied,
                text: "\(identity.app) (uid \(uid)) is denied location (by its user or an administrator); "
                    + (askable
                        ? "its user has it asked again with `gpsloc auth reset '\(identity.app)'`, or " : "")
                    + "an administrator allows it with `\(grant)`")
        }
        if flags.authorizationRequestInProgress {
            return Refusal(
                reason: .undecided,
                text:
                    "\(identity.app) (uid \(uid)) waits for its user's answer: run `gpsloc agent` as uid \(uid), "
                    + "or an administrator runs `\(grant)`")
        }
        if undecided {
            // A graphical desktop app is asked while it runs, through its user's desktop (or
            // `gpsloc agent`); anything else while it is in its terminal's foreground.
            let when =
                identity.foregroundProbe.isDesktopApp
                ? "while it runs, through the desktop's location dialog (or `gpsloc agent`)"
                : "when it runs in a terminal's foreground (answer with `gpsloc agent`)"
            return Refusal(
                reason: .undecided,
                text: "\(identity.app) (uid \(uid)) has no decision yet: its user is asked \(when), or an "
                    + "administrator runs `\(grant)`")
        }
        if flags.insufficientlyInUse {
            return Refusal(
                reason: .notInUse,
                text: "\(identity.app) (uid \(uid)) may have location while in use only, and is not in use: "
                    + "run it in a terminal's foreground, or an administrator runs `\(grant)`")
        }
        return nil
    }

    /// Why an app that has no decision, and no usage description to ask with, gets nothing.
    static func cannotBeAsked(_ identity: PeerIdentity) -> String {
        let missing =
            if case .desktopEntry(let entry, _) = identity.basis {
                "its desktop entry \(entry.path) has no X-Geoclue-Reason, and no registration gives it an "
                    + "NSLocationWhenInUseUsageDescription"
            } else {
                "no registration gives it an NSLocationWhenInUseUsageDescription"
            }
        return
            "\(identity.app) (uid \(identity.uid)) has no decision, and cannot be asked for one: \(missing); "
            + "an administrator decides with "
            + "`sudo gpsloc auth grant --uid \(identity.uid) '\(identity.app)' always` (or `gpsloc auth deny`)"
    }

    /// Why an app its user or an administrator refused gets nothing, from its engine's status.
    static func refused(_ app: HostedApp, identity: PeerIdentity) -> Refusal? {
        let engine = app.engine
        guard engine.authorizationStatus == .denied || engine.authorizationStatus == .restricted else {
            return nil
        }
        var flags = AuthorizationFlags()
        flags.authorizationDeniedGlobally = !engine.servicesEnabled
        flags.authorizationRestricted = engine.authorizationStatus == .restricted
        flags.authorizationDenied = engine.authorizationStatus == .denied
        return refusal(flags, identity: identity, undecided: false)
            ?? Refusal(reason: .denied, text: "\(identity.app) (uid \(identity.uid)) is denied location")
    }
}
