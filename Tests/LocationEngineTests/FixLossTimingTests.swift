// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import TestSupport
import Testing

@testable import LocationEngine

/// An app with approximate access learns when the receiver lost and regained its fix no more
/// precisely than the reducer's cadence allows, whichever way it listens: every change of
/// `unavailable` it is told falls on one of the reducer's outputs, which come 15 to 20 minutes
/// apart whatever the receiver does.
@Suite("Reduced accuracy: the fix's loss follows the reducer's outputs")
struct FixLossTimingTests {
    /// A day of fixes with gaps of every length: from seconds to hours.
    static let gaps: [(start: Double, length: Double)] = [
        (1_800, 5), (3_600, 40), (5_400, 300), (9_000, 899), (14_400, 1_800), (21_600, 3_600),
        (30_000, 20), (36_000, 7_200), (50_000, 61), (60_000, 900),
    ]

    /// The flags of a when-in-use, approximate grant in use.
    static var grantFlags: AuthorizationFlags {
        var flags = AuthorizationFlags()
        flags.accuracyLimited = true
        return flags
    }

    /// The commute of the reduced-accuracy tests, parked from 40,000 s to 49,000 s of the day.
    static func fix(_ second: Double) -> LocationCore.ReceiverEvent {
        guard (40_000..<49_000).contains(second) else { return ReducedAccuracyCoreTests.fix(second) }
        return .fix(.position(47.38, 8.54, at: ReducedAccuracyCoreTests.start + second, speed: 0, course: 0))
    }

    static func inGap(_ second: Double) -> Bool {
        gaps.contains { second >= $0.start && second < $0.start + $0.length }
    }

    @Test(
        "updates, continuous updates, wanted-reduced updates and a monitor's feed: the same outputs' timing")
    func everyKind() async {
        var core = ReducedAccuracyCoreTests.core()
        let kinds: [(String, LocationCore.ID)] = [
            ("updates", core.subscribeUpdates(profile: .default).0),
            ("continuous", core.subscribeUpdates(profile: .default, continuous: true).0),
            ("wantsReduced", core.subscribeUpdates(profile: .automotiveNavigation, wantsReduced: true).0),
            ("monitor", core.subscribeUpdates(profile: .default, monitoring: true).0),
        ]
        var outputs: Set<Double> = []
        var changes: [String: [(second: Double, unavailable: Bool)]] = [:]
        var last: [String: Bool] = [:]
        var monitorLocations = 0
        // Stillness and the flags say nothing of the receiver either: the device parks for two and
        // a half hours of this day, and the flags stay those of the grant.
        var stationary = 0
        var flagChanges = 0
        let reference = LocationUpdate(location: nil, flags: Self.grantFlags)
        var second = 0.0
        var yielder = Yielder(roundsPerLook: 64)
        while second < 86_400 {
            await yielder.giveWay()
            let event: LocationCore.ReceiverEvent =
                Self.inGap(second)
                ? (Int(second) % 2 == 0
                    ? .fix(.noFix(at: ReducedAccuracyCoreTests.start + second)) : .unavailable("no fix"))
                : Self.fix(second)
            let actions = core.receive(
                event, origin: .receiver,
                received: Date(timeIntervalSince1970: ReducedAccuracyCoreTests.start + second))
            for (name, id) in kinds {
                for update in LocationCoreTests.updates(actions, to: id) {
                    if name == "updates" { outputs.insert(second) }
                    if name == "monitor", update.location != nil { monitorLocations += 1 }
                    if update.isStationary { stationary += 1 }
                    if update.flags != reference.flags { flagChanges += 1 }
                    let unavailable = update.location == nil && update.locationUnavailable
                    if last[name] != unavailable {
                        last[name] = unavailable
                        changes[name, default: []].append((second, unavailable))
                    }
                }
            }
            second += 1
        }
        #expect(monitorLocations == 0, "a monitor's feed under reduced accuracy has no location")
        #expect(stationary == 0, "no reduced update says the device stands still")
        #expect(flagChanges == 0, "the flags are the grant's throughout")
        let told = changes["updates"] ?? []
        #expect(told.contains { $0.unavailable }, "the long gaps are told")
        for (name, _) in kinds {
            let seen = changes[name] ?? []
            for change in seen {
                #expect(
                    outputs.contains(change.second),
                    "\(name): a change at \(change.second) s, between outputs")
            }
            #expect(
                seen.map(\.unavailable) == told.map(\.unavailable), "\(name): \(seen) vs \(told)")
        }
        // The outputs come at the cadence, however the fix comes and goes: an app learns that the
        // fix was lost only at an output, 15 to 20 minutes after the one before.
        let times = outputs.sorted()
        let spacing = zip(times, times.dropFirst()).map { $1 - $0 }.min() ?? 0
        #expect(spacing >= AccuracyReducer.intervals.lowerBound, "outputs \(spacing) s apart")
        let toldGaps = told.filter(\.unavailable).count
        print(
            "FIXLOSS \(times.count) outputs in a day, at least \(spacing) s apart; \(toldGaps) losses told, each at an output"
        )
    }
}
