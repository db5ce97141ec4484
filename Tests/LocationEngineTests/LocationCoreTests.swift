// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import NMEA
import TestSupport
import Testing

@testable import LocationEngine

/// The location core on its own: inputs in, actions out, no task, channel or file.
@Suite("Location core")
struct LocationCoreTests {
    static let client = "com.example.tracker"

    static func core(
        _ decision: ClientAuthorization.Decision = .whenInUse, precise: Bool = true, inUse: Bool = true,
        manifest: Manifest = EngineFixtures.manifest
    ) -> LocationCore {
        var snapshot = AuthorizationSnapshot()
        if decision != .notDetermined {
            snapshot[client] = ClientAuthorization(decision: decision, precise: precise)
        }
        return LocationCore(
            client: client, manifest: manifest, snapshot: snapshot, inUse: inUse, hasReceiver: true,
            reducer: AccuracyReducer(
                offset: ReducerOffset(secret: ReducerSecret(bytes: Array(repeating: 7, count: 32)))))
    }

    /// The updates that `actions` deliver to subscription `id`.
    static func updates(_ actions: [LocationCore.Action], to id: LocationCore.ID) -> [LocationUpdate] {
        actions.compactMap {
            if case .deliver(let ids, let update) = $0, ids.contains(id) { update } else { nil }
        }
    }

    static func count(_ actions: [LocationCore.Action], _ match: (LocationCore.Action) -> Bool) -> Int {
        actions.count(where: match)
    }

