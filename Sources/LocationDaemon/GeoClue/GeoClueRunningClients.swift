// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CGeoClueBus
import CSDBus
import GNSS
@_spi(FrontEnd) import LocationEngine
import Locking

/// GeoClue2's `Client` objects once started: each runs as its program's hosted app, its
/// updates taken on the bus thread and published as `Location` objects to its owner alone; and
/// the Manager's `InUse`, which follows every front-end's programs. On the bus thread.
extension GeoClueService {
    func owned(_ path: String, by sender: String) -> Bool {
        state.withLock { $0.clients[path]?.owner == sender }
    }

    func start(_ call: OpaquePointer, path: String, sender: String) -> Int32 {
        guard let client = state.withLock({ $0.clients[path] }), client.owner == sender else {
            return denied(call, path)
        }
        if client.isActive { return ocl_reply_empty(call) }
        guard client.requestedLevel > GeoClueAccuracy.none else {
            return reply(
                call, error: "org.freedesktop.DBus.Error.AccessDenied",
                "RequestedAccuracyLevel is NONE (0): set it (EXACT is 8, CITY 4) before Start")
        }
        let identity = client.identity
        if let changed = identity.changedSinceIdentified {
            return reply(call, error: "org.freedesktop.DBus.Error.AccessDenied", changed)
        }
        // Refused, or undecided with nobody to ask (no usage description to ask with): said now,
        // rather than leaving the client waiting for locations that cannot come.
        let program: UnmodifiedProgram
        var refusal: Refusal?
        do {
            program = try daemon.attachUnmodified(identity, receiver: nil) { app in
                refusal = RefusalWords.refused(app, identity: identity)
                if refusal == nil, app.engine.authorizationStatus == .notDetermined,
                    identity.manifest.whenInUseUsageDescription == nil
                {
                    refusal = Refusal(reason: .noUsageDescription, text: RefusalWords.cannotBeAsked(identity))
                }
                return refusal?.text
            }
        } catch {
            if let refusal { daemon.refused(identity, via: .geoclue, refusal) }
            return reply(call, error: "org.freedesktop.DBus.Error.AccessDenied", error.description)
        }
        let updates = program.app.engineUpdates(reduced: GeoClueAccuracy.asksReduced(client.requestedLevel))
        let running = GeoClueClient.Running(
            program: program, updates: updates, period: daemon.usePeriod(identity, via: .geoclue))
        let stale = state.withLock { state -> Bool in
            guard state.clients[path] != nil else { return true }
            state.clients[path]?.running = running
            return false
        }
        if stale {
            stopRunning(running)
            return denied(call, path)
        }
        daemon.log(
            "GeoClue2: \(identity.summary) started \(path) (desktop id '\(client.desktopId)', "
                + "\(GeoClueAccuracy.name(client.requestedLevel)))")
        let result = ocl_reply_empty(call)
        changed(path)
        pump(path, updates)
        return result
    }

    /// Takes what waits in a running client's updates, on the bus thread, and delivers the newest
    /// (a client behind, on a busy bus, gets the newest rather than a backlog of locations
    /// already old). When they have nothing, their own wake-up brings the bus thread back here at
    /// the next: one hop from the engine to the bus.
    private func pump(_ path: String, _ updates: HostedFeed<LocationUpdate>) {
        var newest: LocationUpdate?
        reading: while true {
            let polled = updates.poll { [weak self] in
                self?.state.withLock { $0.bus }?.perform { [weak self] in self?.pump(path, updates) }
            }
            switch polled {
            case .element(let update): newest = update
            case .empty, .end: break reading
            }
        }
        if let newest { deliver(newest, to: path) }
    }

    /// Stops a client: its updates end, its app's connection goes (the app stays for the grace
    /// period, as for a socket that closed).
    func stop(_ path: String) {
        let running = state.withLock { state -> GeoClueClient.Running? in
            defer { state.clients[path]?.running = nil }
            return state.clients[path]?.running
        }
        guard let running else { return }
        stopRunning(running)
        changed(path)
    }

