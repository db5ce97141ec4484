/// One subscription to updates and the state that shapes what it is told: its stationary
/// detector, its accuracy reducer, and the last status it was told.
///
/// ``pipeline(_:gate:)`` is the one place where a precise location becomes what a subscriber
/// may see: the gate (decision, sessions, in use, global switch, restrictions), then stationary
/// detection for full accuracy or the reducer for reduced accuracy, then the update.
struct UpdateSubscriber: Sendable {
    var stationary: StationaryDetector
    var reducer: AccuracyReducer
    /// A monitor's feed: every precise fix (no stationary pause), and no location at all under
    /// reduced accuracy, where geographic conditions are not evaluated.
    var monitoring = false
    /// The last state sent without a location, so that such updates go out on change only.
    private var lastStatus: CLLocationUpdate.Status?

    init(stationary: StationaryDetector, reducer: AccuracyReducer, monitoring: Bool) {
        self.stationary = stationary
        self.reducer = reducer
        self.monitoring = monitoring
    }

    /// What this subscriber is told of a precise location, if anything.
    mutating func pipeline(_ location: CLLocation, gate: UpdateGate) -> CLLocationUpdate? {
        guard gate.deliver else { return status(gate.flags) }
        if monitoring {
            return gate.full
                ? located(CLLocationUpdate(location: location, flags: gate.flags)) : status(gate.flags)
        }
        if gate.full {
            switch stationary.observe(location) {
            case .deliver:
                return located(CLLocationUpdate(location: location, flags: gate.flags))
            case .becameStationary:
                return located(CLLocationUpdate(location: location, flags: gate.flags, stationary: true))
            case .silent:
                return nil
            }
        }
        guard let reduced = reducer.reduce(location) else { return status(gate.flags) }
        var flags = gate.flags
        flags.accuracyLimited = false
        return located(CLLocationUpdate(location: reduced, flags: flags))
    }

    /// No position can be had: said once, and the device's stillness is forgotten.
    mutating func lost(_ gate: UpdateGate) -> CLLocationUpdate? {
        guard let update = status(gate.flags, unavailable: true) else { return nil }
        stationary.reset()
        return update
    }

    /// A location-less update saying `flags` (and `unavailable`), unless it was the last thing
    /// said.
    mutating func status(_ flags: AuthorizationFlags, unavailable: Bool = false) -> CLLocationUpdate? {
        let status = CLLocationUpdate.Status(flags: flags, unavailable: unavailable)
        guard status != lastStatus else { return nil }
        lastStatus = status
        return CLLocationUpdate(location: nil, flags: flags, unavailable: unavailable)
    }

    /// An update with a location; the next location-less one is news again.
    private mutating func located(_ update: CLLocationUpdate) -> CLLocationUpdate {
        lastStatus = nil
        return update
    }
}

extension CLLocationUpdate {
    /// What a location-less update says, to send such updates only when it changes.
    struct Status: Hashable {
        var flags: AuthorizationFlags
        var unavailable: Bool
    }
}
