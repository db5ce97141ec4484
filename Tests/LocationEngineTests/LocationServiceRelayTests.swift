// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import LocationEngine
import Locking
import TestSupport
import Testing

/// A live source's subscribers told one after another through a relay, as gpslocd tells its
/// apps on its event loop.
@Suite("A live source's subscribers through a relay")
struct LocationServiceRelayTests {
    /// A relay that keeps each step it is given until the test runs it.
    final class Steps: Sendable {
        private let waiting = Mutex<[@Sendable () -> Void]>([])
        func add(_ step: @escaping @Sendable () -> Void) { waiting.withLock { $0.append(step) } }
        /// Runs the steps in the order given, with those they hand on, until none is left.
        func runAll() {
            while let step = waiting.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { step() }
        }
    }

    /// What each subscriber was told, as text.
    final class Told: Sendable {
        private let lines: Mutex<[[String]]>
        init(subscribers: Int) { lines = Mutex(Array(repeating: [], count: subscribers)) }
        func add(_ event: LocationService.Event, to subscriber: Int) {
            let line =
                switch event {
                case .fix(let fix): "fix \(fix.time.map { "\($0)" } ?? "-") \(fix.latitude ?? .nan)"
                case .unavailable(let reason): "unavailable: \(reason)"
                case .ended: "ended"
                }
            lines.withLock { $0[subscriber].append(line) }
        }
        subscript(subscriber: Int) -> [String] { lines.withLock { $0[subscriber] } }
    }

    /// A live source (or one with a pace of its own) told to `subscribers` subscribers through a
    /// relay the test runs.
    struct Relayed {
        let source: ScriptedFixSource
        let steps = Steps()
        let service: LocationService
        let told: Told
        let ids: [Int]

        init(subscribers: Int, isRealTime: Bool = true) {
            let (steps, told) = (steps, Told(subscribers: subscribers))
            source = ScriptedFixSource(isRealTime: isRealTime)
            service = LocationService(source: source, clock: ManualClock(), relay: { steps.add($0) })
            self.told = told
            ids = (0..<subscribers).map { [service] index in service.subscribe { told.add($0, to: index) } }
        }

        func unsubscribe() { for id in ids { service.unsubscribe(id) } }
    }

    @Test("The first is told at once, the others only through the relay, each every event in order")
    func relayed() async throws {
        let relayed = Relayed(subscribers: 3)
        let told = relayed.told
        let fixes = try driveSample(epochs: 5).fixes
        relayed.source.send(fixes)
        relayed.source.fail("unplugged")
        #expect(await waitUntil(within: 20) { told[0].count == fixes.count + 1 })
        #expect(told[0].last?.contains("unplugged") == true, "\(told[0])")
        #expect(told[1].isEmpty && told[2].isEmpty, "the others wait for the relay")
        relayed.steps.runAll()
        #expect(told[1] == told[0])
        #expect(told[2] == told[0])
        relayed.unsubscribe()
    }

    @Test("Stopped, the source is closed and nobody is told anything more, nor started again")
    func stopped() async throws {
        let relayed = Relayed(subscribers: 2)
        let (source, service, told) = (relayed.source, relayed.service, relayed.told)
        let fixes = try driveSample(epochs: 2).fixes
        source.send(fixes)
        #expect(await waitUntil(within: 20) { told[0].count == fixes.count })
        await service.stop()
        #expect(source.running == 0, "the source's run ended before stop returned")
        source.send(fixes)
        source.fail("unplugged")
        let late = service.subscribe { told.add($0, to: 1) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(source.starts == 1 && !service.isRunning)
        #expect(told[0].count == fixes.count, "nothing after the stop")
        relayed.steps.runAll()
        #expect(told[1] == told[0], "what was relayed before the stop still arrives, in order")
        relayed.unsubscribe()
        service.unsubscribe(late)
    }

    @Test("A source with a pace of its own tells every subscriber at once, past the relay")
    func paced() async throws {
        let relayed = Relayed(subscribers: 2, isRealTime: false)
        let told = relayed.told
        let fixes = try driveSample(epochs: 3).fixes
        relayed.source.send(fixes)
        #expect(await waitUntil(within: 20) { told[1].count == fixes.count })
        #expect(told[0] == told[1])
        relayed.unsubscribe()
    }
}
