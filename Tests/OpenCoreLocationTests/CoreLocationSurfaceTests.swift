// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import LocationWire
import Synchronization
import TestSupport
import Testing

@testable import LocationEngine
@testable import OpenCoreLocation

/// Pieces of Core Location's API used as Apple's documentation and samples use them.
@Suite("Core Location's API surface")
struct CoreLocationSurfaceTests {
    /// A delegate declared plainly, as Apple's samples declare theirs, that records what it is told.
    @Test("A heading crosses the daemon's socket with its location, true and magnetic")
    func headingOverTheWire() throws {
        var fix = Fix.position(52, 5, at: 1_773_475_200)
        fix.heading = 274.07
        fix.magneticVariation = 1.5
        let location = try #require(Location(fix: fix, origin: .receiver, fallbackTime: Date()))
        let wire = location.wire
        #expect(wire.heading == 274.07)
        let back = CLLocation(Location(wire: wire))
        let heading = try #require(back.heading)
        #expect(heading.trueHeading == 274.07)
        #expect(abs(heading.magneticHeading - 272.57) < 1e-9)
        #expect(
            CLLocation(Location(wire: CLLocation(latitude: 1, longitude: 2).engineLocation.wire)).heading
                == nil)
    }

    @Test("A plainly declared delegate class is made and set off the main actor, in Swift 6 too")
    func plainDelegateOffMain() async throws {
        let h = try authorizedHarness()
        await LocationContext.withContext(h.context) {
            let recorder = DelegateRecorder()
            let manager = CLLocationManager()
            manager.delegate = recorder
            #expect(manager.delegate === recorder)
        }
    }

    @Test("CLLocation() is a placeholder at 0°, 0° with no accuracy, speed or course")
    func placeholderLocation() {
        final class Model {
            var lastLocation = CLLocation()
        }
        let model = Model()
        #expect(model.lastLocation.coordinate == CLLocationCoordinate2DMake(0, 0))
        #expect(model.lastLocation.horizontalAccuracy == 0)
        #expect(model.lastLocation.speed == -1 && model.lastLocation.course == -1)
        #expect(abs(model.lastLocation.timestamp.timeIntervalSinceNow) < 60)
        #expect(
            CLLocationDistanceMax == .greatestFiniteMagnitude && CLTimeIntervalMax == .greatestFiniteMagnitude
        )
        #expect(kCLHeadingFilterNone == -1)
    }

    @Test("CLError: Apple's 20 codes, catch CLError.denied, NSError bridging with kCLErrorDomain")
    func errors() {
        #expect(CLError.Code.allCases.map(\.rawValue) == Array(0...19))
        func fail(_ code: CLError.Code) throws { throw CLError(code) }
        do {
            try fail(.denied)
            Issue.record("no error")
        } catch CLError.locationUnknown {
            Issue.record("matched the wrong code")
        } catch CLError.denied {
            // Apple's pattern
        } catch {
            Issue.record("not matched: \(error)")
        }
        let error: any Error = CLError(.promptDeclined, userInfo: [NSLocalizedDescriptionKey: "declined"])
        let bridged = error as NSError
        #expect(bridged.domain == kCLErrorDomain && bridged.code == 18)
        #expect(bridged.localizedDescription == "declined")
        if let clError = error as? CLError {
            switch clError.code {
            case .locationUnknown, .network: Issue.record("wrong")
            case .denied, .headingFailure, .regionMonitoringDenied, .regionMonitoringFailure,
                .regionMonitoringSetupDelayed, .regionMonitoringResponseDelayed, .geocodeFoundNoResult,
                .geocodeFoundPartialResult, .geocodeCanceled, .deferredFailed, .deferredNotUpdatingLocation,
                .deferredAccuracyTooLow, .deferredDistanceFiltered, .deferredCanceled, .rangingUnavailable,
                .rangingFailure, .historicalLocationError:
                Issue.record("wrong")
            case .promptDeclined: break
            }
        }
        #expect(CLAuthorizationStatus.authorizedAlways.rawValue == 3)
    }

    @Test(
        "LiveConfiguration is Apple's enum: an exhaustive switch needs no default; a boat has its own activity"
    )
    func liveConfiguration() {
        func name(_ configuration: CLLocationUpdate.LiveConfiguration) -> String {
            switch configuration {
            case .default: "default"
            case .automotiveNavigation: "car"
            case .otherNavigation: "other"
            case .fitness: "fitness"
            case .airborne: "plane"
            }
        }
        #expect(
            CLLocationUpdate.LiveConfiguration.allCases.map(name) == [
                "default", "car", "other", "fitness", "plane",
            ])
        #expect(CLLocationUpdate.LiveConfiguration.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(CLLocationUpdate.LiveConfiguration.fitness.activity == .fitness)
        #expect(
            CLLocationUpdate.Activity.maritime.stationaryTuning.radius
                > CLLocationUpdate.Activity.default.stationaryTuning.radius)
    }

    @Test("requestLocation() delivers one location, then nothing more")
    @MainActor func requestLocationOnce() async throws {
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.delegate = recorder
            manager.requestLocation()
            h.source.send(.position(51.5, 4, at: 1))
            await settle { recorder.all.contains("location 51.5") }
            h.source.send(.position(51.6, 4, at: 2))
            try await Task.sleep(for: .milliseconds(200))
            #expect(recorder.all.filter { $0.hasPrefix("location") } == ["location 51.5"])
            #expect(manager.location?.coordinate.latitude == 51.5)
            #expect(recorder.all.contains("status authorizedWhenInUse"))
        }
    }

    @Test("requestLocation() without a position fails with locationUnknown; a denied app with denied")
    @MainActor func requestLocationFailures() async throws {
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.requestLocationTimeout = .milliseconds(300)
            manager.delegate = recorder
            manager.requestLocation()
            await settle { recorder.all.contains("error kCLErrorDomain 0") }
        }
        let denied = try Harness(stored: {
            $0["com.example.tracker"] = ClientAuthorization(decision: .denied)
        })
        let told = DelegateRecorder()
        try await denied.run {
            let manager = CLLocationManager()
            manager.delegate = told
            manager.requestLocation()
            await settle { told.all.contains("error kCLErrorDomain 1") }
            #expect(CLLocationManager.authorizationStatus() == .denied)
        }
    }

    @Test("A session's diagnostics say accuracyLimited for an app with approximate locations")
    func diagnosticAccuracyLimited() async throws {
        for precise in [false, true] {
            let h = try authorizedHarness(precise: precise)
            let first = try await h.run { () -> CLServiceSession.Diagnostic? in
                let session = CLServiceSession(authorization: .whenInUse)
                defer { session.invalidate() }
                for try await diagnostic in session.diagnostics { return diagnostic }
                return nil
            }
            #expect(first?.accuracyLimited == !precise)
        }
    }
}