    @Test("The first subscription starts the receiver, the last one to leave stops it")
    func receiverFollowsSubscriptions() {
        var core = Self.core()
        let (first, a1) = core.subscribeUpdates(profile: .default)
        let (second, a2) = core.subscribeUpdates(profile: .default)
        #expect(Self.count(a1) { if case .startReceiver = $0 { true } else { false } } == 1)
        #expect(Self.count(a2) { if case .startReceiver = $0 { true } else { false } } == 0)
        #expect(
            Self.count(core.unsubscribeUpdates(first)) { if case .stopReceiver = $0 { true } else { false } }
                == 0)
        #expect(
            Self.count(core.unsubscribeUpdates(second)) { if case .stopReceiver = $0 { true } else { false } }
                == 1)
        #expect(!core.receiverRunning)
    }

    @Test("A precise fix reaches an authorized subscriber as it is")
    func preciseFix() {
        var core = Self.core()
        let (id, _) = core.subscribeUpdates(profile: .default)
        let actions = core.receive(.fix(.position(52.1, 5.1, at: 1000, speed: 3)), origin: .receiver)
        let updates = Self.updates(actions, to: id)
        #expect(updates.count == 1)
        #expect(updates.first?.location?.coordinate.latitude == 52.1)
        #expect(updates.first?.location?.speed == 3)
        #expect(updates.first?.flags.accuracyLimited == false)
    }

    @Test(
        "Precise locations as their status: said once for a precise app, then nothing; reduced ones in full; a refusal said"
    )
    func preciseAsStatus() {
        var precise = Self.core()
        let (id, _) = precise.subscribeUpdates(profile: .default, continuous: true, preciseAsStatus: true)
        var told: [LocationUpdate] = []
        for second in 0..<5 {
            let actions = precise.receive(
                .fix(.position(52.1, 5.1 + Double(second) * 0.001, at: 1000 + Double(second))),
                origin: .receiver)
            told += Self.updates(actions, to: id)
        }
        #expect(told.count == 1)
        #expect(
            told.allSatisfy { $0.location == nil && !$0.flags.accuracyLimited && !$0.locationUnavailable })

        var approximate = Self.core(precise: false)
        let (reduced, _) = approximate.subscribeUpdates(
            profile: .default, continuous: true, preciseAsStatus: true)
        let actions = approximate.receive(.fix(.position(52.1234, 5.1234, at: 1000)), origin: .receiver)
        let location = Self.updates(actions, to: reduced).first?.location
        #expect(location != nil && location?.coordinate.latitude != 52.1234)
        #expect(location.map { $0.horizontalAccuracy >= 1000 } == true)

        var denied = Self.core(.denied)
        let (refused, subscribed) = denied.subscribeUpdates(profile: .default, preciseAsStatus: true)
        #expect(Self.updates(subscribed, to: refused).map(\.flags.authorizationDenied) == [true])
    }

    @Test("A denied app hears why once, and no fix ever reaches it")
    func deniedGetsNothing() {
        var core = Self.core(.denied)
        let (id, subscribed) = core.subscribeUpdates(profile: .default)
        #expect(Self.updates(subscribed, to: id).map(\.flags.authorizationDenied) == [true])
        for second in 0..<10 {
            let actions = core.receive(
                .fix(.position(52.1, 5.1, at: 1000 + Double(second))), origin: .receiver)
            #expect(Self.updates(actions, to: id).isEmpty)
        }
    }

    @Test(
        "Under reduced accuracy the pipeline gives cell centres without speed, and a monitor's feed no location"
    )
    func reducedAccuracyPipeline() {
        var core = Self.core(precise: false)
        let (app, _) = core.subscribeUpdates(profile: .default)
        let (monitor, _) = core.subscribeUpdates(profile: .default, monitoring: true)
        let actions = core.receive(.fix(.position(52.1234, 5.1234, at: 1000, speed: 3)), origin: .receiver)
        let location = Self.updates(actions, to: app).first?.location
        #expect(location != nil)
        #expect(location?.coordinate.latitude != 52.1234)
        #expect(location?.speed == -1 && location?.course == -1 && location?.verticalAccuracy == -1)
        #expect(location.map { $0.horizontalAccuracy >= 1000 } == true)
        let fed = Self.updates(actions, to: monitor)
        #expect(fed.allSatisfy { $0.location == nil && $0.flags.accuracyLimited })
    }

    @Test("An undetermined app in use is asked; the answer is stored and locations flow")
    func promptThenLocations() {
        var core = Self.core(.notDetermined)
        let (id, subscribed) = core.subscribeUpdates(profile: .default)
        let asked = subscribed.compactMap { if case .ask(let request) = $0 { request } else { nil } }
        #expect(asked.map(\.kind) == [.whenInUse])
        #expect(Self.updates(subscribed, to: id).map(\.flags.authorizationRequestInProgress) == [true])
        let answered = core.promptAnswered(asked[0], .allowWhileUsing(precise: true))
        #expect(
            Self.count(answered) {
                if case .persist(let record) = $0 { record.decision == .whenInUse } else { false }
            } == 1)
        #expect(Self.count(answered) { if case .authorizationChanged = $0 { true } else { false } } == 1)
        let fix = core.receive(.fix(.position(52.1, 5.1, at: 1000)), origin: .receiver)
        #expect(Self.updates(fix, to: id).first?.location != nil)
    }

    @Test(
        "A session that holds Always without asking: Always takes effect when decided; a when-in-use app is not asked for more, nor told it lacks a description"
    )
    func alwaysWithoutAsking() {
        let session = SessionRequirement(level: .always, explicit: true, asksForAlways: false)
        var whenInUse = Self.core(.whenInUse, inUse: false, manifest: Manifest())
        let (_, opened) = whenInUse.addSession(session)
        let (id, subscribed) = whenInUse.subscribeUpdates(profile: .default)
        let actions = opened + subscribed
        #expect(!actions.contains { if case .ask = $0 { true } else { false } }, "\(actions)")
        #expect(!actions.contains { if case .log = $0 { true } else { false } }, "\(actions)")
        #expect(Self.updates(subscribed, to: id).first?.flags.insufficientlyInUse == true)
        // Decided Always: served out of use, as an asking session would be.
        var always = Self.core(.always, inUse: false)
        _ = always.addSession(session)
        let (served, _) = always.subscribeUpdates(profile: .default)
        let fix = always.receive(.fix(.position(52.1, 5.1, at: 1000)), origin: .receiver)
        #expect(Self.updates(fix, to: served).first?.location != nil)
        // The same session, asking: the upgrade is asked for (the manifest has the description).
        var asking = Self.core(.whenInUse, inUse: true)
        let (_, upgrade) = asking.addSession(SessionRequirement(level: .always, explicit: true))
        #expect(
            upgrade.contains { if case .ask(let request) = $0 { request.kind == .always } else { false } })
    }

    @Test("Unavailability is said once per loss, and the end of the receiver ends every subscription")
    func unavailableAndEnded() {
        var core = Self.core()
        let (id, _) = core.subscribeUpdates(profile: .default)
        let first = core.receive(.unavailable("unplugged"), origin: .receiver)
        let again = core.receive(.unavailable("still unplugged"), origin: .receiver)
        #expect(Self.updates(first, to: id).map(\.locationUnavailable) == [true])
        #expect(Self.updates(again, to: id).isEmpty)
        _ = core.receive(.fix(.position(52.1, 5.1, at: 1000)), origin: .receiver)
        #expect(Self.updates(core.receive(.unavailable("gone"), origin: .receiver), to: id).count == 1)
        let ended = core.receive(.ended, origin: .receiver)
        #expect(Self.count(ended) { if case .finish(id) = $0 { true } else { false } } == 1)
    }

    @Test("Leaving use blocks updates with insufficientlyInUse; coming back lets them flow")
    func inUseGate() {
        var core = Self.core()
        let (id, _) = core.subscribeUpdates(profile: .default)
        let left = core.activityChanged(inUse: false)
        #expect(Self.updates(left, to: id).map(\.flags.insufficientlyInUse) == [true])
        #expect(
            Self.updates(core.receive(.fix(.position(52.1, 5.1, at: 1000)), origin: .receiver), to: id)
                .isEmpty)
        _ = core.activityChanged(inUse: true)
        #expect(
            Self.updates(core.receive(.fix(.position(52.1, 5.1, at: 1001)), origin: .receiver), to: id).count
                == 1)
    }

    @Test("Diagnostics give the current flags at once, then changes only, and end with their session")
    func diagnostics() {
        var core = Self.core(.notDetermined, inUse: false)
        let (session, _) = core.addSession(SessionRequirement(level: .whenInUse, explicit: true))
        let (watch, first) = core.subscribeDiagnostics(session: session)
        guard let watch else {
            Issue.record("no diagnostics subscription")
            return
        }
        let flags = first.compactMap { if case .diagnose(watch, let flags) = $0 { flags } else { nil } }
        #expect(flags.map(\.insufficientlyInUse) == [true])
        #expect(core.activityChanged(inUse: false).isEmpty)
        let ended = core.removeSession(session)
        #expect(Self.count(ended) { if case .finish(watch) = $0 { true } else { false } } == 1)
        #expect(core.subscribeDiagnostics(session: session).0 == nil)
    }

    @Test("A precise-location request for an unknown purpose key is refused at once")
    func accuracyRequestUnknownKey() {
        var core = Self.core(precise: false)
        let (id, actions) = core.requestTemporaryFullAccuracy(purposeKey: "NoSuchKey")
        let errors = actions.compactMap {
            if case .completeAccuracyRequest(id, let error) = $0 { error } else { nil }
        }
        #expect(errors.map(\.reason) == [.denied])
    }
}

