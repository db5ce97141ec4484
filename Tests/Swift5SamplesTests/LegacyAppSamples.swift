// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import OpenCoreLocation
import Testing

// Code as apps for Apple platforms write it, in the Swift 5 language mode most of them still use:
// this target compiles it with only the import changed, and its tests run it.

// The extension almost every app adds, because CLLocationCoordinate2D is not Equatable on Apple
// platforms either. (An app writes `@retroactive Equatable`; this target is in the package that
// declares the type, where the attribute does not apply.)
extension CLLocationCoordinate2D: Equatable {
    public static func == (lhs: CLLocationCoordinate2D, rhs: CLLocationCoordinate2D) -> Bool {
        lhs.latitude == rhs.latitude && lhs.longitude == rhs.longitude
    }
}

/// A plain delegate class, as Apple's older samples declare theirs.
class TripRecorder: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    var lastLocation = CLLocation()
    var visits: [CLVisit] = []
    var problems: [String] = []

    override init() {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyBestForNavigation
        manager.distanceFilter = kCLDistanceFilterNone
        manager.activityType = .automotiveNavigation
        manager.pausesLocationUpdatesAutomatically = false
        manager.allowsBackgroundLocationUpdates = true
        manager.showsBackgroundLocationIndicator = true
        manager.headingFilter = kCLHeadingFilterNone
    }

    func start() {
        switch manager.authorizationStatus {
        case .notDetermined:
            manager.requestAlwaysAuthorization()
        case .authorizedAlways, .authorizedWhenInUse:
            manager.startUpdatingLocation()
            if CLLocationManager.significantLocationChangeMonitoringAvailable() {
                manager.startMonitoringSignificantLocationChanges()
            }
            manager.startMonitoringVisits()
            if CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self) {
                let home = CLCircularRegion(
                    center: CLLocationCoordinate2DMake(52.3731, 4.8922), radius: 150, identifier: "home")
                home.notifyOnExit = false
                manager.startMonitoring(for: home)
            }
            if CLLocationManager.headingAvailable() { manager.startUpdatingHeading() }
        case .denied, .restricted:
            problems.append("no access")
        @unknown default:
            break
        }
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let location = locations.last, location.horizontalAccuracy >= 0 else { return }
        lastLocation = location
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) {
        if let error = error as? CLError {
            switch error.code {
            case .denied: problems.append("denied")
            case .locationUnknown: problems.append("unknown")
            case .headingFailure: problems.append("no heading")
            default: problems.append("\(error.code.rawValue)")
            }
        }
    }

    func locationManager(_ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus) {
        if status == .authorizedAlways || status == .authorizedWhenInUse { start() }
    }

    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) { visits.append(visit) }

    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        guard let circle = region as? CLCircularRegion else { return }
        problems.append("entered \(circle.identifier)")
    }

    func locationManager(
        _ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion
    ) {}
    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {}
}

/// A switch over LiveConfiguration without `default`, which needs it to be an enum.
func describe(_ configuration: CLLocationUpdate.LiveConfiguration) -> String {
    switch configuration {
    case .default: return "default"
    case .automotiveNavigation: return "driving"
    case .otherNavigation: return "navigating"
    case .fitness: return "fitness"
    case .airborne: return "flying"
    }
}

/// `catch CLError.denied`, as Apple's samples write it.
func firstLocation() async -> String {
    do {
        for try await update in CLLocationUpdate.liveUpdates() {
            if let location = update.location { return "\(location.coordinate.latitude)" }
            if update.authorizationDenied { throw CLError(.denied) }
            return "none"
        }
    } catch CLError.denied {
        return "denied"
    } catch {
        return "error"
    }
    return "ended"
}

@Suite("Apple-platform code in the Swift 5 language mode")
struct LegacyAppSampleTests {
    @Test("A plain delegate class is made, and set as a delegate, off the main actor")
    func plainDelegate() async {
        let recorder = TripRecorder()
        #expect(recorder.manager.delegate === recorder)
        #expect(recorder.manager.activityType == .automotiveNavigation)
        #expect(recorder.lastLocation.coordinate == CLLocationCoordinate2DMake(0, 0))
        #expect(CLLocationCoordinate2DMake(1, 2) != CLLocationCoordinate2DMake(1, 3))
    }

    @Test("LiveConfiguration switches without default; CLError has Apple's codes and statics")
    func shapes() {
        #expect(
            CLLocationUpdate.LiveConfiguration.allCases.map(describe) == [
                "default", "driving", "navigating", "fitness", "flying",
            ])
        #expect(CLError.Code.denied.rawValue == 1 && CLError.Code.regionMonitoringFailure.rawValue == 5)
        #expect(CLError.denied == .denied)
        #expect((CLError(.denied) as NSError).domain == kCLErrorDomain)
    }
}
