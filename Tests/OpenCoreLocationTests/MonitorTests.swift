// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import LocationEngine
import OpenCoreLocation
import TestSupport
import Testing

/// Every event of a monitor until its receiver ends (or `limit` events).
func collect(_ monitor: CLMonitor, limit: Int = .max) async throws -> [CLMonitor.Event] {
    var result: [CLMonitor.Event] = []
    for try await event in await monitor.events {
        result.append(event)
        if result.count >= limit { break }
    }
    return result
}

/// A point `distance` metres from (52, 5) along `bearing`.
func point(_ distance: Double, bearing: Double = 0) -> (Double, Double) {
    let p = Geodesy.destination(latitude: 52, longitude: 5, bearing: bearing, distance: distance)
    return (p.latitude, p.longitude)
}

func fix(_ distance: Double, bearing: Double = 0, at seconds: Double) -> Fix {
    let (latitude, longitude) = point(distance, bearing: bearing)
    return .position(latitude, longitude, at: seconds)
}

/// A circle of 100 m around (52, 5).
let home = CLMonitor.CircularGeographicCondition(
    center: CLLocationCoordinate2D(latitude: 52, longitude: 5), radius: 100)

func authorized(
    precise: Bool = true, inUse: Bool = true, manifest: Manifest = Harness.manifest, directory: String? = nil
) throws -> Harness {
    try Harness(
        manifest: manifest,
        stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse, precise: precise) },
        inUse: inUse, directory: directory)
}

extension CLMonitor.Event {
    var summary: String { "\(identifier) \(state)" }
}

@Suite("CLMonitor")
struct MonitorTests {
    @Test("A route into and out of a circle: unsatisfied, satisfied, unsatisfied, dated by the fixes")
    func route() async throws {
        let h = try authorized()
        h.source.send([fix(500, at: 1), fix(300, at: 2), fix(50, at: 3), fix(0, at: 4), fix(250, at: 5)])
        h.source.end()
        let events = try await h.run {
            let monitor = await CLMonitor("trips")
            await monitor.add(home, identifier: "home")
            return try await collect(monitor)
        }
        #expect(events.map(\.summary) == ["home unsatisfied", "home satisfied", "home unsatisfied"])
        #expect(events.map(\.date.timeIntervalSince1970) == [1, 3, 5])
        #expect(events.allSatisfy { !$0.accuracyLimited && !$0.authorizationDenied && $0.refinement == nil })
        #expect(h.source.running == 0)
    }

    @Test("Noisy fixes along the edge do not flap: a state changes only when confidently across")
    func edge() async throws {
        let h = try authorized()
        var generator = SeededGenerator(seed: 7)
        var fixes = [fix(20, at: 0)]
        for second in 1...300 {
            // within ±3.5 m of the edge, the fix uncertain by 4.5 m (HDOP 0.9)
            let distance = 100 + Double.random(in: -3.5...3.5, using: &generator)
            fixes.append(
                fix(distance, bearing: Double.random(in: 0..<360, using: &generator), at: Double(second)))
        }
        fixes.append(fix(110, at: 301))
        h.source.send(fixes)
        h.source.end()
        let events = try await h.run {
            let monitor = await CLMonitor("edge")
            await monitor.add(home, identifier: "home")
            return try await collect(monitor)
        }
        #expect(events.map(\.summary) == ["home satisfied", "home unsatisfied"])
        #expect(events.last?.date.timeIntervalSince1970 == 301)
    }

    @Test("assuming: sets the first state; an event follows only when the condition is found otherwise")
    func assuming() async throws {
        let h = try authorized()
        h.source.send([fix(10, at: 1), fix(20, at: 2)])
        h.source.end()
        let events = try await h.run {
            let monitor = await CLMonitor("assume")
            await monitor.add(home, identifier: "inside", assuming: .satisfied)
            await monitor.add(home, identifier: "wrong", assuming: .unsatisfied)
            #expect(await monitor.record(for: "inside")?.lastEvent.state == .satisfied)
            #expect(await monitor.record(for: "wrong")?.lastEvent.state == .unsatisfied)
            return try await collect(monitor)
        }
        #expect(events.map(\.summary) == ["wrong satisfied"])
    }