extension LocationCore {
    /// An event received at a time the test does not care about (its fixes carry dates).
    mutating func receive(_ event: ReceiverEvent, origin: FixOrigin) -> [Action] {
        receive(event, origin: origin, received: Date(timeIntervalSince1970: 1_800_000_000))
    }
}

@Suite("The time of a fix without a date")
struct DatelessFixTests {
    static func dateless(_ hour: UInt8, _ minute: UInt8, _ second: UInt8) -> Fix {
        var fix = Fix.position(52, 5, at: 0)
        fix.time = nil
        fix.timeOfDay = NMEATime(hour: hour, minute: minute, second: second)
        return fix
    }

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test(
        "the time of day on the UTC day nearest to its arrival, across midnight both ways",
        arguments: [
            ("2026-11-24T07:59:58Z", (8, 0, 0), "2026-11-24T08:00:00Z"),
            ("2026-11-24T00:00:02Z", (23, 59, 59), "2026-11-23T23:59:59Z"),
            ("2026-11-23T23:59:58Z", (0, 0, 1), "2026-11-24T00:00:01Z"),
        ])
    func timeOfDay(_ received: String, _ clock: (UInt8, UInt8, UInt8), _ expected: String) {
        let fix = Self.dateless(clock.0, clock.1, clock.2)
        #expect(fix.bestTime(received: Self.date(received)) == Self.date(expected))
    }

    @Test("no time at all: when it arrived; a dated fix keeps its own time")
    func noTime() {
        var fix = Self.dateless(8, 0, 0)
        fix.timeOfDay = nil
        let received = Self.date("2026-11-24T10:00:00Z")
        #expect(fix.bestTime(received: received) == received)
        #expect(
            Fix.position(52, 5, at: 1000).bestTime(received: received) == Date(timeIntervalSince1970: 1000))
    }

    @Test("a GGA-only receiver's location is dated from its time of day, never 1970")
    func coreNever1970() {
        var core = LocationCoreTests.core()
        let (id, _) = core.subscribeUpdates(profile: .default)
        let received = Self.date("2026-11-24T08:00:03Z")
        let actions = core.receive(.fix(Self.dateless(8, 0, 2)), origin: .receiver, received: received)
        let located = actions.compactMap { action -> Date? in
            if case .deliver(let ids, let update) = action, ids.contains(id) {
                update.location?.timestamp
            } else {
                nil
            }
        }
        #expect(located == [Self.date("2026-11-24T08:00:02Z")])
    }
}
