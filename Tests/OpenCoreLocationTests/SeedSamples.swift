// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// swift-format-ignore-file
// The Swift code samples of the specification documents, compiled against OpenCoreLocation.
// Each sample sits in a function of its own with its text unchanged, except where noted: Swift
// rejects a `case` whose body is only a comment, so `break` follows such comments; the
// authorization reference declares `session` twice in one snippet, so each half gets a scope.
// App functions the samples call (`showHelloPrompt()`, `updateLocationUI(location:)`, …) are
// defined by the scenarios in SeedSampleTests.swift.
import OpenCoreLocation

// MARK: authorization-and-permissions-reference.md

func sampleCheckCurrentStatus(_ app: SampleApp) {
    let manager = CLLocationManager()

    // Step 1: Check current status
    switch manager.authorizationStatus {
    case .notDetermined:
        // Request When In Use first
        manager.requestWhenInUseAuthorization()
    case .authorizedWhenInUse:
        // Optionally request Always later
        manager.requestAlwaysAuthorization()
    case .authorizedAlways:
        // Full access granted
        break
    case .denied:
        // Direct user to Settings
        break
    case .restricted:
        // Cannot change (parental controls, etc.)
        break
    @unknown default:
        break
    }
    app.keep(manager)
}

func sampleHandleUpdateStates(_ app: SampleApp) async throws {
    let stream = CLLocationUpdate.liveUpdates()
    for try await update in stream {
        if update.authorizationDenied {
            // Handle denied
            app.note("denied")
        } else if update.authorizationRequestInProgress {
            // Dialog is showing
            app.note("dialog")
        } else if let location = update.location {
            // Process location
            app.note("location \(location.coordinate.latitude)")
        }
        if app.done { break }
    }
}

func sampleTemporaryFullAccuracy(_ manager: CLLocationManager, _ app: SampleApp) {
    // Requires a key in Info.plist under NSLocationTemporaryUsageDescriptionDictionary
    manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "DirectionsKey") { error in
        if error == nil {
            // Full accuracy temporarily granted
            app.note("granted")
        } else {
            app.note("refused")
        }
    }
}

@MainActor
// `@preconcurrency`: the protocol is not main-actor isolated, as on Apple platforms, where Swift 6
// code conforms a main-actor class this way.
final class SampleDelegate: NSObject, @preconcurrency CLLocationManagerDelegate {
    let app: SampleApp
    init(_ app: SampleApp) { self.app = app }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        switch manager.authorizationStatus {
        case .authorizedWhenInUse, .authorizedAlways:
            manager.startUpdatingLocation()
        case .denied, .restricted:
            // Disable location features
            break
        case .notDetermined:
            // Waiting for user response
            break
        @unknown default:
            break
        }

        // Also check accuracy
        switch manager.accuracyAuthorization {
        case .fullAccuracy:
            // Can use precise location
            break
        case .reducedAccuracy:
            // Limited to approximate location
            break
        @unknown default:
            break
        }
        app.note("authorization \(manager.authorizationStatus) \(manager.accuracyAuthorization)")
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        app.note("delegate location \(locations[0].coordinate.latitude)")
    }
}

func sampleSessions(_ app: SampleApp) async throws {
    do {
        // Request Always authorization through a service session
        let session = CLServiceSession(authorization: .always)
        app.keep(session)
    }
    do {
        // With full accuracy purpose key
        let session = CLServiceSession(
            authorization: .always,
            fullAccuracyPurposeKey: "NavigationKey"
        )

        // Monitor diagnostics
        for try await diagnostic in session.diagnostics {
            // Check session status
            app.diagnostic(diagnostic)
            if app.done { break }
        }

        // End the session
        session.invalidate()
    }
}

func sampleWidget(_ manager: CLLocationManager, _ app: SampleApp) {
    if manager.isAuthorizedForWidgetUpdates {
        // Widget can receive location updates
        app.note("widget")
    }
}

// MARK: configuring-your-app-to-use-location-services.md

func sampleHeading(_ locationManager: CLLocationManager, _ app: SampleApp) {
    // Check if heading data is available.
    if CLLocationManager.headingAvailable() {
        locationManager.startUpdatingHeading()
    } else {
        // Disable compass features.
        app.note("no compass")
    }
}

func sampleObtainStream(_ app: SampleApp) async throws {
    // Obtain an asynchronous stream of updates.
    let stream = CLLocationUpdate.liveUpdates()

    // Iterate over the stream and handle incoming updates.
    for try await update in stream {
         if update.location != nil {
              // Process the location.
              app.note("location")
         } else if update.authorizationDenied {
              // Process the authorization denied state change.
              app.note("denied")
         } else {
              // Process other state changes.
              app.note("other")
         }
         if app.done { break }
    }
}

