// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import TestSupport
import Testing

@testable import LocationEngine

/// Subscribers told the same update at one input share one action. What each is told must be
/// what it would be told alone: the same app's subscribers of every kind in one core, against
/// a core for each of them, through a drive that stops and moves, a loss of the fix, the
/// receiver's silence and the app leaving use.
@Suite("Subscribers told together")
struct DeliveryGroupsTests {
    /// A kind of subscriber: its profile (how soon it counts as standing still) and options.
    struct Kind {
        var profile: ActivityProfile = .default
        var monitoring = false
        var wantsReduced = false
        var continuous = false
    }

    static let kinds: [Kind] = [
        Kind(), Kind(), Kind(profile: .fitness), Kind(profile: .automotiveNavigation), Kind(continuous: true),
        Kind(monitoring: true), Kind(wantsReduced: true), Kind(profile: .fitness, wantsReduced: true),
        Kind(monitoring: true, wantsReduced: true), Kind(),
    ]

    static let start = 1_800_000_000.0

    static func core() -> LocationCore {
        var snapshot = AuthorizationSnapshot()
        snapshot[LocationCoreTests.client] = ClientAuthorization(decision: .whenInUse, precise: true)
        return LocationCore(
            client: LocationCoreTests.client, manifest: EngineFixtures.manifest, snapshot: snapshot,
            inUse: true,
            hasReceiver: true,
            reducer: AccuracyReducer(
                offset: ReducerOffset(secret: ReducerSecret(bytes: Array(repeating: 5, count: 32)))))
    }

    static func subscribe(_ kind: Kind, to core: inout LocationCore) -> (
        LocationCore.ID, [LocationCore.Action]
    ) {
        core.subscribeUpdates(
            profile: kind.profile, monitoring: kind.monitoring, wantsReduced: kind.wantsReduced,
            continuous: kind.continuous)
    }

    /// What happens at `second` of the drive: mostly fixes, moving for five minutes and then
    /// standing for seven, in turn; and the other inputs now and then.
    enum Input {
        case receive(LocationCore.ReceiverEvent)
        case inUse(Bool)
    }

    static func input(at second: Int) -> Input {
        switch second {
        case 2_000: return .inUse(false)
        case 2_060: return .inUse(true)
        case 2_500: return .receive(.unavailable("the antenna is unplugged"))
        default: break
        }
        let time = start + Double(second)
        if (1_400..<1_420).contains(second) { return .receive(.fix(.noFix(at: time))) }
        // Metres north: 8 m/s for 300 s, then still for 420 s.
        let cycle = 720
        let moved = Double(second / cycle * 300 + min(second % cycle, 300)) * 8
        let moving = second % cycle < 300
        return .receive(
            .fix(.position(47.37 + moved / 111_195, 8.54, at: time, speed: moving ? 8 : 0, course: 0)))
    }

    static func apply(_ input: Input, to core: inout LocationCore, at second: Int) -> [LocationCore.Action] {
        switch input {
        case .receive(let event):
            core.receive(
                event, origin: .receiver, received: Date(timeIntervalSince1970: start + Double(second)))
        case .inUse(let inUse):
            core.activityChanged(inUse: inUse)
        }
    }

    @Test("each subscriber is told what it would be told alone, and most are told together")
    func togetherAsAlone() async {
        var together = Self.core()
        var alone = Self.kinds.map { _ in Self.core() }
        var toldTogether = Self.kinds.map { _ in [LocationUpdate]() }
        var toldAlone = Self.kinds.map { _ in [LocationUpdate]() }
        var ids: [LocationCore.ID] = []
        var aloneIDs: [LocationCore.ID] = []
        for (index, kind) in Self.kinds.enumerated() {
            let (id, actions) = Self.subscribe(kind, to: &together)
            ids.append(id)
            toldTogether[index] += LocationCoreTests.updates(actions, to: id)
            let (aloneID, aloneActions) = Self.subscribe(kind, to: &alone[index])
            aloneIDs.append(aloneID)
            toldAlone[index] += LocationCoreTests.updates(aloneActions, to: aloneID)
        }
        var shared = 0
        var yielder = Yielder(roundsPerLook: 64)
        for second in 0..<3_600 {
            await yielder.giveWay()
            let input = Self.input(at: second)
            let actions = Self.apply(input, to: &together, at: second)
            for action in actions {
                if case .deliver(let to, _) = action, to.count > 1 { shared += 1 }
            }
            for index in Self.kinds.indices {
                toldTogether[index] += LocationCoreTests.updates(actions, to: ids[index])
                let aloneActions = Self.apply(input, to: &alone[index], at: second)
                toldAlone[index] += LocationCoreTests.updates(aloneActions, to: aloneIDs[index])
            }
        }
        for index in Self.kinds.indices {
            let (together, alone) = (toldTogether[index], toldAlone[index])
            let shorter = min(together.count, alone.count)
            let first = (0..<shorter).first { together[$0] != alone[$0] } ?? shorter
            #expect(
                together == alone,
                """
                subscriber \(index) (\(Self.kinds[index])): \(together.count) updates told together, \
                \(alone.count) alone; the first that differ, #\(first): \
                \(together.dropFirst(first).first.map(String.init(describing:)) ?? "none") together, \
                \(alone.dropFirst(first).first.map(String.init(describing:)) ?? "none") alone
                """)
            #expect(!alone.isEmpty)
        }
        // Stationary pauses and reduced outputs make the kinds differ; they still share.
        let stationary = toldAlone.map { $0.count(where: \.isStationary) }
        #expect(Set(stationary).count > 2)
        #expect(shared > 3_000)
    }
}