    @Test("Opening a name twice gives the same live monitor")
    func oneInstancePerName() async throws {
        let h = try authorized()
        try await h.run {
            let first = await CLMonitor("shared")
            let second = await CLMonitor("shared")
            await first.add(home, identifier: "home")
            #expect(await second.identifiers == ["home"])
            await second.remove("home")
            #expect(await first.identifiers.isEmpty)
            #expect(await CLMonitor("other").identifiers.isEmpty)
        }
    }

    @Test("Conditions and the last consumed event survive a restart; unconsumed events come again")
    func persistence() async throws {
        let first = try authorized()
        first.source.send([fix(300, at: 1), fix(0, at: 2)])
        let consumed = try await first.run {
            let monitor = await CLMonitor("trips")
            await monitor.add(home, identifier: "home")
            await monitor.add(
                CLMonitor.CircularGeographicCondition(
                    center: CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35), radius: 2_000),
                identifier: "paris", assuming: .unsatisfied)
            // Take the first event only; the second ("home satisfied") is never consumed.
            let events = try await collect(monitor, limit: 1)
            await settle { first.source.running == 0 }
            #expect(await monitor.record(for: "home")?.lastEvent.state == .unsatisfied)
            return events
        }
        #expect(consumed.map(\.summary) == ["home unsatisfied"])

