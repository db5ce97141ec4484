// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import LocationEngine
import LocationWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Who may change which decisions, and the change itself: a user takes back their own answers,
/// an administrator decides for anyone; a decision for a name nothing knows is kept, with a
/// warning that it may be misspelt.
extension Daemon {
    private func refusal(_ what: String) -> WireError {
        WireError(
            "only root or members of the administrators' group may \(what); your own apps' decisions you may "
                + "take back (`gpsloc auth deny APP` or `gpsloc auth reset APP`, without --uid), answer their "
                + "prompts with `gpsloc agent`, or ask an administrator")
    }

    /// Whether `change` is one a user may make without being an administrator: taking back a
    /// decision of their own (a denial, or a reset that has the app asked again), in their own
    /// store, as every platform lets its user revoke what they granted. A grant stays an answer to
    /// the app's own prompt, which shows what the kernel proved, or an administrator's: a program
    /// with no usage description to be asked with is not let grant itself by calling as its user.
    /// The system's switch, restrictions, network clients and other users' decisions stay an
    /// administrator's.
    private static func isUsersOwn(_ change: AuthorizationChange, uid: Int?, by identity: PeerIdentity)
        -> Bool
    {
        guard uid == nil || uid == Int(identity.uid) else { return false }
        switch change {
        case .deny, .reset: return true
        case .grant, .services, .restrict: return false
        }
    }

    /// Whose decisions `identity` asks to see: its own, or any user's for an administrator.
    func authorize(_ identity: PeerIdentity, toSee uid: Int?) throws(WireError) -> UInt32 {
        guard let uid else { return identity.uid }
        guard let target = UInt32(exactly: uid) else { throw WireError("'uid' \(uid) is not a user id") }
        guard target == identity.uid || isAdministrator(identity) else {
            throw refusal("see another user's decisions")
        }
        return target
    }

    func decisions(uid: UInt32) throws(WireError) -> WireDecisions {
        let store = stores.store(uid: uid)
        let snapshot: AuthorizationSnapshot
        do { snapshot = try store.load() } catch { throw WireError("\(error)") }
        return WireDecisions(
            store: store.path, uid: Int(uid), servicesEnabled: snapshot.servicesEnabled,
            restrictAll: snapshot.restrictAll, restricted: snapshot.restrictedClients.sorted(),
            decisions: snapshot.clients.mapValues(\.summary))
    }

    /// A change: to `uid`'s decisions (the caller's own when `nil`; a user may change their
    /// own apps', an administrator anyone's), or, for the global switch and restrictions without a
    /// `uid`, to the system's policy (an administrator's alone). Every hosted
    /// app it concerns sees it at once. What it returns is a warning for the one who decided: a
    /// name nothing here knows, which is most often one misspelt (``unknownName(_:snapshot:)``).
    @discardableResult
    func change(_ change: AuthorizationChange, uid: Int?, by identity: PeerIdentity) throws(WireError)
        -> String?
    {
        let administrator = isAdministrator(identity)
        guard administrator || Self.isUsersOwn(change, uid: uid, by: identity) else {
            switch change {
            case .services, .restrict: throw refusal("change the system's location policy")
            case .grant: throw refusal("grant location")
            default: throw refusal("change another user's decisions")
            }
        }
        let store: AuthorizationStore
        var target: UInt32?
        var change = change
        if let network = try NetworkClients.canonical(change) {
            guard administrator else { throw refusal("decide for network clients") }
            guard uid == nil else {
                throw WireError("a network client's decisions belong to no user; drop --uid")
            }
            change = network
            store = stores.store(uid: NetworkClients.uid)
            do { try store.update { $0.apply(change) } } catch { throw WireError("\(error)") }
            log("uid \(identity.uid) (pid \(identity.credentials.pid)): \(change) for network clients")
            for client in clients.withLock({ Array($0.values) }) where client.key.uid == NetworkClients.uid {
                client.app.reloadStore()
            }
            return nil
        }
        switch (change, uid) {
        case (.services, nil), (.restrict, nil):
            store = stores.system
        default:
            let resolved = try authorize(identity, toSee: uid)
            target = resolved
            store = stores.store(uid: resolved)
        }
        var before = AuthorizationSnapshot()
        do {
            try store.update {
                before = $0
                $0.apply(change)
            }
        } catch { throw WireError("\(error)") }
        log(
            "uid \(identity.uid) (pid \(identity.credentials.pid)): \(change) for \(target.map { "uid \($0)" } ?? "every user")"
        )
        for client in clients.withLock({ Array($0.values) }) where target == nil || client.key.uid == target {
            client.app.reloadStore()
        }
        return unknownName(change, snapshot: before)
    }

