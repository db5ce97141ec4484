// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What one app may know and is told, as a pure state machine: its authorization, the sessions it
/// holds, its update and diagnostics subscriptions, and the receiver's state as the app sees it.
///
/// The core holds no task, channel, file or clock. Every input is a `mutating` method that returns
/// the ``Action``s a shell performs: deliver an update to subscription 3, show a prompt, save the
/// decision, start the receiver. ``AppEngine`` is that shell, for an app in its own process and
/// for each app of each user gpslocd serves. Privacy is applied in one place,
/// ``UpdateSubscriber/pipeline(_:gate:)``, for every subscription, monitors' feeds included.
package struct LocationCore: Sendable {
    /// Names a session or subscription within one core.
    package typealias ID = Int

    package private(set) var auth: AuthorizationState
    /// The update subscriptions in ascending order of their numbers, the order subscribers are
    /// told in (numbers only grow, so a new one goes last). An array, where a fix is the
    /// hot path: every subscriber is visited and changed in place, with no hashing of its number
    /// and no copy of its state out of a dictionary and back.
    private var updates: [(id: ID, subscriber: UpdateSubscriber)] = []
    private var diagnostics: [ID: DiagnosticSubscriber] = [:]
    /// The keys of ``diagnostics`` in ascending order, as ``updates``.
    private var diagnosticOrder: [ID] = []
    /// Subscriptions to the receiver's fixes whole, told only while the app may have precise
    /// locations (satellites, errors, time: what gpsd's reports carry).
    /// In ascending order, as ``updates``.
    private var fixSubscribers: [ID] = []
    /// Precise-location requests of the delegate API, in the order they were made.
    private var accuracyRequests: [(id: ID, purposeKey: String)] = []
    /// Whether there is a receiver at all; without one, updates say `locationUnavailable`.
    let hasReceiver: Bool
    /// Whether the receiver runs for this app now.
    private(set) var receiverRunning = false
    /// Why no position can be had now, while that lasts.
    private var unavailable: String?
    /// The app's one reducer: every reduced subscription is told its outputs, so subscribing
    /// again (from this process or another) learns nothing sooner than one long subscription.
    private(set) var reducer: AccuracyReducer
    /// The time of the last location and when it was received: the reducer's clock for events
    /// without a location, whose own time may be missing or a guess (a receiver without a fix
    /// often gives no date), so that a guess never moves the app's cadence.
    private var lastFixTime: (fix: Date, received: Date)?
    private var nextID = 0
    /// Where an input groups the subscribers told one update, empty between inputs: kept for
    /// its storage, the same few arrays at every input rather than three new ones for each app
    /// at each fix.
    private var groups = DeliveryGroups()

    package init(
        client: String, manifest: Manifest, snapshot: AuthorizationSnapshot, inUse: Bool,
        hasReceiver: Bool, reducer: AccuracyReducer
    ) {
        auth = AuthorizationState(client: client, manifest: manifest, snapshot: snapshot, inUse: inUse)
        self.hasReceiver = hasReceiver
        self.reducer = reducer
    }

    package var client: String { auth.client }

    private mutating func makeID() -> ID {
        nextID += 1
        return nextID
    }

    /// Runs a change, then brings everything that depends on it up to date.
    private mutating func transact(_ body: (inout Self, inout [Action]) -> Void) -> [Action] {
        var actions: [Action] = []
        let before = (auth.status, auth.accuracy)
        body(&self, &actions)
        settle(&actions)
        if (auth.status, auth.accuracy) != before { actions.append(.authorizationChanged) }
        return actions
    }

    /// Runs what the receiver said: a change of the subscribers' and the receiver's state
    /// alone, which nothing ``settle(_:)`` reads depends on (the authorization, the sessions,
    /// the requests and the prompts stay as they were), so it is not settled after: with a
    /// receiver at 10 Hz, settling after each fix was a sixth of an app's work for it
    /// (`BENCHMARKS.md`, round 2, twenty-second part).
    private mutating func receiving(_ body: (inout Self, inout [Action]) -> Void) -> [Action] {
        var actions: [Action] = []
        body(&self, &actions)
        return actions
    }

    // MARK: Sessions

    /// An explicit service session.
    package mutating func addSession(_ requirement: SessionRequirement) -> (ID, [Action]) {
        var id = 0
        let actions = transact { core, _ in
            id = core.makeID()
            core.auth.sessions[id] = requirement
        }
        return (id, actions)
    }

    /// A background activity session: it keeps the app in use only if it starts in use.
    package mutating func addBackgroundActivitySession() -> (ID, [Action]) {
        var id = 0
        let actions = transact { core, actions in
            id = core.makeID()
            let keepsInUse = core.auth.effectivelyInUse
            core.auth.sessions[id] = SessionRequirement(level: .none, explicit: false, keepsInUse: keepsInUse)
            if !keepsInUse {
                actions.append(
                    .log(
                        "\(core.client) started a background activity session while not in use; it keeps "
                            + "nothing in use: start it while the app is in the foreground"))
            }
        }
        return (id, actions)
    }

    package mutating func removeSession(_ id: ID) -> [Action] {
        transact { core, actions in
            guard core.auth.sessions.removeValue(forKey: id) != nil else { return }
            for key in core.diagnosticOrder where core.diagnostics[key]!.session == id {
                core.diagnostics.removeValue(forKey: key)
                actions.append(.finish(key))
            }
            let remaining = core.diagnostics
            core.diagnosticOrder.removeAll { remaining[$0] == nil }
            core.withdrawPromptIfMoot(&actions)
        }
    }

    /// The diagnostics of session `session`: the current flags at once, then every change. `nil`
    /// when the session has ended (the stream is over before it starts).
    package mutating func subscribeDiagnostics(session: ID) -> (ID?, [Action]) {
        var id: ID?
        let actions = transact { core, actions in
            guard let requirement = core.auth.sessions[session] else { return }
            let new = core.makeID()
            let flags = core.auth.diagnostic(for: requirement)
            core.diagnostics[new] = DiagnosticSubscriber(session: session, last: flags)
            core.diagnosticOrder.append(new)
            actions.append(.diagnose(new, flags))
            id = new
        }
        return (id, actions)
    }

    /// The consumer of diagnostics subscription `id` went away.
    package mutating func unsubscribeDiagnostics(_ id: ID) {
        guard diagnostics.removeValue(forKey: id) != nil else { return }
        diagnosticOrder.removeAll { $0 == id }
    }

    /// A prompt nobody wants any more (its session ended) is withdrawn.
    private mutating func withdrawPromptIfMoot(_ actions: inout [Action]) {
        guard let prompt = auth.prompt else { return }
        let wanted: Bool
        switch prompt.kind {
        case .whenInUse: wanted = auth.requestedLevel >= .whenInUse
        case .always: wanted = auth.requestedLevel == .always
        case .temporaryFullAccuracy:
            wanted =
                auth.effectiveSessions.contains { $0.purposeKey == prompt.purposeKey }
                || accuracyRequests.contains { $0.purposeKey == prompt.purposeKey }
        }
        guard !wanted else { return }
        auth.prompt = nil
        actions.append(.withdrawPrompt)
    }

    // MARK: Updates

    /// A subscription to updates; it holds an implicit when-in-use session while it lasts. A
    /// monitor's feed (`monitoring`) gets every precise fix, without stationary pauses, and no
    /// location at all under reduced accuracy.
    /// `wantsReduced` asks for reduced locations whatever the authorization allows; `continuous`
    /// for every fix, without pausing while the device stands still. Without `implicitSession`
    /// (the delegate API's updates) the subscription asks for nothing: its session is `.none`, and
    /// only `request…Authorization()` prompts, as on Apple platforms. `preciseAsStatus`: precise
    /// locations as their status alone, for a front-end that has them from the fixes.
    package mutating func subscribeUpdates(
        profile: ActivityProfile, monitoring: Bool = false,
        wantsReduced: Bool = false, continuous: Bool = false, implicitSession: Bool = true,
        preciseAsStatus: Bool = false
    ) -> (ID, [Action]) {
        var id = 0
        let actions = transact { core, actions in
            id = core.makeID()
            core.auth.sessions[id] = SessionRequirement(
                level: implicitSession ? .whenInUse : .none, explicit: false)
            var subscriber = UpdateSubscriber(
                stationary: StationaryDetector(tuning: profile.stationaryTuning), monitoring: monitoring,
                wantsReduced: wantsReduced, continuous: continuous, preciseAsStatus: preciseAsStatus)
            let gate = core.auth.updateGate
            if core.hasReceiver, subscriber.isReduced(gate) {
                // What the app was last told, as it was told: a new subscription learns nothing new.
                if let told = subscriber.reduced(core.reducer.current, gate: gate) {
                    actions.append(.deliver(to: [id], told.update(core.reducer.current?.location)))
                }
            } else if !core.hasReceiver {
                let message =
                    "no receiver is configured for \(core.client): bootstrap a LocationContext with a "
                    + "LocationService (see docs/core-location.md)"
                if core.auth.reported.insert(message).inserted { actions.append(.log(message)) }
                if let told = subscriber.status(gate.flags, unavailable: gate.deliver) {
                    actions.append(.deliver(to: [id], told.update(nil)))
                }
            } else if core.unavailable != nil, gate.deliver {
                if let told = subscriber.status(gate.flags, unavailable: true) {
                    actions.append(.deliver(to: [id], told.update(nil)))
                }
            }
            core.updates.append((id, subscriber))
            if core.hasReceiver && !core.receiverRunning {
                core.receiverRunning = true
                actions.append(.startReceiver)
            }
        }
        return (id, actions)
    }

    /// A subscription to the receiver's fixes whole, each told only while the app may have
    /// precise locations and is delivered to (decision, sessions, in use): for a front-end whose
    /// clients' reports carry more than a location (gpsd's TPV and SKY). It holds no session and
    /// does not start the receiver: it comes beside an update subscription, which does.
    package mutating func subscribeFixes() -> ID {
        let id = makeID()
        fixSubscribers.append(id)
        return id
    }

    package mutating func unsubscribeFixes(_ id: ID) {
        fixSubscribers.removeAll { $0 == id }
    }

    /// The consumer of update subscription `id` went away.
    package mutating func unsubscribeUpdates(_ id: ID) -> [Action] {
        transact { core, actions in
            guard let index = core.updates.firstIndex(where: { $0.id == id }) else { return }
            core.updates.remove(at: index)
            core.auth.sessions.removeValue(forKey: id)
            if core.updates.isEmpty, core.receiverRunning {
                core.receiverRunning = false
                core.unavailable = nil
                actions.append(.stopReceiver)
            }
            core.withdrawPromptIfMoot(&actions)
        }
    }

    /// What the receiver said, turned into each subscriber's update.
    /// `received` is when the shell got the event: the time of a fix whose receiver never gave a
    /// date (``Fix/bestTime(received:)``).
    package mutating func receive(_ event: ReceiverEvent, origin: FixOrigin, received: Date) -> [Action] {
        switch event {
        case .fix(let fix): receive(fix, origin: origin, received: received)
        case .unavailable(let reason): receiveUnavailable(reason, received: received)
        case .ended: receiveEnd()
        }
    }

    /// ``receive(_:origin:received:)`` of a fix, which the shell hands on as it is: a fix is
    /// several hundred bytes, and each enum it was wrapped in on its way to every app was one
    /// more copy of it (`BENCHMARKS.md`, round 2, twenty-second part).
    package mutating func receive(_ fix: Fix, origin: FixOrigin, received: Date) -> [Action] {
        receiving { core, actions in
            core.unavailable = nil
            let gate = core.auth.updateGate
            guard gate.deliver else { return }
            // An action for each group of subscribers told one update (a few, whatever their
            // number), one for each subscriber to the fixes, and a few more: room for them at
            // once. Room for an action per subscriber, 136 bytes each, was 136 KB at every fix
            // for an app with 1,000 clients.
            actions.reserveCapacity(actions.count + core.fixSubscribers.count + 8)
            if gate.full {
                for id in core.fixSubscribers { actions.append(.deliverFix(id)) }
            }
            let fallback = fix.bestTime(received: received)
            let location = Location(fix: fix, origin: origin, fallbackTime: fallback)
            if let location { core.lastFixTime = (location.timestamp, received) }
            let output = core.reduce(
                location, at: location?.timestamp ?? core.reducerTime(received), gate: gate, &actions)
            for index in core.updates.indices {
                let told: Told?
                let reduced = core.updates[index].subscriber.isReduced(gate)
                if reduced {
                    told = core.updates[index].subscriber.reduced(output, gate: gate)
                } else if let location {
                    told = core.updates[index].subscriber.pipeline(location, gate: gate)
                } else {
                    // An epoch without a position: unavailable, without forgetting where the
                    // device stood still.
                    told = core.updates[index].subscriber.status(gate.flags, unavailable: true)
                }
                if let told {
                    core.groups.add(
                        core.updates[index].id, told, reduced: reduced, of: core.updates.count - index)
                }
            }
            core.groups.flush(into: &actions, precise: location, reduced: output?.location)
        }
    }

    /// No position can be had now, for `reason`.
    private mutating func receiveUnavailable(_ reason: String, received: Date) -> [Action] {
        receiving { core, actions in
            core.unavailable = reason
            let gate = core.auth.updateGate
            guard gate.deliver else { return }
            let output = core.reduce(nil, at: core.reducerTime(received), gate: gate, &actions)
            for index in core.updates.indices {
                let reduced = core.updates[index].subscriber.isReduced(gate)
                let told =
                    reduced
                    ? core.updates[index].subscriber.reduced(output, gate: gate)
                    : core.updates[index].subscriber.lost(gate)
                if let told {
                    core.groups.add(
                        core.updates[index].id, told, reduced: reduced, of: core.updates.count - index)
                }
            }
            core.groups.flush(into: &actions, precise: nil, reduced: output?.location)
        }
    }

    /// The receiver ended (a replayed log reached its end): every subscription finishes, and
    /// the receiver is let go, so that the next subscription starts it again rather than
    /// waiting on a run that is over.
    /// A change of the sessions, so it is settled (once per end).
    private mutating func receiveEnd() -> [Action] {
        transact { core, actions in
            for (id, _) in core.updates {
                actions.append(.finish(id))
                core.auth.sessions.removeValue(forKey: id)
            }
            for id in core.fixSubscribers { actions.append(.finish(id)) }
            core.updates.removeAll()
            if core.receiverRunning {
                core.receiverRunning = false
                core.unavailable = nil
                actions.append(.stopReceiver)
            }
            core.withdrawPromptIfMoot(&actions)
        }
    }

    /// Gives the app's reducer what the receiver says, when any subscriber is reduced; its output
    /// when one is due, and the state to store with it.
    /// `time` is `nil` when it is not known (nothing with a location arrived yet): the reducer is
    /// not told then.
    private mutating func reduce(
        _ location: Location?, at time: Date?, gate: UpdateGate, _ actions: inout [Action]
    ) -> AccuracyReducer.Output? {
        guard let time, updates.contains(where: { $0.subscriber.isReduced(gate) }) else { return nil }
        let before = reducer.state
        let output = reducer.observe(location, at: time)
        if reducer.state != before { actions.append(.persistReduced(reducer.state)) }
        return output
    }

    /// The receiver's time now, from the last location's time and how long ago it arrived.
    private func reducerTime(_ received: Date) -> Date? {
        lastFixTime.map { $0.fix.addingTimeInterval(received.timeIntervalSince($0.received)) }
    }

    // MARK: Authorization

    /// The stored decisions changed elsewhere (`gpsloc auth`, another process).
    package mutating func storeChanged(_ snapshot: AuthorizationSnapshot) -> [Action] {
        transact { core, actions in
            let client = core.client
            let before = core.auth.record
            core.auth.snapshot = snapshot
            let after = core.auth.record
            // A prompt answered elsewhere (`gpsloc auth grant|deny`) is over.
            guard let prompt = core.auth.prompt,
                before.decision != after.decision || before.precise != after.precise
            else { return }
            core.auth.prompt = nil
            actions.append(.withdrawPrompt)
            if prompt.kind == .always { core.auth.snapshot[client].alwaysPrompted = true }
            if core.auth.isAuthorized { core.auth.managerRequest = nil }
            if after.pendingRequest != nil || core.auth.record != after {
                core.auth.snapshot[client].pendingRequest = nil
                actions.append(.persist(core.auth.record))
            }
        }
    }

    /// The app came into use or left it.
    package mutating func activityChanged(inUse: Bool) -> [Action] {
        transact { core, _ in core.auth.inUse = inUse }
    }

    /// The user answered `request` (`nil`: the prompt went away unanswered).
    package mutating func promptAnswered(_ request: PromptRequest, _ answer: PromptAnswer?) -> [Action] {
        transact { core, actions in
            guard core.auth.prompt == request else { return }
            if core.auth.answer(answer, to: request) { actions.append(.persist(core.auth.record)) }
        }
    }

    /// `requestWhenInUseAuthorization()` or `requestAlwaysAuthorization()`.
    package mutating func requestAuthorization(_ level: SessionLevel) -> [Action] {
        transact { core, actions in
            let record = core.auth.record
            switch level {
            case .whenInUse:
                guard record.decision == .notDetermined else { return }
            case .always:
                // One upgrade chance; ignored after Allow Once.
                guard
                    record.decision == .notDetermined
                        || (record.decision == .whenInUse && !record.once && !record.alwaysPrompted)
                else { return }
            case .none:
                return
            }
            core.auth.managerRequest = max(core.auth.managerRequest ?? .none, level)
            if !core.auth.inUse {
                actions.append(
                    .log(
                        "\(core.client) asked for authorization while not in use; it will be asked when in use"
                    ))
            }
        }
    }

    /// `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)`; its answer comes as
    /// ``Action/completeAccuracyRequest(_:_:)`` with the returned id.
    package mutating func requestTemporaryFullAccuracy(purposeKey: String) -> (ID, [Action]) {
        var id = 0
        let actions = transact { core, actions in
            id = core.makeID()
            let auth = core.auth
            let refusal: AccuracyRequestRefusal?
            if auth.manifest.temporaryUsageDescriptions[purposeKey] == nil {
                refusal = AccuracyRequestRefusal(
                    .denied,
                    "the purpose key \"\(purposeKey)\" is not in NSLocationTemporaryUsageDescriptionDictionary"
                )
            } else if auth.accuracy == .fullAccuracy {
                actions.append(.completeAccuracyRequest(id, nil))
                return
            } else if !auth.isAuthorized {
                refusal = AccuracyRequestRefusal(.denied, "\(core.client) is not authorized to use location")
            } else if !auth.inUse {
                refusal = AccuracyRequestRefusal(
                    .denied, "precise location can only be requested while in use")
            } else {
                refusal = nil
            }
            if let refusal {
                actions.append(.completeAccuracyRequest(id, refusal))
                return
            }
            core.auth.declinedPurposes.remove(purposeKey)
            core.accuracyRequests.append((id, purposeKey))
        }
        return (id, actions)
    }

    // MARK: Settling

    /// After any change: answer precise-location requests that became moot, start the next
    /// prompt, and tell every subscriber what changed. Not run after what the receiver says
    /// (``receiving(_:)``): nothing read here may depend on the receiver's state.
    private mutating func settle(_ actions: inout [Action]) {
        if auth.reconcileUse() { actions.append(.persist(auth.record)) }
        accuracyRequests.removeAll { request in
            if auth.temporaryFullAccuracy.contains(request.purposeKey) {
                actions.append(.completeAccuracyRequest(request.id, nil))
                return true
            }
            if auth.declinedPurposes.contains(request.purposeKey) {
                actions.append(
                    .completeAccuracyRequest(
                        request.id,
                        AccuracyRequestRefusal(
                            .promptDeclined, "precise location for \"\(request.purposeKey)\" was declined")))
                return true
            }
            return false
        }
        if auth.prompt == nil, auth.inUse, auth.isAuthorized, let request = accuracyRequests.first,
            let reason = auth.manifest.temporaryUsageDescriptions[request.purposeKey]
        {
            let prompt = PromptRequest(
                kind: .temporaryFullAccuracy, client: client, reason: reason, purposeKey: request.purposeKey)
            auth.prompt = prompt
            actions.append(.ask(prompt))
        }
        if auth.prompt == nil, let decision = auth.nextPrompt() {
            switch decision {
            case .ask(let request):
                auth.prompt = request
                actions.append(.ask(request))
            case .refuse(let reason):
                if auth.reported.insert(reason).inserted { actions.append(.log(reason)) }
            }
        }
        // Subscribers that are blocked hear about every change of the reason.
        let gate = auth.updateGate
        if !gate.deliver {
            for index in updates.indices {
                if let told = updates[index].subscriber.status(gate.flags) {
                    groups.add(updates[index].id, told, reduced: false, of: updates.count - index)
                }
            }
            groups.flush(into: &actions, precise: nil, reduced: nil)
        }
        for id in diagnosticOrder {
            guard let session = auth.sessions[diagnostics[id]!.session] else { continue }
            let flags = auth.diagnostic(for: session)
            if flags != diagnostics[id]!.last {
                diagnostics[id]!.last = flags
                actions.append(.diagnose(id, flags))
            }
        }
    }
}
