// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import LocationEngine
import OpenCoreLocation
import TestSupport
import Testing

@Suite("Authorization")
struct AuthorizationTests {
    @Test("diagnostics yields at once; with a known decision no request is in progress")
    func diagnosticsStartAtOnce() async throws {
        let h = try authorizedHarness()
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse)
            var iterator = session.diagnostics.makeAsyncIterator()
            let first = try #require(await iterator.next())
            #expect(!first.authorizationRequestInProgress && !first.authorizationDenied)
            #expect(h.prompter.requests.isEmpty)
            session.invalidate()
        }
    }

    @Test("A pending prompt is in progress; the answer brings a further element and is stored")
    func promptInProgressThenAnswered() async throws {
        let h = try Harness()
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse)
            var iterator = session.diagnostics.makeAsyncIterator()
            var first = try #require(await iterator.next())
            if !first.authorizationRequestInProgress { first = try #require(await iterator.next()) }
            #expect(first.authorizationRequestInProgress)
            await settle { h.prompter.showing == 1 }
            #expect(h.prompter.requests.map(\.kind) == [.whenInUse])
            #expect(h.prompter.requests.first?.reason == Harness.manifest.whenInUseUsageDescription)
            h.prompter.answer(.allowWhileUsing(precise: true))
            let next = try #require(await iterator.next())
            #expect(!next.authorizationRequestInProgress && !next.authorizationDenied)
            #expect(h.record.decision == .whenInUse)
            #expect(CLLocationManager().authorizationStatus == .authorizedWhenInUse)
            session.invalidate()
        }
    }

    @Test("Decisions are stored and not asked again, even by a new process")
    func decisionsPersist() async throws {
        let h = try Harness(answers: [.deny])
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse)
            for await diagnostic in session.diagnostics where diagnostic.authorizationDenied { break }
            session.invalidate()
        }
        #expect(h.record.decision == .denied)
        let again = try Harness(directory: h.directory)
        try await again.run {
            let session = CLServiceSession(authorization: .whenInUse)
            var iterator = session.diagnostics.makeAsyncIterator()
            let first = try #require(await iterator.next())
            #expect(first.authorizationDenied)
            session.invalidate()
        }
        #expect(again.prompter.requests.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: h.store.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("A .none session never prompts, yet satisfies NSLocationRequireExplicitServiceSession")
    func noneSession() async throws {
        var manifest = Harness.manifest
        manifest.requiresExplicitServiceSession = true
        let undetermined = try Harness(manifest: manifest)
        try await undetermined.run {
            let session = CLServiceSession(authorization: .none)
            var iterator = session.diagnostics.makeAsyncIterator()
            _ = await iterator.next()
            #expect(undetermined.prompter.requests.isEmpty)
            session.invalidate()
        }
        let h = try Harness(
            manifest: manifest,
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) })
        h.source.send(.position(52, 5, at: 1))
        h.source.end()
        let updates = try await h.run {
            let session = CLServiceSession(authorization: .none)
            defer { session.invalidate() }
            return try await collect(CLLocationUpdate.liveUpdates())
        }
        #expect(updates.count == 1 && updates[0].location != nil && !updates[0].serviceSessionRequired)
        #expect(h.prompter.requests.isEmpty)
    }

    @Test(
        "With the explicit-session key and no session, updates say serviceSessionRequired and carry no data")
    func explicitSessionRequired() async throws {
        var manifest = Harness.manifest
        manifest.requiresExplicitServiceSession = true
        let h = try Harness(
            manifest: manifest,
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) })
        h.source.send([.position(52, 5, at: 1), .position(52, 5, at: 2)])
        h.source.end()
        let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
        #expect(updates.count == 1)
        #expect(updates.allSatisfy { $0.serviceSessionRequired && $0.location == nil })
        #expect(h.prompter.requests.isEmpty)
    }

    @Test("Without the key, iterating liveUpdates is a when-in-use session and prompts")
    func implicitSessionPrompts() async throws {
        let h = try Harness(answers: [.allowWhileUsing(precise: true)])
        try await h.run {
            var iterator = CLLocationUpdate.liveUpdates().makeAsyncIterator()
            await settle { h.record.decision == .whenInUse }
            #expect(h.prompter.requests.map(\.kind) == [.whenInUse])
            h.source.send(.position(52, 5, at: 1))
            var update = try #require(try await iterator.next())
            while update.location == nil { update = try #require(try await iterator.next()) }
            #expect(update.location?.coordinate.latitude == 52)
        }
    }

    @Test("invalidate() is idempotent and an invalidated session yields nothing further")
    func invalidate() async throws {
        let h = try authorizedHarness()
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse)
            var iterator = session.diagnostics.makeAsyncIterator()
            _ = await iterator.next()
            session.invalidate()
            session.invalidate()
            #expect(await iterator.next() == nil)
            var again = session.diagnostics.makeAsyncIterator()
            #expect(await again.next() == nil)
        }
    }

    @Test("A declined Always upgrade: .always sessions report alwaysAuthorizationDenied and never ask again")
    func declinedAlways() async throws {
        let h = try Harness(
            answers: [.deny],
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) })
        try await h.run {
            let session = CLServiceSession(authorization: .always)
            for await diagnostic in session.diagnostics where diagnostic.alwaysAuthorizationDenied { break }
            session.invalidate()
            let second = CLServiceSession(authorization: .always)
            var iterator = second.diagnostics.makeAsyncIterator()
            let diagnostic = try #require(await iterator.next())
            #expect(diagnostic.alwaysAuthorizationDenied && !diagnostic.authorizationRequestInProgress)
            CLLocationManager().requestAlwaysAuthorization()
            second.invalidate()
        }
        #expect(h.prompter.requests.map(\.kind) == [.always])
        #expect(h.record.decision == .whenInUse && h.record.alwaysPrompted)
    }

    @Test("An accepted upgrade takes effect while an .always session is held, also out of use")
    func acceptedAlways() async throws {
        let h = try Harness(
            answers: [.allowAlways],
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) })
        h.source.send(.position(52, 5, at: 1))
        h.source.end()
        let updates = try await h.run {
            let session = CLServiceSession(authorization: .always)
            defer { session.invalidate() }
            for await diagnostic in session.diagnostics where !diagnostic.authorizationRequestInProgress {
                if h.record.decision == .always { break }
            }
            h.activity.setInUse(false)
            return try await collect(CLLocationUpdate.liveUpdates())
        }
        #expect(updates.contains { $0.location != nil })
        #expect(!updates.contains { $0.insufficientlyInUse })
    }

    @Test("A when-in-use app that is not in use gets insufficientlyInUse and no locations")
    func notInUse() async throws {
        let h = try Harness(
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) }, inUse: false)
        h.source.send([.position(52, 5, at: 1), .position(52, 5, at: 2)])
        h.source.end()
        let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
        #expect(updates.count == 1)
        #expect(updates[0].insufficientlyInUse && updates[0].location == nil)
    }

    @Test("Location services off: authorizationDeniedGlobally and authorizationDenied; status reads denied")
    func globallyDisabled() async throws {
        let h = try Harness(stored: {
            $0.servicesEnabled = false
            $0["com.example.tracker"] = ClientAuthorization(decision: .always)
        })
        h.source.send(.position(52, 5, at: 1))
        h.source.end()
        try await h.run {
            let updates = try await collect(CLLocationUpdate.liveUpdates())
            #expect(updates.count == 1)
            #expect(updates[0].authorizationDeniedGlobally && updates[0].authorizationDenied)
            #expect(CLLocationManager().authorizationStatus == .denied)
            #expect(!CLLocationManager.locationServicesEnabled())
        }
        #expect(h.prompter.requests.isEmpty)
    }

    @Test("A restricted app reports authorizationRestricted and is never asked")
    func restricted() async throws {
        let h = try Harness(stored: { $0.restrictedClients = ["com.example.tracker"] })
        h.source.end()
        try await h.run {
            let updates = try await collect(CLLocationUpdate.liveUpdates())
            #expect(updates.first?.authorizationRestricted == true)
            #expect(CLLocationManager().authorizationStatus == .restricted)
        }
        #expect(h.prompter.requests.isEmpty)
    }

    @Test("Without a usage description a request fails without a prompt and says why")
    func missingUsageDescription() async throws {
        let h = try Harness(manifest: Manifest())
        h.source.end()
        let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
        #expect(h.prompter.requests.isEmpty)
        #expect(updates.first?.authorizationDenied == true)
        #expect(h.messages.all.contains { $0.contains("NSLocationWhenInUseUsageDescription") })
    }

    @Test("Allow Once lapses when the app leaves use and is asked again when it returns")
    func allowOnce() async throws {
        let h = try Harness(answers: [.allowOnce(precise: true)])
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse)
            await settle { h.record.decision == .whenInUse }
            #expect(h.record.once)
            h.activity.setInUse(false)
            await settle { h.record.decision == .notDetermined }
            #expect(CLLocationManager().authorizationStatus == .notDetermined)
            h.activity.setInUse(true)
            await settle { h.prompter.requests.count == 2 }
            h.prompter.answer(.allowWhileUsing(precise: true))
            await settle { h.record.decision == .whenInUse && !h.record.once }
            session.invalidate()
        }
    }

    @Test("Temporary full accuracy: unknown keys fail without a prompt; granted lasts while in use")
    func temporaryFullAccuracy() async throws {
        let h = try Harness(
            answers: [.allowFullAccuracy],
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse, precise: false) })
        try await h.run {
            let manager = CLLocationManager()
            #expect(manager.accuracyAuthorization == .reducedAccuracy)
            await #expect(throws: CLError.self) {
                try await manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "NoSuchKey")
            }
            #expect(h.prompter.requests.isEmpty)
            try await manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "DirectionsKey")
            #expect(manager.accuracyAuthorization == .fullAccuracy)
            #expect(h.prompter.requests.map(\.purposeKey) == ["DirectionsKey"])
            // Already granted: a no-op.
            try await manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "DirectionsKey")
            #expect(h.prompter.requests.count == 1)
            h.activity.setInUse(false)
            #expect(manager.accuracyAuthorization == .reducedAccuracy)
        }
    }

    @Test("A session's purpose key asks for precise location; a refusal reports fullAccuracyDenied")
    func sessionPurposeKey() async throws {
        let h = try Harness(
            answers: [.deny],
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse, precise: false) })
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse, fullAccuracyPurposeKey: "DirectionsKey")
            for await diagnostic in session.diagnostics where diagnostic.fullAccuracyDenied { break }
            session.invalidate()
        }
        #expect(h.prompter.requests.map(\.kind) == [.temporaryFullAccuracy])
    }

    @Test("A change made by another process (gpsloc auth) reaches a running program at once")
    func watchesTheStore() async throws {
        let h = try Harness(
            stored: { $0["com.example.tracker"] = ClientAuthorization(decision: .whenInUse) },
            watchesStore: true)
        h.source.end()
        try await h.run {
            let session = CLServiceSession(authorization: .whenInUse)
            var iterator = session.diagnostics.makeAsyncIterator()
            let first = try #require(await iterator.next())
            #expect(!first.authorizationDenied)
            let other = AuthorizationStore(directory: h.directory)
            try other.update { $0["com.example.tracker"].decision = .denied }
            let next = try #require(await iterator.next())
            #expect(next.authorizationDenied)
            try other.update { $0.servicesEnabled = false }
            let off = try #require(await iterator.next())
            #expect(off.authorizationDeniedGlobally)
            session.invalidate()
        }
    }

    @Test("A pending request is answered later through the store")
    func pendingPrompter() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ocl-\(UUID().uuidString)"
        ).path
        let store = AuthorizationStore(directory: directory)
        let context = LocationContext(
            .init(
                client: "com.example.logger", manifest: Harness.manifest, store: store,
                prompter: PendingPrompter(store: store, log: { _ in }), log: { _ in }))
        try await LocationContext.withContext(context) {
            let session = CLServiceSession(authorization: .whenInUse)
            var iterator = session.diagnostics.makeAsyncIterator()
            var diagnostic = try #require(await iterator.next())
            if !diagnostic.authorizationRequestInProgress { diagnostic = try #require(await iterator.next()) }
            #expect(diagnostic.authorizationRequestInProgress)
            await settle { (try? store.load())?["com.example.logger"].pendingRequest == .whenInUse }
            try store.update {
                $0["com.example.logger"].decision = .whenInUse
                $0["com.example.logger"].pendingRequest = nil
            }
            diagnostic = try #require(await iterator.next())
            #expect(!diagnostic.authorizationRequestInProgress && !diagnostic.authorizationDenied)
            session.invalidate()
        }
    }

    @Test("The delegate hears the status when it is set and when it changes")
    @MainActor func delegate() async throws {
        let h = try Harness(answers: [.allowWhileUsing(precise: false)])
        let app = SampleApp()
        try await h.run {
            let manager = CLLocationManager()
            let delegate = SampleDelegate(app)
            manager.delegate = delegate
            await settle { app.notes.count == 1 }
            #expect(app.notes == ["authorization notDetermined fullAccuracy"])
            manager.requestWhenInUseAuthorization()
            await settle { app.notes.count == 2 }
            #expect(app.notes.last == "authorization authorizedWhenInUse reducedAccuracy")
            manager.stopUpdatingLocation()
            _ = delegate
        }
    }
}
