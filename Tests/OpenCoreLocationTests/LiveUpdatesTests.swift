// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import LocationEngine
import Locking
import OpenCoreLocation
import TestSupport
import Testing

/// A harness whose client is already authorized when in use, with precise location.
func authorizedHarness(origin: FixOrigin = .receiver, precise: Bool = true) throws -> Harness {
    try Harness(
        stored: { [client = "com.example.tracker"] in
            $0[client] = ClientAuthorization(decision: .whenInUse, precise: precise)
        }, origin: origin)
}

@Suite("Live updates")
struct LiveUpdatesTests {
    @Test("Breaking out of the loop releases the subscriber and, with the last one, the receiver")
    func breakReleasesReceiver() async throws {
        let h = try authorizedHarness()
        try await h.run {
            h.source.send(.position(52.0, 5.0, at: 1000, speed: 3))
            var count = 0
            for try await update in CLLocationUpdate.liveUpdates() {
                #expect(update.location != nil)
                count += 1
                break
            }
            #expect(count == 1)
        }
        await settle { h.source.running == 0 && h.service.subscriberCount == 0 }
        #expect(!h.service.isRunning)
    }

    @Test("Cancelling the task ends the stream; one receiver serves every subscriber")
    func cancellationAndFanOut() async throws {
        let h = try authorizedHarness()
        let first = Task { () -> Int in
            try await h.run {
                var n = 0
                for try await update in CLLocationUpdate.liveUpdates() where update.location != nil {
                    n += 1
                }
                return n
            }
        }
        let second = Task { () -> Int in
            try await h.run {
                var n = 0
                for try await update in CLLocationUpdate.liveUpdates() where update.location != nil {
                    n += 1
                    if n == 3 { break }
                }
                return n
            }
        }
        // Both subscribed before anything is sent: the second, started late on a busy machine,
        // would otherwise miss a fix and wait for a third location that never comes.
        await settle { h.updateSubscriptions == 2 }
        await settle { h.service.subscriberCount == 1 }
        await settle { h.source.running == 1 }
        h.source.send(
            (0..<3).map { .position(52.0 + Double($0) * 0.001, 5.0, at: 1000 + Double($0), speed: 3) })
        #expect(try await second.value == 3)
        first.cancel()
        #expect(try await first.value == 3)
        await settle { h.source.running == 0 }
        #expect(h.source.starts == 1)
    }

    @Test("A fix without a position gives no location and locationUnavailable, once")
    func noFixIsUnavailable() async throws {
        let h = try authorizedHarness()
        h.source.send([.noFix(at: 1), .noFix(at: 2), .position(52, 5, at: 3, speed: 2)])
        h.source.end()
        let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
        #expect(updates.count == 2)
        #expect(updates[0].location == nil && updates[0].locationUnavailable)
        #expect(updates[1].location != nil && !updates[1].locationUnavailable)
    }