    func stopRunning(_ running: GeoClueClient.Running?) {
        guard let running else { return }
        running.updates.cancel()
        running.period.end()
        running.program.detach()
    }

    /// Deletes a client and its objects.
    func remove(_ path: String) {
        stop(path)
        guard let client = state.withLock({ $0.clients.removeValue(forKey: path) }) else { return }
        for published in client.published {
            if let slot = published.slot { sd_bus_slot_unref(slot) }
        }
        if let slot = client.slot { sd_bus_slot_unref(slot) }
    }

    /// An engine's update for a running client: a location becomes a new `Location` object and
    /// `LocationUpdated`; a refusal that the user decided (denied) ends the client, as GeoClue
    /// ends a client whose authorization went.
    /// Logs why a running client gets nothing (not in use, waiting for its user's answer…) when
    /// its flags change: its app cannot be told on the bus, and would otherwise wait in silence.
    private func logRefusal(_ update: LocationUpdate, of path: String) {
        let changed = state.withLock { state -> (PeerIdentity, GeoClueClient.Running)? in
            guard let running = state.clients[path]?.running,
                state.clients[path]?.refusalFlags != update.flags,
                let identity = state.clients[path]?.identity
            else { return nil }
            state.clients[path]?.refusalFlags = update.flags
            return (identity, running)
        }
        guard let (identity, running) = changed else { return }
        if UsePeriod.refuses(update.flags) { running.period.pause() }
        guard
            let refusal = RefusalWords.refusal(
                update.flags, identity: identity,
                undecided: running.program.app.engine.authorizationStatus == .notDetermined)
        else { return }
        daemon.refused(identity, via: .geoclue, refusal)
    }

    private func deliver(_ update: LocationUpdate, to path: String) {
        guard let location = update.location else {
            if update.flags.authorizationDenied || update.flags.authorizationRestricted
                || update.flags.authorizationDeniedGlobally
            {
                stop(path)
            } else {
                logRefusal(update, of: path)
            }
            return
        }
        let place = GeoClueClient.Place(location)
        let now = started.duration(to: clock.now) / .seconds(1)
        let published = state.withLock {
            state -> (owner: String, old: String, new: String, period: UsePeriod?)? in
            guard var client = state.clients[path], client.isActive, client.passes(place, now: now) else {
                return nil
            }
            let newPath = "\(path)/Location/\(client.nextLocation)"
            var slot: OpaquePointer?
            guard ocl_geoclue_add_location(state.bus?.bus, &slot, newPath, state.bus?.callback) >= 0 else {
                return nil
            }
            let old = client.current?.path ?? "/"
            for expired in client.publish(place, path: newPath, slot: slot, now: now) {
                if let slot = expired.slot { sd_bus_slot_unref(slot) }
            }
            client.refusalFlags = nil
            state.clients[path] = client
            return (client.owner, old, newPath, client.running?.period)
        }
        guard let published else { return }
        // Outside the lock: the ledger tells the indicators, and `InUse` comes back here.
        published.period?.delivered(precise: !update.flags.accuracyLimited)
        _ = ocl_emit_client_changed(bus, published.owner, path, true, published.new)
        _ = ocl_emit_location_updated(bus, published.owner, path, published.old, published.new)
    }

    /// Tells a client's owner its `Active` and `Location`.
    private func changed(_ path: String) {
        guard let client = state.withLock({ $0.clients[path] }) else { return }
        _ = ocl_emit_client_changed(bus, client.owner, path, client.isActive, client.locationPath)
    }

    /// `InUse`: whether any program is being served now, on any front-end (what a shell shows as
    /// its location indicator, lit for a gpsd client too); told everyone when it changes, on the
    /// bus thread, as the ledger has it then.
    func inUseChanged() {
        state.withLock { $0.bus }?.perform { [weak self] in
            guard let self else { return }
            let now = daemon.activity.isInUse
            let changed = state.withLock { state -> Bool in
                defer { state.inUse = now }
                return now != state.inUse
            }
            if changed { _ = ocl_emit_in_use(bus, now) }
        }
    }
}
