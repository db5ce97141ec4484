// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import LocationEngine
import Testing

@_spi(FrontEnd) @testable import LocationWire

/// An app's update lines, written once for all its subscriptions: each must be the line the
/// update's event writes for that subscription, whichever updates came before it.
@Suite("The wire: an update's line shared by an app's subscriptions")
struct WireUpdateLinesTests {
    private static func update(_ generator: inout SeededGenerator) -> LocationUpdate {
        var flags = AuthorizationFlags()
        flags.accuracyLimited = Bool.random(using: &generator)
        flags.serviceSessionRequired = Int.random(in: 0..<4, using: &generator) == 0
        guard Int.random(in: 0..<5, using: &generator) != 0 else {
            return LocationUpdate(location: nil, flags: flags, unavailable: Bool.random(using: &generator))
        }
        var location = Location(
            coordinate: Coordinate(
                latitude: Double.random(in: -90...90, using: &generator),
                longitude: Double.random(in: -180...180, using: &generator)),
            horizontalAccuracy: [-1, 0, 4.5, 1000][Int.random(in: 0..<4, using: &generator)],
            timestamp: Date(
                timeIntervalSince1970: 1_773_475_200 + Double(Int.random(in: 0..<8, using: &generator))))
        // Signed zeros and a value no number can equal: each must still get its own line.
        location.speed = [0.0, -0.0, 12.5, -1, .nan][Int.random(in: 0..<5, using: &generator)]
        location.altitude = Double.random(in: -100...9000, using: &generator)
        return LocationUpdate(location: location, flags: flags, stationary: Bool.random(using: &generator))
    }

    @Test(
        "each line is the update event's, for any subscription number",
        arguments: [0, 1, 9, 10, 42, 99_999_999, 100_000_000, -1, -100, Int.max, Int.min])
    func eachLineIsTheEvents(subscription: Int) {
        var generator = SeededGenerator(seed: UInt64(bitPattern: Int64(subscription)))
        let lines = WireUpdateLines()
        for _ in 0..<50 {
            let update = Self.update(&generator)
            var line: [UInt8] = []
            lines.append(update, subscription: subscription, to: &line)
            let expected = WireEvent.update(subscription: subscription, update.wire).encoded()
            #expect(String(decoding: line, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
    }

    @Test("many subscriptions, interleaved updates: every line its own update's")
    func interleavedUpdates() {
        var generator = SeededGenerator(seed: 33)
        // Few distinct updates, so that lines are taken from those already written, and more
        // of them than are kept, so that some are written again.
        let updates = (0..<7).map { _ in Self.update(&generator) }
        let lines = WireUpdateLines()
        var line: [UInt8] = []
        for _ in 0..<2_000 {
            let update = updates[Int.random(in: 0..<updates.count, using: &generator)]
            let subscription = Int.random(in: 0..<1_000, using: &generator)
            line.removeAll(keepingCapacity: true)
            lines.append(update, subscription: subscription, to: &line)
            let expected = WireEvent.update(subscription: subscription, update.wire).encoded()
            guard line == expected else {
                let (got, wanted) = (
                    String(decoding: line, as: UTF8.self), String(decoding: expected, as: UTF8.self)
                )
                Issue.record("subscription \(subscription): \(got) is not \(wanted)")
                return
            }
        }
    }

    @Test("several apps' lines from several threads at once: every line its own update's")
    func appsAndThreads() async {
        // Each thread keeps the lines it wrote last, whichever app they were for: an update
        // written for one app is reused for another, and an update one thread has not seen is
        // found in its app's list or written.
        var generator = SeededGenerator(seed: 34)
        let updates = (0..<9).map { _ in Self.update(&generator) }
        let apps = (0..<3).map { _ in WireUpdateLines() }
        let failures = await withTaskGroup(of: [String].self) { group in
            for thread in 0..<4 {
                group.addTask {
                    var generator = SeededGenerator(seed: UInt64(thread))
                    var failures: [String] = []
                    var line: [UInt8] = []
                    for _ in 0..<3_000 {
                        let update = updates[Int.random(in: 0..<updates.count, using: &generator)]
                        let app = apps[Int.random(in: 0..<apps.count, using: &generator)]
                        let subscription = Int.random(in: 0..<1_000, using: &generator)
                        line.removeAll(keepingCapacity: true)
                        app.append(update, subscription: subscription, to: &line)
                        let expected = WireEvent.update(subscription: subscription, update.wire).encoded()
                        if line != expected { failures.append(String(decoding: line, as: UTF8.self)) }
                    }
                    return failures
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }

    @Test("appended after what the buffer holds, which it leaves alone")
    func appendsAfterWhatIsThere() {
        var generator = SeededGenerator(seed: 5)
        let update = Self.update(&generator)
        let before: [UInt8] = Array("before\n".utf8)
        var line = before
        WireUpdateLines().append(update, subscription: 3, to: &line)
        #expect(line == before + WireEvent.update(subscription: 3, update.wire).encoded())
    }
}
