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

    /// What this subscriber is told of a precise location, if anything (not for a reduced one):
    /// `location` itself when ``Told/located``.
    mutating func pipeline(_ location: Location, gate: UpdateGate) -> Told? {
        guard gate.deliver, !preciseAsStatus else { return status(gate.flags) }
        if monitoring {
            return gate.full ? located(gate.flags) : status(gate.flags)
        }
        switch stationary.observe(location) {
        case .deliver:
            return located(gate.flags)
        case .becameStationary:
            return located(gate.flags, stationary: true)
        case .silent:
            return continuous ? located(gate.flags, stationary: true) : nil
        }
    }

    /// What a reduced subscriber is told: the reducer's output when there is one (a monitor's feed
    /// only whether it had a location); between outputs nothing, unless the authorization's flags
    /// changed (which says nothing of the position or of the receiver). The output's location
    /// when ``Told/located``.
    mutating func reduced(_ output: AccuracyReducer.Output?, gate: UpdateGate) -> Told? {
        var flags = gate.flags
        flags.accuracyLimited = true
        switch output {
        case .location:
            reducedUnavailable = false
            if monitoring { return status(flags, unavailable: false) }
            return located(flags)
        case .unavailable:
            reducedUnavailable = true
            return status(flags, unavailable: true)
        case nil:
            guard let lastFlags, lastFlags != flags else { return nil }
            return status(flags, unavailable: reducedUnavailable)
        }
    }

    /// No position can be had: said once, and the device's stillness is forgotten.
    mutating func lost(_ gate: UpdateGate) -> Told? {
        guard let told = status(gate.flags, unavailable: true) else { return nil }
        stationary.reset()
        return told
    }

    /// A location-less update saying `flags` (and `unavailable`), unless it was the last thing
    /// said.
    mutating func status(_ flags: AuthorizationFlags, unavailable: Bool = false) -> Told? {
        let status = LocationUpdate.Status(flags: flags, unavailable: unavailable)
        guard status != lastStatus else { return nil }
        lastStatus = status
        lastFlags = flags
        return Told(flags: flags, unavailable: unavailable)
    }

    /// An update with a location; the next location-less one is news again.
    private mutating func located(_ flags: AuthorizationFlags, stationary: Bool = false) -> Told {
        lastStatus = nil
        lastFlags = flags
        return Told(flags: flags, located: true, stationary: stationary)
    }
}

/// What one subscriber is told at one input, short of the location: whether it is told the
/// input's location (the precise one, or the reducer's output for a reduced subscriber), with
/// which flags and states. The update is made from it once for all the subscribers told the
/// same (``DeliveryGroups``), where making an update for each subscriber copied the location
/// into it, a few hundred bytes, for every subscriber at every fix (`BENCHMARKS.md`, round 2,
/// twenty-third part).
///
/// Held in one integer, the flags' bits and three more, as it is made, passed and compared for
/// every subscriber.
struct Told: Equatable {
    private var bits: UInt16

    private static let located: UInt16 = 1 << 13
    private static let stationary: UInt16 = 1 << 14
    private static let unavailable: UInt16 = 1 << 15

    init(
        flags: AuthorizationFlags, located: Bool = false, stationary: Bool = false, unavailable: Bool = false
    ) {
        assert(flags.bits < Self.located, "a flag's bit taken by what is told")
        bits = flags.bits
        if located { bits |= Self.located }
        if stationary { bits |= Self.stationary }
        if unavailable { bits |= Self.unavailable }
    }

    var flags: AuthorizationFlags { AuthorizationFlags(bits: bits & (Self.located - 1)) }
    var located: Bool { bits & Self.located != 0 }
    var stationary: Bool { bits & Self.stationary != 0 }
    var unavailable: Bool { bits & Self.unavailable != 0 }

    /// The update, with `location` when it is told one (the location the input told it of).
    func update(_ location: Location?) -> LocationUpdate {
        LocationUpdate(
            location: located ? location : nil, flags: flags, stationary: stationary, unavailable: unavailable
        )
    }
}

extension LocationUpdate {
    /// What a location-less update says, to send such updates only when it changes.
    struct Status: Hashable {
        var flags: AuthorizationFlags
        var unavailable: Bool
    }
}
