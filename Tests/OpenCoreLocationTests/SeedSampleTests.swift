// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import LocationEngine
import OpenCoreLocation
import TestSupport
import Testing

/// The seeds' samples (SeedSamples.swift) doing what their documents say.
@Suite("Specification samples")
struct SeedSampleTests {
    @Test("Checking the status asks for When In Use first, then offers the Always upgrade")
    func checkCurrentStatus() async throws {
        let h = try Harness(answers: [.allowWhileUsing(precise: true), .allowAlways])
        let app = SampleApp()
        try await h.run {
            sampleCheckCurrentStatus(app)
            await settle { h.record.decision == .whenInUse }
            sampleCheckCurrentStatus(app)
            await settle { h.record.decision == .always }
        }
        #expect(h.prompter.requests.map(\.kind) == [.whenInUse, .always])
    }

    @Test("Handling update states: the dialog shows, then locations flow")
    func handleUpdateStates() async throws {
        let h = try Harness()
        let app = SampleApp()
        let task = Task { try await h.run { try await sampleHandleUpdateStates(app) } }
        await settle { app.notes.contains("dialog") }
        h.prompter.answer(.allowWhileUsing(precise: true))
        // A receiver sends a fix each second: one that comes before the answer takes effect is
        // not the app's to have, so send until one reaches it, as a receiver would.
        var second = 1.0
        while !app.notes.contains("location 52.5"), second < 500 {
            h.source.send(.position(52.5, 5, at: second))
            second += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(app.notes.contains("location 52.5"))
        app.finish()
        h.source.send(.position(52.5, 5, at: second))
        try await task.value
        #expect(app.notes.first == "dialog")
    }

    @Test("Handling update states: a denial is reported")
    func handleDenied() async throws {
        let h = try Harness(answers: [.deny])
        let app = SampleApp()
        let task = Task { try await h.run { try await sampleHandleUpdateStates(app) } }
        await settle { app.notes.contains("denied") }
        app.finish()
        h.source.end()
        try await task.value
    }

    @Test("Temporary full accuracy through the completion handler")
    func temporaryFullAccuracy() async throws {
        let h = try Harness(
            answers: [.allowFullAccuracy],
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse, precise: false) })
        let app = SampleApp()
        try await h.run {
            let manager = CLLocationManager()
            sampleTemporaryFullAccuracy(manager, app)
            await settle { app.notes == ["granted"] }
            #expect(manager.accuracyAuthorization == .fullAccuracy)
        }
    }

    @Test("The delegate starts updating once authorized and receives locations")
    @MainActor func delegateStartsUpdates() async throws {
        let h = try Harness(stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) })
        let app = SampleApp()
        try await h.run {
            let manager = CLLocationManager()
            let delegate = SampleDelegate(app)
            manager.delegate = delegate
            await settle { app.notes.contains("authorization authorizedWhenInUse fullAccuracy") }
            h.source.send(.position(51.25, 4, at: 1))
            await settle { app.notes.contains("delegate location 51.25") }
            #expect(manager.location?.coordinate.latitude == 51.25)
            manager.stopUpdatingLocation()
        }
    }

    @Test("Sessions: Always with a purpose key, watched through diagnostics, then invalidated")
    func sessions() async throws {
        var manifest = Harness.manifest
        manifest.temporaryUsageDescriptions["NavigationKey"] = "Navigation needs precise location."
        let h = try Harness(
            manifest: manifest, answers: [.allowWhileUsing(precise: false), .allowAlways, .allowFullAccuracy])
        let app = SampleApp()
        let task = Task { try await h.run { try await sampleSessions(app) } }
        await settle { h.prompter.requests.count == 3 }
        await settle { app.diagnostics.last.map { !$0.authorizationRequestInProgress } ?? false }
        app.finish()
        try h.store.update { $0.servicesEnabled = false }  // a change brings a further diagnostic
        h.context.reloadStore()
        try await task.value
        #expect(h.prompter.requests.map(\.kind) == [.whenInUse, .always, .temporaryFullAccuracy])
        #expect(h.record.decision == .always)
    }

    @Test("Widget updates need Always; heading needs a compass")
    func widgetAndHeading() async throws {
        let h = try Harness(stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .always) })
        let app = SampleApp()
        try await h.run {
            let manager = CLLocationManager()
            sampleWidget(manager, app)
            sampleHeading(manager, app)
        }
        #expect(app.notes == ["widget", "no compass"])
    }

    @Test("Obtaining a stream: locations, denials and other states each take their branch")
    func obtainStream() async throws {
        let h = try Harness(stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) })
        let app = SampleApp()
        h.source.send([.noFix(at: 1), .position(52, 5, at: 2)])
        h.source.end()
        try await h.run { try await sampleObtainStream(app) }
        #expect(app.notes == ["other", "location"])
    }

    @Test("The prompting flow waits for the answer before doing further work")
    func promptingFlow() async throws {
        let h = try Harness()
        let app = SampleApp()
        let flow = Task { try await h.run { await app.doPromptingFlow() } }
        await settle { h.prompter.showing == 1 }
        #expect(app.notes == ["hello"])
        h.prompter.answer(.deny)
        try await flow.value
        #expect(app.notes == ["hello", "further work"])
        #expect(h.record.decision == .denied)
    }

    @Test("WWDC: live updates reach the UI; a session in action; a stream without one")
    func wwdcLiveUpdates() async throws {
        let h = try Harness(stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) })
        let app = SampleApp()
        h.source.send((0..<3).map { .position(52 + Double($0) * 0.001, 5, at: Double($0), speed: 4) })
        h.source.end()
        try await h.run {
            try await app.wwdcIterateLiveUpdates().value
            #expect(app.locations.count == 3)
        }
        let denied = try Harness(stored: {
            $0["com.example.tracker"] = ClientAuthorization(decision: .denied)
        })
        denied.source.end()
        try await denied.run {
            try await app.wwdcWithoutSession().value
            #expect(app.notes == ["denied"])
        }
        let other = try Harness(stored: {
            $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse)
        })
        other.source.send(.position(52, 5, at: 1))
        other.source.end()
        try await other.run { try await app.wwdcSessionInAction().value }
        #expect(app.notes == ["denied", "location"])
    }

    @Test("WWDC: monitor events reach the UI as Apple Park is approached and entered, and persist")
    func wwdcMonitor() async throws {
        let authorized: (inout AuthorizationSnapshot) -> Void = {
            $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse)
        }
        let h = try Harness(stored: authorized)
        let app = SampleApp()
        let park = app.applePark
        let outside = Geodesy.destination(
            latitude: park.latitude, longitude: park.longitude, bearing: 90, distance: 400)
        h.source.send([
            .position(outside.latitude, outside.longitude, at: 1),
            .position(park.latitude, park.longitude, at: 2),
        ])
        h.source.end()
        try await h.run { try await app.wwdcMonitorEvents().value }
        #expect(app.conditions == ["ApplePark unsatisfied", "ApplePark satisfied"])

        let relaunched = try Harness(stored: authorized, directory: h.directory)
        try await relaunched.run {
            let monitor = await CLMonitor(app.monitorName)
            #expect(await monitor.identifiers == ["ApplePark"])
            #expect(await monitor.record(for: "ApplePark")?.lastEvent.state == .satisfied)
        }
    }

    @Test("WWDC: diagnostics lead to picking a location, moving on, and reacting to changes")
    func wwdcDiagnostics() async throws {
        let h = try Harness(answers: [.deny])
        let app = SampleApp()
        try await h.run { try await app.wwdcDiagnosticsDenied() }
        #expect(app.notes == ["pick a location"])

        let decided = try Harness(stored: {
            $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse)
        })
        try await decided.run { try await app.wwdcDiagnosticsDecided() }
        #expect(decided.prompter.requests.isEmpty)

        let reacting = try Harness(answers: [.allowWhileUsing(precise: true)])
        let task = Task { try await reacting.run { try await app.wwdcDiagnosticsReact() } }
        await settle { app.reactions == [true] }
        app.finish()
        reacting.activity.setInUse(false)
        try await task.value
        #expect(app.reactions.first == true)

        let background = try Harness(answers: [.deny])
        let reactions = app.reactions.count
        let diagnostics = try await background.run { app.wwdcDiagnosticsTask() }
        await settle { app.reactions.count > reactions }
        diagnostics.cancel()
        #expect(app.reactions.last == false)
    }

    @Test("WWDC: the main-actor reflector asks for authorization when undetermined")
    @MainActor func reflector() async throws {
        let h = try Harness(answers: [.allowWhileUsing(precise: true)])
        try await h.run {
            let reflector = LocationReflector()
            await settle { h.record.decision == .whenInUse }
            _ = reflector
        }
        #expect(h.prompter.requests.map(\.kind) == [.whenInUse])
    }
}