        // A new process: the same store, a new context.
        let second = try authorized(directory: first.directory)
        second.source.send([fix(0, at: 10), fix(300, at: 11)])
        second.source.end()
        let events = try await second.run {
            let monitor = await CLMonitor("trips")
            #expect(await monitor.identifiers == ["home", "paris"])
            let record = try #require(await monitor.record(for: "home"))
            #expect(record.lastEvent.state == .unsatisfied)
            #expect(record.lastEvent.date.timeIntervalSince1970 == 1)
            let circle = try #require(record.condition as? CLMonitor.CircularGeographicCondition)
            #expect(circle == home)
            let events = try await collect(monitor)
            #expect(await monitor.record(for: "home")?.lastEvent.state == .unsatisfied)
            #expect(await monitor.record(for: "home")?.lastEvent.date.timeIntervalSince1970 == 11)
            return events
        }
        #expect(events.map(\.summary) == ["home satisfied", "home unsatisfied"])
        let file = first.directory + "/monitors/com.example.tracker/trips.monitor"
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("A corrupt monitor file is set aside with a message; the monitor starts empty")
    func corruptFile() async throws {
        let h = try authorized()
        let directory = h.directory + "/monitors/com.example.tracker"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: directory + "/trips.monitor"))
        try await h.run {
            let monitor = await CLMonitor("trips")
            #expect(await monitor.identifiers.isEmpty)
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/trips.monitor.corrupt"))
        #expect(h.messages.all.contains { $0.contains("trips.monitor is not valid") })
    }

    @Test("Over the limit a condition is unmonitored with conditionLimitExceeded, until room is made")
    func limit() async throws {
        let h = try authorized()
        h.source.end()
        let limit = CLMonitor.maximumGeographicConditions
        #expect(limit == 20)
        let events = try await h.run {
            let a = await CLMonitor("a")
            for index in 0..<15 { await a.add(home, identifier: "a\(index)", assuming: .unsatisfied) }
            let b = await CLMonitor("b")
            for index in 0..<6 { await b.add(home, identifier: "b\(index)", assuming: .unsatisfied) }
            await b.remove("b0")
            return try await collect(b)
        }
        #expect(events.map(\.summary) == ["b5 unmonitored", "b5 unknown"])
        #expect(events[0].conditionLimitExceeded && !events[1].conditionLimitExceeded)
    }

    @Test("A storage failure gives persistenceUnavailable; the conditions still work in memory")
    func persistenceFailure() async throws {
        let h = try authorized()
        // A directory where the monitor's file should be: it cannot be replaced.
        let file = h.directory + "/monitors/com.example.tracker/trips.monitor"
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true)
        h.source.send([fix(0, at: 1)])
        h.source.end()
        let events = try await h.run {
            let monitor = await CLMonitor("trips")
            await monitor.add(home, identifier: "home")
            return try await collect(monitor)
        }
        #expect(events.map(\.summary) == ["home unknown", "home satisfied"])
        #expect(events.allSatisfy { $0.persistenceUnavailable })
        #expect(h.messages.all.contains { $0.contains("trips.monitor cannot be written") })
    }

    @Test("Beacon conditions are kept but unsupported: unmonitored with conditionUnsupported")
    func beacons() async throws {
        let h = try authorized()
        h.source.end()
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let events = try await h.run {
            let monitor = await CLMonitor("beacons")
            await monitor.add(CLMonitor.BeaconIdentityCondition(uuid: uuid, major: 1), identifier: "door")
            let record = try #require(await monitor.record(for: "door"))
            let beacon = try #require(record.condition as? CLMonitor.BeaconIdentityCondition)
            #expect(beacon.major == 1 && beacon.minor == nil)
            return try await collect(monitor)
        }
        #expect(events.map(\.summary) == ["door unmonitored"])
        #expect(events.first?.conditionUnsupported == true)
    }

    @Test("Under reduced accuracy geographic conditions never fire; their events carry accuracyLimited")
    func reducedAccuracy() async throws {
        let h = try authorized(precise: false)
        h.source.send((0..<60).map { fix(Double($0 % 2) * 300, at: Double($0)) })
        h.source.end()
        let events = try await h.run {
            let monitor = await CLMonitor("approximate")
            await monitor.add(home, identifier: "home")
            return try await collect(monitor)
        }
        #expect(events.map(\.summary) == ["home unknown"])
        #expect(events.allSatisfy { $0.accuracyLimited })
    }

    @Test(
        "Every authorization diagnostic reaches the events",
        arguments: [
            "denied", "deniedGlobally", "restricted", "insufficientlyInUse", "serviceSessionRequired",
            "requestInProgress",
        ])
    func diagnostics(_ flag: String) async throws {
        var stored = AuthorizationSnapshot()
        stored["com.example.tracker"] = ClientAuthorization(decision: .whenInUse)
        var manifest = Harness.manifest
        var inUse = true
        switch flag {
        case "denied": stored["com.example.tracker"] = ClientAuthorization(decision: .denied)
        case "deniedGlobally": stored.servicesEnabled = false
        case "restricted": stored.restrictAll = true
        case "insufficientlyInUse": inUse = false
        case "serviceSessionRequired":
            manifest = Manifest(
                whenInUseUsageDescription: "Shows where you are.", requiresExplicitServiceSession: true)
        default: stored.clients["com.example.tracker"] = nil
        }
        let snapshot = stored
        let h = try Harness(manifest: manifest, stored: { $0 = snapshot }, inUse: inUse)
        h.source.send(fix(0, at: 1))
        let events = try await h.run {
            let monitor = await CLMonitor("flags")
            await monitor.add(home, identifier: "home")
            return try await collect(monitor, limit: 1)
        }
        let event = try #require(events.first)
        #expect(event.state == .unknown)
        switch flag {
        case "denied": #expect(event.authorizationDenied && !event.authorizationDeniedGlobally)
        case "deniedGlobally": #expect(event.authorizationDeniedGlobally && event.authorizationDenied)
        case "restricted": #expect(event.authorizationRestricted)
        case "insufficientlyInUse": #expect(event.insufficientlyInUse)
        case "serviceSessionRequired": #expect(event.serviceSessionRequired)
        default: #expect(event.authorizationRequestInProgress)
        }
    }

    @Test("Iterating events is a when-in-use session: it asks, and the answer lets the circle fire")
    func implicitSession() async throws {
        let h = try Harness()
        let task = Task {
            try await h.run {
                let monitor = await CLMonitor("implicit")
                await monitor.add(home, identifier: "home")
                return try await collect(monitor)
            }
        }
        await settle { h.prompter.showing == 1 }
        #expect(h.prompter.requests.map(\.kind) == [.whenInUse])
        h.prompter.answer(.allowWhileUsing(precise: true))
        await settle { h.record.decision == .whenInUse }
        h.source.send(fix(0, at: 1))
        h.source.end()
        let events = try await task.value
        #expect(events.first?.authorizationRequestInProgress == true)
        #expect(events.last.map(\.summary) == "home satisfied")
        #expect(events.last?.authorizationRequestInProgress == false)
    }
}