    @Test("No fixes for a while, or a failing source, report locationUnavailable; the source is reopened")
    func staleAndFailingSource() async throws {
        let h = try authorizedHarness()
        let events = SourceEventLog(h.service)
        defer { events.stop() }
        try await h.run {
            var iterator = CLLocationUpdate.liveUpdates().makeAsyncIterator()
            h.source.send(.position(52, 5, at: 1, speed: 2))
            #expect(try await iterator.next()?.location != nil)

            h.source.fail("device unplugged")
            let failed = try await iterator.next()
            #expect(failed?.location == nil && failed?.locationUnavailable == true)
            #expect(h.messages.all.contains { $0.contains("device unplugged") && $0.contains("reopening") })
            await settle { h.clock.waitingCount >= 2 }  // the watchdog and the backoff
            h.clock.advance(by: .seconds(1))
            await settle { h.source.starts == 2 }
            // Unopened, nothing more would come: end here rather than wait for it forever.
            try #require(h.source.starts == 2)
            h.source.send(.position(52, 5, at: 2, speed: 2))
            let back = try await iterator.next()
            #expect(back?.location != nil && back?.locationUnavailable == false)

            // Silence: the watchdog reports it once.
            h.clock.advance(by: .seconds(7))
            let stale = try await iterator.next()
            #expect(stale?.location == nil && stale?.locationUnavailable == true)
        }
        // The same story, told to whoever watches the receiver.
        await settle { events.all.count >= 5 }
        let told = events.all
        #expect(told.count == 5)
        #expect(told.first == .connected("scripted receiver"))
        guard told.count == 5, case .disconnected(let reason) = told[1] else { return }
        #expect(reason.contains("device unplugged"))
        #expect(
            Array(told[2...]) == [
                .reconnecting(after: .seconds(1)), .connected("scripted receiver"), .stale(.seconds(3)),
            ])
    }

    @Test("A receiver whose device file comes back is reopened at once, without waiting out the delay")
    func deviceReappears() async throws {
        // /dev/serial/by-id vanishes with the last USB serial device: the watch starts above it.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dev-\(UUID().uuidString)")
            .path
        let device = root + "/serial/by-id/usb-u-blox_GNSS_receiver-if00"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let h = try Harness(
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse, precise: true) },
            devicePath: device)
        try await h.run {
            var iterator = CLLocationUpdate.liveUpdates().makeAsyncIterator()
            h.source.send(.position(52, 5, at: 1, speed: 2))
            #expect(try await iterator.next()?.location != nil)
            h.source.fail("device unplugged")
            #expect(try await iterator.next()?.locationUnavailable == true)
            await settle { h.clock.waitingCount >= 2 }  // the watchdog and the backoff
            // The manual clock never moves: only the device's return can reopen the source.
            try await Task.sleep(for: .milliseconds(100))
            #expect(h.source.starts == 1)
            try FileManager.default.createDirectory(
                atPath: (device as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: device, contents: nil))
            await settle { h.source.starts == 2 }
            // Unopened, nothing more would come: end here rather than wait for it forever.
            try #require(h.source.starts == 2)
            h.source.send(.position(52, 5, at: 2, speed: 2))
            #expect(try await iterator.next()?.location != nil)
        }
    }

    @Test("A source that keeps failing is reopened after 1 s, then every 2 s: never later than that")
    func cappedBackoff() async throws {
        let h = try authorizedHarness()
        let events = SourceEventLog(h.service)
        defer { events.stop() }
        try await h.run {
            let updates = Task { try await collect(CLLocationUpdate.liveUpdates()) }
            await settle { h.source.running == 1 }
            for (attempt, delay) in [1, 2, 2, 2, 2].enumerated() {
                h.source.fail("server down")
                await settle {
                    events.all.contains(.reconnecting(after: .seconds(delay)))
                        && h.clock.waitingCount >= 2
                }
                h.clock.advance(by: .seconds(delay))
                await settle { h.source.starts == attempt + 2 }
            }
            updates.cancel()
            _ = try? await updates.value
        }
        let delays = events.all.compactMap {
            if case .reconnecting(let after) = $0 { after } else { nil }
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(2), .seconds(2), .seconds(2)])
    }

    @Test(
        "A receiver open but silent for 10 s is opened again; a replayed log never is",
        arguments: [FixOrigin.receiver, .replay])
    func silentReceiverIsReopened(_ origin: FixOrigin) async throws {
        let h = try authorizedHarness(origin: origin)
        let events = SourceEventLog(h.service)
        defer { events.stop() }
        try await h.run {
            var iterator = CLLocationUpdate.liveUpdates().makeAsyncIterator()
            h.source.send(.position(52, 5, at: 1, speed: 2))
            #expect(try await iterator.next()?.location != nil)
            // Silent: stale after 3 s, reopened at 10 s (a receiver only).
            await settle { h.clock.waitingCount >= 1 }
            h.clock.advance(by: .seconds(3))
            #expect(try await iterator.next()?.locationUnavailable == true)
            await settle { h.clock.waitingCount >= 1 }
            h.clock.advance(by: .seconds(7))
            if origin == .receiver {
                await settle { h.source.starts == 2 }
                // What the service had done, should the receiver not have been opened again
                // (seen once in many runs of the whole suite, not yet explained).
                if h.source.starts != 2 {
                    Issue.record(
                        """
                        not reopened: clock at \(h.clock.now.offset), \(h.clock.waitingCount) sleeping, \
                        \(h.clock.sleepCount) sleeps so far; source started \(h.source.starts) times, \
                        \(h.source.running) running; events \(events.all); messages \(h.messages.all)
                        """)
                }
                #expect(
                    h.messages.all.contains { $0.contains("no fixes for 10.0 seconds although it is open") })
                h.source.send(.position(52.001, 5, at: 20, speed: 2))
                #expect(try await iterator.next()?.location != nil)
            } else {
                try await Task.sleep(for: .milliseconds(200))
                #expect(h.source.starts == 1)
            }
        }
        if origin == .receiver {
            // The log's own task takes the service's events: the reopening's may reach it after
            // the update that followed reached this one.
            let reopening = { (event: SourceEvent) in
                if case .disconnected(let why) = event { why.contains("reopening") } else { false }
            }
            await settle { events.all.contains(where: reopening) }
            #expect(events.all.contains(where: reopening))
        }
    }

    @Test("After stillness exactly one update is stationary, then silence until movement")
    func stationary() async throws {
        let h = try authorizedHarness()
        // 100 s still (noise of a metre), then moving again.
        var fixes: [Fix] = (0..<100).map {
            .position(52.0 + Double($0 % 3) * 0.000005, 5.0, at: 1000 + Double($0), speed: 0.05)
        }
        fixes += (0..<5).map {
            .position(52.001 + Double($0) * 0.0001, 5.0, at: 1100 + Double($0), speed: 10)
        }
        h.source.send(fixes)
        h.source.end()
        let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
        let stationary = updates.filter(\.stationary)
        #expect(stationary.count == 1)
        #expect(stationary.first?.isStationary == true)
        let index = try #require(updates.firstIndex { $0.stationary })
        #expect(updates[index].location?.timestamp == Date(timeIntervalSince1970: 1060))
        #expect(updates.count == index + 1 + 5)  // silence, then the five moving fixes
        #expect(updates[(index + 1)...].allSatisfy { !$0.stationary && $0.location != nil })
    }

    @Test("Authorization pauses use their own flags, never stationary")
    func authorizationPauseIsNotStationary() async throws {
        let h = try authorizedHarness()
        try await h.run {
            var iterator = CLLocationUpdate.liveUpdates().makeAsyncIterator()
            h.source.send(.position(52, 5, at: 1))
            #expect(try await iterator.next()?.location != nil)
            h.activity.setInUse(false)
            let paused = try #require(try await iterator.next())
            #expect(paused.insufficientlyInUse && !paused.stationary && paused.location == nil)
        }
    }

    @Test("Receiver fixes are from an accessory; replayed ones are simulated as well")
    func sourceInformation() async throws {
        for origin in [FixOrigin.receiver, .replay] {
            let h = try authorizedHarness(origin: origin)
            h.source.send(.position(52, 5, at: 1))
            h.source.end()
            let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
            let info = try #require(updates.first?.location?.sourceInformation)
            #expect(info.isProducedByAccessory)
            #expect(info.isSimulatedBySoftware == (origin == .replay))
        }
    }
}

