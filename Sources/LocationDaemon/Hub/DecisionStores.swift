// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import LocationEngine

/// The system's decisions, in the daemon's state directory and nowhere a client can write:
/// `decisions/<uid>/authorization.json` for each user's apps, under `decisions/system/`, whose
/// global switch and restrictions apply to every user; network clients' under
/// `decisions/network/`. Directories are 0700 and files 0600,
/// owned by the daemon's user; every write is atomic.
public struct DecisionStores: Sendable {
    public let directory: String
    public let system: AuthorizationStore

    public init(stateDirectory: String) {
        directory = stateDirectory + "/decisions"
        system = AuthorizationStore(directory: directory + "/system")
    }

    /// The store of one user's decisions, under the system's policy.
    public func store(uid: UInt32) -> AuthorizationStore {
        let name = uid == NetworkClients.uid ? "network" : String(uid)
        return AuthorizationStore(directory: "\(directory)/\(name)", policy: system)
    }
}
