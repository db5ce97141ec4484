// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import TestSupport
import Testing

@testable import LocationEngine

/// The reduced state is the app's: every subscription of the app is told the same outputs, a new
/// subscription is told the last one again, and a restart resumes it.
@Suite("Reduced accuracy, the app's state")
struct ReducedAccuracyCoreTests {
    static let start = 1_800_000_000.0

    static func core(precise: Bool = false, state: AccuracyReducer.State = .init()) -> LocationCore {
        var snapshot = AuthorizationSnapshot()
        snapshot["com.example.tracker"] = ClientAuthorization(decision: .whenInUse, precise: precise)
        return LocationCore(
            client: "com.example.tracker", manifest: EngineFixtures.manifest, snapshot: snapshot, inUse: true,
            hasReceiver: true,
            reducer: AccuracyReducer(
                offset: ReducerOffset(secret: ReducerSecret(bytes: Array(repeating: 3, count: 32))),
                state: state))
    }

    static func fix(_ second: Double) -> LocationCore.ReceiverEvent {
        // A commute: 3 km north and back every hour, across several cells.
        let phase = second.truncatingRemainder(dividingBy: 3600) / 3600
        let north = 3_000 * (1 - abs(2 * phase - 1))
        return .fix(.position(47.37 + north / 111_195, 8.54, at: start + second, speed: 8, course: 0))
    }

    static func located(_ actions: [LocationCore.Action], to id: LocationCore.ID) -> [Location] {
        LocationCoreTests.updates(actions, to: id).compactMap(\.location)
    }

    @Test("Subscribing again every ten seconds learns nothing one long subscription does not")
    func resubscribing() async {
        var core = Self.core()
        var yielder = Yielder(roundsPerLook: 64)
        let (long, _) = core.subscribeUpdates(profile: .default)
        var (short, first) = core.subscribeUpdates(profile: .default)
        var longSeen = Self.located(first, to: long)
        var shortSeen = Self.located(first, to: short)
        for second in stride(from: 0.0, to: 4 * 3600, by: 1) {
            await yielder.giveWay()
            let actions = core.receive(Self.fix(second), origin: .receiver)
            longSeen += Self.located(actions, to: long)
            shortSeen += Self.located(actions, to: short)
            if second.truncatingRemainder(dividingBy: 10) == 9 {
                _ = core.unsubscribeUpdates(short)
                let (again, subscribed) = core.subscribeUpdates(profile: .default)
                short = again
                shortSeen += Self.located(subscribed, to: again)
            }
        }
        #expect(longSeen.count >= 12 && longSeen.count <= 17)
        let longOutputs = Set(
            longSeen.map { "\($0.timestamp.timeIntervalSince1970) \($0.coordinate.latitude)" })
        let shortOutputs = Set(
            shortSeen.map { "\($0.timestamp.timeIntervalSince1970) \($0.coordinate.latitude)" })
        #expect(shortOutputs == longOutputs)
    }

    @Test("A restart resumes the stored state: the last output again, and the next one when it is due")
    func restart() {
        var core = Self.core()
        let (id, _) = core.subscribeUpdates(profile: .default)
        var stored: AccuracyReducer.State?
        var last: Location?
        for second in stride(from: 0.0, to: 2000, by: 1) {
            let actions = core.receive(Self.fix(second), origin: .receiver)
            for action in actions { if case .persistReduced(let state) = action { stored = state } }
            last = Self.located(actions, to: id).last ?? last
        }
        let state = try! #require(stored)
        var restarted = Self.core(state: state)
        let (again, subscribed) = restarted.subscribeUpdates(profile: .default)
        let told = Self.located(subscribed, to: again)
        #expect(told.map(\.timestamp) == [last!.timestamp])
        #expect(told.map(\.coordinate) == [last!.coordinate])
        var next: Double?
        for second in stride(from: 2000.0, to: 4000, by: 1) where next == nil {
            if !Self.located(restarted.receive(Self.fix(second), origin: .receiver), to: again).isEmpty {
                next = second
            }
        }
        let gap = try! #require(next) - last!.timestamp.timeIntervalSince1970 + Self.start
        #expect(gap >= 900 && gap <= 1201)
    }

    @Test("The receiver going away is told at the next due time; a precise app is told at once")
    func unavailableAtTheCadence() {
        var core = Self.core()
        let (id, _) = core.subscribeUpdates(profile: .default)
        var unavailableAt: [Double] = []
        for second in stride(from: 0.0, to: 1300, by: 1) {
            let event: LocationCore.ReceiverEvent = second < 60 ? Self.fix(second) : .unavailable("unplugged")
            let received = Date(timeIntervalSince1970: Self.start + second)
            for update in LocationCoreTests.updates(
                core.receive(event, origin: .receiver, received: received), to: id)
            where update.locationUnavailable {
                unavailableAt.append(second)
                #expect(update.flags.accuracyLimited && update.location == nil)
            }
        }
        #expect(unavailableAt.count == 1)
        #expect(unavailableAt.allSatisfy { $0 >= 900 })

        var precise = Self.core(precise: true)
        let (p, _) = precise.subscribeUpdates(profile: .default)
        _ = precise.receive(Self.fix(0), origin: .receiver)
        let lost = precise.receive(.unavailable("unplugged"), origin: .receiver)
        #expect(LocationCoreTests.updates(lost, to: p).map(\.locationUnavailable) == [true])
    }

    @Test("A precise app asking for reduced locations gets them, and its other loops stay precise")
    func desiredReduced() {
        var core = Self.core(precise: true)
        let (reduced, _) = core.subscribeUpdates(profile: .default, wantsReduced: true)
        let (precise, _) = core.subscribeUpdates(profile: .default)
        let actions = core.receive(Self.fix(0), origin: .receiver)
        let approximate = Self.located(actions, to: reduced)
        #expect(
            approximate.count == 1 && approximate[0].horizontalAccuracy >= 3600 && approximate[0].speed == -1)
        #expect(Self.located(actions, to: precise).first?.speed == 8)
    }
}