/// Every update until the source ends.
func collect(_ updates: CLLocationUpdate.Updates) async throws -> [CLLocationUpdate] {
    var result: [CLLocationUpdate] = []
    for try await update in updates { result.append(update) }
    return result
}

@Suite("Locations from fixes")
struct FixConversionTests {
    @Test("Unknown speed, course and altitude are -1, never 0; accuracy is never 0 or negative")
    func invalidValues() throws {
        var fix = Fix.position(52, 5, at: 1, speed: nil)
        fix.mode = .twoDimensional
        fix.dop = DOP()
        let location = try #require(CLLocation(fix: fix, origin: .receiver, fallbackTime: Date()))
        #expect(location.speed == -1 && location.speedAccuracy == -1)
        #expect(location.course == -1 && location.courseAccuracy == -1)
        #expect(location.verticalAccuracy <= 0)
        #expect(location.horizontalAccuracy > 0)
    }

    @Test("horizontalAccuracy is the 2-D RMS: from GST, else HDOP × UERE")
    func accuracy() throws {
        var fix = Fix.position(52, 5, at: 1, hdop: 1.2)
        let fromDOP = try #require(CLLocation(fix: fix, origin: .receiver, fallbackTime: Date()))
        #expect(abs(fromDOP.horizontalAccuracy - 1.2 * CLLocation.assumedRangeError) < 1e-9)
        var noise = NoiseStatistics()
        noise.latitude = 3
        noise.longitude = 4
        noise.altitude = 6
        fix.noise = noise
        let fromGST = try #require(CLLocation(fix: fix, origin: .receiver, fallbackTime: Date()))
        #expect(abs(fromGST.horizontalAccuracy - 5) < 1e-9)
        #expect(fromGST.verticalAccuracy == 6)
        #expect(fromGST.timestamp == Date(timeIntervalSince1970: 1))
    }

    @Test("Random fixes never give a location with a non-positive horizontal accuracy")
    func neverNonPositive() {
        var generator = SeededGenerator(seed: 9)
        for _ in 0..<5000 {
            var fix = Fix()
            fix.mode = FixMode(rawValue: Int.random(in: 0...3, using: &generator))!
            fix.latitude =
                Bool.random(using: &generator) ? Double.random(in: -100...100, using: &generator) : nil
            fix.longitude = Double.random(in: -200...200, using: &generator)
            fix.dop.hdop = Bool.random(using: &generator) ? Double.random(in: -1...5, using: &generator) : nil
            fix.speed = Bool.random(using: &generator) ? Double.random(in: -5...50, using: &generator) : nil
            if let location = CLLocation(fix: fix, origin: .receiver, fallbackTime: Date()) {
                #expect(location.horizontalAccuracy > 0)
                #expect(CLLocationCoordinate2DIsValid(location.coordinate))
                #expect(location.speed == -1 || location.speed >= 0)
            }
        }
    }
}

/// Everything a service tells whoever watches its receiver, collected as it comes.
final class SourceEventLog: Sendable {
    private final class Events: Sendable {
        let list = Mutex<[SourceEvent]>([])
    }
    private let events = Events()
    private let watcher: Task<Void, Never>

    init(_ service: LocationService) {
        let stream = service.sourceEvents()
        let events = events
        watcher = Task { for await event in stream { events.list.withLock { $0.append(event) } } }
    }

    var all: [SourceEvent] { events.list.withLock { $0 } }

    func stop() { watcher.cancel() }
}
