// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationWire

/// Who may see whose use of location: a user their own programs, root and the administrators'
/// group everyone's, a sandboxed program nothing (a sandbox does not speak for its user, and what
/// its user's other programs do is none of its business).
extension Daemon {
    /// The user whose activity `identity` asks to see (`nil`: everyone's), or why it may not.
    func activityView(_ identity: PeerIdentity, uid: Int?, all: Bool) throws(WireError) -> UInt32? {
        try requireUnsandboxed(identity, to: "see which programs use location")
        let administrator = isAdministrator(identity)
        if all {
            guard administrator else {
                throw WireError(
                    "only root or members of the administrators' group may see every user's use of location; "
                        + "drop --all to see your own")
            }
            return nil
        }
        guard let uid else { return identity.uid }
        guard let target = UInt32(exactly: uid) else { throw WireError("'uid' \(uid) is not a user id") }
        guard target == identity.uid || administrator else {
            throw WireError(
                "only root or members of the administrators' group may see another user's use of location; "
                    + "drop --uid to see your own")
        }
        return target
    }

    /// The access history `view` may see (everyone's for `nil`), since `since`, of `app` alone
    /// when given, oldest first, with how many of its lines were damaged (a cut-off write): handed
    /// to `answer` on the history's own thread, once every entry recorded before is written.
    func history(
        view: UInt32?, since: Double?, app: String?,
        _ answer: @escaping @Sendable (AccessHistory.Read) -> Void
    ) throws(WireError) {
        guard let history = activity.history else {
            throw WireError(
                "gpslocd keeps no access history: it was started with --history-days 0 (or \"historyDays\": 0 "
                    + "in gpslocd.conf); give it a number of days")
        }
        history.read(uids: view.map { [$0] }) { users in
            var read = AccessHistory.Read()
            for uid in users.keys.sorted() {
                let user = users[uid]!
                read.damaged += user.damaged
                read.entries += user.entries.filter { entry in
                    (since.map { entry.time >= $0 } ?? true) && (app.map { entry.app == $0 } ?? true)
                }
            }
            if view == nil { read.entries.sort { $0.time < $1.time } }
            answer(read)
        }
    }
}
