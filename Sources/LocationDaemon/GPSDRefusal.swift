// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

/// What a client of gpsd's protocol is told when it gets no location: its ERROR, naming the
/// program, its user and the command that changes the decision.
enum GPSDRefusal {
    /// Why nothing comes, in words a user reading the client's output can act on (`undecided`:
    /// nobody decided on the app yet).
    static func text(_ flags: AuthorizationFlags, identity: PeerIdentity, undecided: Bool) -> String? {
        let uid = identity.uid
        if case .network = identity.basis {
            let grant =
                "`sudo gpsloc auth grant '\(identity.app)' always --approximate` (or without --approximate)"
            if flags.authorizationRestricted || flags.authorizationDenied {
                return "\(identity.basis.proof): an administrator denied \(identity.app); \(grant) allows it"
            }
            if flags.authorizationDeniedGlobally {
                return "location services are off on this machine"
            }
            return nil
        }
        let grant = "sudo gpsloc auth grant --uid \(uid) '\(identity.app)' always"
        if flags.authorizationDeniedGlobally {
            return "location services are off on this machine; an administrator turns them on with "
                + "`sudo gpsloc auth services on`"
        }
        if flags.authorizationRestricted {
            return "\(identity.app) (uid \(uid)) is restricted from location by an administrator"
        }
        if flags.authorizationDenied {
            return
                "\(identity.app) (uid \(uid)) may not have location: its user denied it, or nobody allowed it; "
                + "its user answers with `gpsloc agent`, or an administrator runs `\(grant)`"
        }
        if flags.authorizationRequestInProgress {
            return
                "\(identity.app) (uid \(uid)) waits for its user's answer: run `gpsloc agent` as uid \(uid), "
                + "or an administrator runs `\(grant)`"
        }
        if undecided {
            return "\(identity.app) (uid \(uid)) has no decision yet: its user is asked when it runs in a "
                + "terminal's foreground (answer with `gpsloc agent`), or an administrator runs `\(grant)`"
        }
        if flags.insufficientlyInUse {
            return "\(identity.app) (uid \(uid)) may have location while in use only, and is not in use: "
                + "run it in a terminal's foreground, or an administrator runs `\(grant)`"
        }
        return nil
    }
}