@Suite("CLBackgroundActivitySession")
struct BackgroundActivityTests {
    @Test("Started in use, it keeps a when-in-use app's updates flowing in the background")
    func keepsInUse() async throws {
        let h = try authorized()
        try await h.run {
            let session = CLBackgroundActivitySession()
            h.activity.setInUse(false)
            h.source.send([.position(52, 5, at: 1)])
            h.source.end()
            let updates = try await collect(CLLocationUpdate.liveUpdates())
            #expect(updates.contains { $0.location != nil })
            #expect(!updates.contains { $0.insufficientlyInUse })
            var diagnostics = session.diagnostics.makeAsyncIterator()
            let first = try #require(await diagnostics.next())
            #expect(!first.insufficientlyInUse && !first.authorizationDenied)
            session.invalidate()
            #expect(await diagnostics.next() == nil)
        }
    }

    @Test("Started out of use, it keeps nothing in use and says insufficientlyInUse")
    func mustStartInUse() async throws {
        let h = try authorized(inUse: false)
        try await h.run {
            let session = CLBackgroundActivitySession()
            var diagnostics = session.diagnostics.makeAsyncIterator()
            #expect(await diagnostics.next()?.insufficientlyInUse == true)
            h.source.send(.position(52, 5, at: 1))
            h.source.end()
            let updates = try await collect(CLLocationUpdate.liveUpdates())
            #expect(updates.allSatisfy { $0.location == nil && $0.insufficientlyInUse })
            // Coming to the foreground does not make it keep the app in use later.
            h.activity.setInUse(true)
            #expect(await diagnostics.next()?.insufficientlyInUse == false)
            h.activity.setInUse(false)
            #expect(await diagnostics.next()?.insufficientlyInUse == true)
        }
        #expect(h.messages.all.contains { $0.contains("background activity session while not in use") })
    }

    @Test("Allow Once lasts while a background activity session holds, and lapses when it ends")
    func allowOnce() async throws {
        let h = try Harness(answers: [.allowOnce(precise: true)])
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse)
            await settle { h.record.decision == .whenInUse }
            let background = CLBackgroundActivitySession()
            h.activity.setInUse(false)
            #expect(CLLocationManager().authorizationStatus == .authorizedWhenInUse)
            background.invalidate()
            await settle { h.record.decision == .notDetermined }
            session.invalidate()
        }
    }

    @Test("Monitor events keep flowing in the background under a background activity session")
    func monitorInBackground() async throws {
        let h = try authorized()
        let events = try await h.run {
            let session = CLBackgroundActivitySession()
            h.activity.setInUse(false)
            h.source.send([fix(300, at: 1), fix(0, at: 2)])
            h.source.end()
            let monitor = await CLMonitor("background")
            await monitor.add(home, identifier: "home")
            let events = try await collect(monitor)
            session.invalidate()
            return events
        }
        #expect(events.map(\.summary) == ["home unsatisfied", "home satisfied"])
    }
}
