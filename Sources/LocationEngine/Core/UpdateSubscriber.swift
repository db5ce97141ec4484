// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

/// One subscription to updates and the state that shapes what it is told: its stationary
/// detector and the last status it was told.
///
/// ``pipeline(_:gate:)`` is the one place where a precise location becomes what a precise
/// subscriber may see: the gate (decision, sessions, in use, global switch, restrictions), then
/// stationary detection, then the update. A subscriber under reduced accuracy is told only what
/// the app's one ``AccuracyReducer`` outputs, through ``reduced(_:gate:)``.
struct UpdateSubscriber: Sendable {
    var stationary: StationaryDetector
    /// A monitor's feed: every precise fix (no stationary pause), and no location at all under
    /// reduced accuracy, where geographic conditions are not evaluated.
    var monitoring = false
    /// Asked for reduced locations although the app may have precise ones
    /// (`desiredAccuracy = kCLLocationAccuracyReduced` in the Apple API).
    var wantsReduced = false
    /// Every fix, without the stationary pause (`pausesLocationUpdatesAutomatically = false`).
    var continuous = false
    /// Precise locations as their status alone (said when it changes), for a front-end that
    /// takes them from the receiver's fixes (gpsd's protocol): reduced ones and every status as
    /// to anyone.
    var preciseAsStatus = false
    /// The last state sent without a location, so that such updates go out on change only.
    private var lastStatus: LocationUpdate.Status?
    /// The flags of the last update of any kind, and whether the reducer's last output was
    /// "unavailable": what a reduced subscriber was told, to say nothing new between outputs.
    private var lastFlags: AuthorizationFlags?
    private var reducedUnavailable = false

    init(
        stationary: StationaryDetector, monitoring: Bool, wantsReduced: Bool = false,
        continuous: Bool = false,
        preciseAsStatus: Bool = false
    ) {
        self.continuous = continuous
        self.preciseAsStatus = preciseAsStatus
        self.stationary = stationary
        self.monitoring = monitoring
        self.wantsReduced = wantsReduced
    }

    /// Whether this subscriber, under `gate`, is told the reducer's outputs: a reduced
    /// subscriber, and a monitor's feed of an app without full accuracy, which is told their
    /// availability and no location (a fix lost or regained is news only at an output, however it
    /// is listened to).
    func isReduced(_ gate: UpdateGate) -> Bool {
        gate.deliver && (!gate.full || (wantsReduced && !monitoring))
    }

    /// What this subscriber is told of a precise location, if anything (not for a reduced one).
    mutating func pipeline(_ location: Location, gate: UpdateGate) -> LocationUpdate? {
        guard gate.deliver, !preciseAsStatus else { return status(gate.flags) }
        if monitoring {
            return gate.full
                ? located(LocationUpdate(location: location, flags: gate.flags)) : status(gate.flags)
        }
        switch stationary.observe(location) {
        case .deliver:
            return located(LocationUpdate(location: location, flags: gate.flags))
        case .becameStationary:
            return located(LocationUpdate(location: location, flags: gate.flags, stationary: true))
        case .silent:
            return continuous
                ? located(LocationUpdate(location: location, flags: gate.flags, stationary: true)) : nil
        }
    }

    /// What a reduced subscriber is told: the reducer's output when there is one (a monitor's feed
    /// only whether it had a location); between outputs nothing, unless the authorization's flags
    /// changed (which says nothing of the position or of the receiver).
    mutating func reduced(_ output: AccuracyReducer.Output?, gate: UpdateGate) -> LocationUpdate? {
        var flags = gate.flags
        flags.accuracyLimited = true
        switch output {
        case .location(let location):
            reducedUnavailable = false
            if monitoring { return status(flags, unavailable: false) }
            return located(LocationUpdate(location: location, flags: flags))
        case .unavailable:
            reducedUnavailable = true
            return status(flags, unavailable: true)
        case nil:
            guard let lastFlags, lastFlags != flags else { return nil }
            return status(flags, unavailable: reducedUnavailable)
        }
    }

    /// No position can be had: said once, and the device's stillness is forgotten.
    mutating func lost(_ gate: UpdateGate) -> LocationUpdate? {
        guard let update = status(gate.flags, unavailable: true) else { return nil }
        stationary.reset()
        return update
    }

    /// A location-less update saying `flags` (and `unavailable`), unless it was the last thing
    /// said.
    mutating func status(_ flags: AuthorizationFlags, unavailable: Bool = false) -> LocationUpdate? {
        let status = LocationUpdate.Status(flags: flags, unavailable: unavailable)
        guard status != lastStatus else { return nil }
        lastStatus = status
        lastFlags = flags
        return LocationUpdate(location: nil, flags: flags, unavailable: unavailable)
    }

    /// An update with a location; the next location-less one is news again.
    private mutating func located(_ update: LocationUpdate) -> LocationUpdate {
        lastStatus = nil
        lastFlags = update.flags
        return update
    }
}

extension LocationUpdate {
    /// What a location-less update says, to send such updates only when it changes.
    struct Status: Hashable {
        var flags: AuthorizationFlags
        var unavailable: Bool
    }
}
