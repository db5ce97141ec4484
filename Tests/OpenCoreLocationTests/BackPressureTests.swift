// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import Locking
import TestSupport
import Testing

@_spi(FrontEnd) @testable import LocationEngine
@testable import OpenCoreLocation

/// A log replayed in real time on a manual clock: a receiver whose time the test moves.
struct ClockedReplay: FixSource {
    let replay: ReplaySource
    let clock: ManualClock
    var origin: FixOrigin { .receiver }
    var name: String { replay.name }
    var isRealTime: Bool { true }

    func run(_ deliver: @escaping @Sendable (Fix) async -> Void) async throws {
        try await replay.run(clock: clock) { await deliver($0) }
    }
}

@Suite("Back-pressure")
struct BackPressureTests {
    @Test("A subscriber that takes 2 s per update does not slow a second one on a 10 Hz replay")
    func slowSubscriberDelaysNobody() async throws {
        let path = Fixtures.url("drive-10hz.nmea").path
        var times: [Date] = []
        try ReplaySource(path: path).decodeAll { fix in
            if let time = fix.time, fix.hasPosition {
                times.append(Date(timeIntervalSince1970: time.secondsSinceEpoch))
            }
        }
        let clock = ManualClock()
        let source = ClockedReplay(replay: ReplaySource(path: path, speed: .realTime), clock: clock)
        let h = try Harness(
            stored: { [client = "com.example.tracker"] in
                $0[client] = ClientAuthorization(decision: .whenInUse, precise: true)
            })
        let service = LocationService(source: source, clock: clock, staleAfter: .seconds(60))
        let context = LocationContext(
            .init(
                client: h.client, manifest: Harness.manifest, store: h.store, prompter: h.prompter,
                activity: h.activity, service: service, watchesStore: false, log: { _ in }))

        let fast = Mutex<[Date]>([])
        let slow = Mutex<[Date]>([])
        let slowMailbox = Mutex<Mailbox<LocationUpdate>?>(nil)
        let slowTask = Task {
            let mailbox = context.subscribeUpdates(configuration: .automotiveNavigation)
            slowMailbox.withLock { $0 = mailbox }
            let lease = MailboxLease(mailbox)
            // Two seconds of the clock for each update, counted from the first: a task that
            // starts to sleep after the test has moved the clock on (a loaded machine) takes its
            // next update no later for it.
            var deadline: ManualClock.Instant?
            while let update = await lease.mailbox.next() {
                if let location = update.location { slow.withLock { $0.append(location.timestamp) } }
                let next = (deadline ?? clock.now).advanced(by: .seconds(2))
                deadline = next
                try? await clock.sleep(until: next, tolerance: nil)
            }
        }
        let fastTask = Task {
            try await LocationContext.withContext(context) {
                for try await update in CLLocationUpdate.liveUpdates(.automotiveNavigation) {
                    if let location = update.location { fast.withLock { $0.append(location.timestamp) } }
                }
            }
        }
        await settle { slow.withLock { $0.count } == 1 && fast.withLock { $0.count } == 1 }

        // Ten seconds of the log, a tenth of a second at a time: after each step the fast
        // subscriber has every fix that is due, whatever the slow one is doing.
        let start = times[0]
        for step in 1...100 {
            clock.advance(by: .milliseconds(100))
            let due = times.count { $0.timeIntervalSince(start) <= Double(step) / 10 + 1e-6 }
            await settle { fast.withLock { $0.count } == due }
            // Recorded already; waiting 30 s for each of the remaining steps would look like a hang.
            if fast.withLock({ $0.count }) != due { break }
        }
        #expect(fast.withLock { $0 } == Array(times.prefix(fast.withLock { $0.count })))
        // The slow one took an update every 2 s and lost the oldest of what it could not take.
        let slowCount = slow.withLock { $0.count }
        #expect((5...7).contains(slowCount))
        #expect(slowMailbox.withLock { $0?.dropped ?? 0 } > 0)
        slowTask.cancel()
        fastTask.cancel()
        _ = await (slowTask.value, try? fastTask.value)
    }
}