// MARK: suspending-authorization-requests.md

extension SampleApp {
    func doPromptingFlow() async {
        await showHelloPrompt()

        // Obtain a session. This causes Core Location to display the authorization prompt.
        let session = CLServiceSession.session(authorization: .whenInUse)

        // Wait for interaction with the prompot to complete (successfully or with denial).
        for try await diagnostic in session.diagnostics {
            if !diagnostic.authorizationRequestInProgress {
                // A denial occurred.
                break
            }
        }

        await doFurtherWork()
    }
}

// MARK: wwdc2024-10212-whats-new-in-location-authorization.md

extension SampleApp {
    func wwdcIterateLiveUpdates() -> Task<Void, any Error> {
        // Iterating liveUpdates to reflect current location
        Task {
            let updates = CLLocationUpdate.liveUpdates()
            for try await update in updates {
                if let loc = update.location {
                    updateLocationUI(location: loc)
                }
            }
        }
    }

    func wwdcMonitorEvents() -> Task<Void, any Error> {
        // Iterating monitor events to report condition state changes
        Task {
            let monitor = await CLMonitor(monitorName)
            await monitor.add(CLMonitor.CircularGeographicCondition(center: applePark, radius: 50),
                              identifier: "ApplePark")

            for try await event in await monitor.events {
                updateConditionsUI(for: event.identifier, state: event.state)
            }
        }
    }

    func wwdcSessionInAction() -> Task<Void, any Error> {
        // CLServiceSession in action
        Task {
            let session = CLServiceSession(authorization: .whenInUse)

            for try await update in CLLocationUpdate.liveUpdates {
                // Process update.location or update.authorizationDenied
                note(update.location != nil ? "location" : "state")
                keep(session)
            }
        }
    }

    func wwdcWithoutSession() -> Task<Void, any Error> {
        Task {
            for try await update in CLLocationUpdate.liveUpdates {
                // Process update.location or update.authorizationDenied
                note(update.authorizationDenied ? "denied" : "update")
            }
        }
    }

    func wwdcDiagnosticsDenied() async throws {
        // Following the progress of location authorization with CLServiceSession

        let mySession = CLServiceSession(authorization:.whenInUse)

        for try await diagnostic in mySession.diagnostics {
            if (diagnostic.authorizationDenied) {
                // Ok, let’s let them pick a location instead?
                note("pick a location")
                break
            }
        }
    }

    func wwdcDiagnosticsDecided() async throws {
        // Following the progress of location authorization with CLServiceSession

        let mySession = CLServiceSession(authorization:.whenInUse)

        for try await diagnostic in mySession.diagnostics {
            if (!diagnostic.authorizationRequestInProgress) {
                // They’ve decided (maybe already).  We can move on!
                break
            }
        }
    }

    func wwdcDiagnosticsReact() async throws {
        // Following the progress of location authorization with CLServiceSession

        let mySession = CLServiceSession(authorization:.whenInUse)

        for try await diagnostic in mySession.diagnostics {
            if (!diagnostic.authorizationRequestInProgress) {
               reactToChanges(authorized:!diagnostic.authorizationDenied)
            }
            if done { break }
        }
    }

    func wwdcDiagnosticsTask() -> Task<Void, any Error> {
        // Following the progress of location authorization with CLServiceSession

        Task {
            let mySession = CLServiceSession(authorization:.whenInUse)
            for try await diagnostic in mySession.diagnostics {
                if (!diagnostic.authorizationRequestInProgress) {
                    reactToChanges(authorized:!diagnostic.authorizationDenied)
                }
            }
        }
    }
}

/// The WWDC sample's main-actor singleton; `ObservableObject` (SwiftUI) is out of scope and is
/// declared by the test as an empty protocol.
protocol ObservableObject: AnyObject {}

@MainActor
class LocationReflector: NSObject, @preconcurrency CLLocationManagerDelegate, ObservableObject {
    static let shared = LocationReflector()
    private let manager = CLLocationManager()

    override init() {
        super.init()
        manager.delegate = self
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager){
        if (manager.authorizationStatus == .notDetermined) {
            manager.requestWhenInUseAuthorization()
        }
    }

    func locationManager(_ manager: CLLocationManager,
                         didUpdateLocations locations:[CLLocation]) {
        // Process locations[0]
    }
    // ...
}