    /// Where a desktop app's id is known without its having asked: the system's desktop entries
    /// (`ID.desktop`, as GeoClue's `DesktopId` names them), Flatpak's installed apps and the snaps.
    static let knownAppPlaces: [(directory: String, suffix: String)] = [
        ("/usr/share/applications", ".desktop"), ("/usr/local/share/applications", ".desktop"),
        ("/var/lib/flatpak/exports/share/applications", ".desktop"), ("/var/lib/flatpak/app", ""),
        ("/var/lib/snapd/desktop/applications", ".desktop"), ("/snap", ""),
    ]

    /// The warning for a grant, denial or restriction of an identifier that no registration, no
    /// decision or request before it, no client connected now, no desktop entry, Flatpak or snap
    /// is known by: such a decision matches only an app that one day asks under exactly that name,
    /// and `com.exmaple.tracker` for `com.example.tracker` would stay silent forever. Paths and
    /// `unit:`/`network:` names are not identifiers (gpsloc resolves a path and says so itself).
    /// A `desktop:` name is checked against the desktop entries read; the bare desktop id of one of
    /// them is warned of too, since the app it proves is known by its `desktop:` name.
    func unknownName(_ change: AuthorizationChange, snapshot: AuthorizationSnapshot) -> String? {
        let name: String
        switch change {
        case .grant(let app, _, _, _), .deny(let app), .restrict(let app, lift: false): name = app
        case .restrict, .reset, .services: return nil
        }
        let kept =
            "the decision is kept and applies to an app that asks under exactly that name (is it spelt right? "
            + "`gpsloc auth show` lists the apps that asked)"
        let entries = registry.desktopEntries
        if name.hasPrefix(DesktopEntries.prefix) {
            let id = String(name.dropFirst(DesktopEntries.prefix.count))
            if entries.entry(id: id) != nil || snapshot.clients[name] != nil { return nil }
            return "no desktop entry \(id).desktop is in "
                + (entries.directories.isEmpty
                    ? "the application directories (gpslocd reads none)"
                    : entries.directories.joined(separator: " or ")) + "; " + kept
        }
        guard !name.contains("/"), !name.contains(":") else { return nil }
        if snapshot.clients[name] != nil || snapshot.restrictedClients.contains(name) { return nil }
        if registry.registration(forApp: name) != nil { return nil }
        if clients.withLock({ $0.keys.contains { $0.app == name } }) { return nil }
        // A desktop id the daemon proves apps by: that app is known by its prefixed name.
        if let entry = entries.entry(id: name) {
            return "'\(name)' is the desktop id of \(entry.path), whose app gpslocd knows as "
                + "'\(DesktopEntries.prefix)\(name)': this decision applies only to an app registered as '\(name)'; "
                + "decide on '\(DesktopEntries.prefix)\(name)' for the desktop app"
        }
        for place in Self.knownAppPlaces where access(place.directory + "/" + name + place.suffix, F_OK) == 0
        {
            return nil
        }
        return "nothing gpslocd knows is called '\(name)': no registration in \(registry.directory), no "
            + "decision or request before this one, no client connected now, no desktop entry, Flatpak or "
            + "snap; " + kept
    }
}
