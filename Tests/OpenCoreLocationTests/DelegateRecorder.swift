// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking
import OpenCoreLocation

/// A `CLLocationManagerDelegate` declared plainly, as Apple's samples declare theirs, that writes
/// down what it is told: `location LAT`, `error DOMAIN CODE`, `status S`, `paused`, `resumed`, `heading TRUE MAGNETIC`,
/// `visit ARRIVAL DEPARTURE` (seconds since 1970), `enter ID`, `exit ID`, `state ID STATE`, `started ID`,
/// `failed ID CODE`.
final class DelegateRecorder: NSObject, CLLocationManagerDelegate, @unchecked Sendable {
    private let events = Mutex<[String]>([])
    var all: [String] { events.withLock { $0 } }
    /// The latitudes of the locations delivered, in order.
    var locations: [Double] { all.compactMap { $0.hasPrefix("location ") ? Double($0.dropFirst(9)) : nil } }

    private func note(_ event: String) { events.withLock { $0.append(event) } }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        note("location \(locations.last!.coordinate.latitude)")
    }
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        note("error \((error as NSError).domain) \((error as NSError).code)")
    }
    func locationManager(_ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus) {
        note("status \(status)")
    }
    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {
        note("heading \(newHeading.trueHeading) \(newHeading.magneticHeading)")
    }
    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        note("visit \(visit.arrivalDate.timeIntervalSince1970) \(visit.departureDate.timeIntervalSince1970)")
    }
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        note("enter \(region.identifier)")
    }
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        note("exit \(region.identifier)")
    }
    func locationManager(
        _ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion
    ) {
        note("state \(region.identifier) \(state)")
    }
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {
        note("started \(region.identifier)")
    }
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {
        note("failed \(region?.identifier ?? "-") \((error as NSError).code)")
    }
    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) { note("paused") }
    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) { note("resumed") }
}
