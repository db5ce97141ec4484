// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import TestSupport
import Testing

@testable import OpenCoreLocation

/// `CLLocationManager`'s other services, used as Apple's documentation shows: significant
/// changes, visits and region monitoring; and archiving what they deliver.
@Suite("CLLocationManager's significant changes, visits and regions")
struct LocationManagerServicesTests {
    /// A latitude `metres` north of 52° N.
    static func north(_ metres: Double) -> Double { 52 + metres / 111_195 }

    @Test(
        "Significant changes: a location now, then after each 500 m of movement, at most one every five minutes",
        arguments: [(10.0, [0.0, 3000, 6000, 9000, 12000, 15000]), (1.0, [0, 500, 1000, 1500])])
    @MainActor func significantChanges(speed: Double, expected: [Double]) async throws {
        #expect(CLLocationManager.significantLocationChangeMonitoringAvailable())
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.delegate = recorder
            manager.startMonitoringSignificantLocationChanges()
            // Half an hour north at `speed`, a fix a second.
            h.source.send(
                (0..<1800).map { .position(Self.north(Double($0) * speed), 5, at: Double($0), speed: speed) })
            await settle { recorder.locations.count >= expected.count }
            try await Task.sleep(for: .milliseconds(200))
            let metres = recorder.locations.map { (($0 - 52) * 111_195).rounded() }
            #expect(metres == expected)
            manager.stopMonitoringSignificantLocationChanges()
        }
    }

    @Test(
        "Visits: arrival after five minutes within 100 m, dated from the first fix there; departure when it moves on"
    )
    @MainActor func visits() async throws {
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.delegate = recorder
            manager.startMonitoringVisits()
            // Driving in, ten minutes parked (wandering 20 m), driving away.
            h.source.send(
                (0..<60).map { .position(Self.north(Double($0) * 15), 5, at: Double($0), speed: 15) })
            h.source.send(
                (60..<660).map {
                    .position(Self.north(900 + Double($0 % 3) * 10), 5, at: Double($0), speed: 0)
                })
            h.source.send(
                (660..<720).map {
                    .position(Self.north(900 + Double($0 - 659) * 15), 5, at: Double($0), speed: 15)
                })
            await settle { recorder.all.filter { $0.hasPrefix("visit ") }.count >= 2 }
            let visits = recorder.all.filter { $0.hasPrefix("visit ") }
            #expect(visits.count == 2)
            // The stay began with the fix at 60 s (the last of the drive is 885 m, within 100 m of it).
            let arrival = try #require(
                visits.first?.split(separator: " ").dropFirst().first.flatMap { Double($0) })
            #expect(arrival >= 59 && arrival <= 61, "\(visits)")
            #expect(visits[0].hasSuffix(" \(Date.distantFuture.timeIntervalSince1970)"))
            #expect(visits[1] == "visit \(arrival) 659.0", "\(visits)")
            manager.stopMonitoringVisits()
        }
    }

    @Test(
        "Regions: entering, leaving and entering again are told, with the state; notifyOnExit false keeps exits quiet"
    )
    @MainActor func regions() async throws {
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.delegate = recorder
            let home = CLCircularRegion(
                center: CLLocationCoordinate2D(latitude: 52, longitude: 5), radius: 200, identifier: "home")
            let quiet = CLCircularRegion(
                center: CLLocationCoordinate2D(latitude: 52, longitude: 5), radius: 300, identifier: "quiet")
            quiet.notifyOnExit = false
            manager.startMonitoring(for: home)
            manager.startMonitoring(for: quiet)
            await settle { recorder.all.contains("started home") && recorder.all.contains("started quiet") }
            #expect(manager.monitoredRegions.map(\.identifier).sorted() == ["home", "quiet"])
            h.source.send((0..<10).map { .position(52, 5, at: Double($0), speed: 0) })
            await settle { recorder.all.contains("enter home") && recorder.all.contains("enter quiet") }
            h.source.send((10..<20).map { .position(Self.north(2000), 5, at: Double($0), speed: 0) })
            await settle { recorder.all.contains("state quiet outside") }
            await settle { recorder.all.contains("exit home") }
            #expect(!recorder.all.contains("exit quiet"))
            manager.requestState(for: home)
            await settle { recorder.all.filter { $0 == "state home outside" }.count == 2 }
            h.source.send((20..<30).map { .position(52, 5, at: Double($0), speed: 0) })
            await settle { recorder.all.filter { $0 == "enter home" }.count == 2 }
            manager.stopMonitoring(for: quiet)
            #expect(manager.monitoredRegions.map(\.identifier) == ["home"])
        }
    }

    @Test("A region that cannot be monitored fails with CLError.regionMonitoringFailure")
    @MainActor func unmonitorable() async throws {
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.delegate = recorder
            manager.startMonitoring(
                for: CLCircularRegion(
                    center: CLLocationCoordinate2D(latitude: 52, longitude: 5), radius: 5_000_000,
                    identifier: "huge"))
            manager.startMonitoring(
                for: CLCircularRegion(
                    center: CLLocationCoordinate2D(latitude: 95, longitude: 5), radius: 100,
                    identifier: "nowhere"))
            await settle { recorder.all.filter { $0.hasPrefix("failed ") }.count == 2 }
            #expect(recorder.all.contains("failed huge \(CLError.Code.regionMonitoringFailure.rawValue)"))
            #expect(manager.monitoredRegions.isEmpty)
        }
        #expect(CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self))
        #expect(!CLLocationManager.isMonitoringAvailable(for: CLRegion.self))
    }

    @Test("CLLocation and CLVisit go through NSKeyedArchiver with secure coding and come back the same")
    func archiving() throws {
        let location = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 52.3731, longitude: 4.8922), altitude: 12.5,
            horizontalAccuracy: 4.2, verticalAccuracy: 6, course: 114.5, courseAccuracy: 2, speed: 13.9,
            speedAccuracy: 0.4, timestamp: Date(timeIntervalSince1970: 1_773_475_200.25))
        let data = try NSKeyedArchiver.archivedData(withRootObject: location, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CLLocation.self, from: data))
        #expect(back.coordinate.latitude == 52.3731 && back.coordinate.longitude == 4.8922)
        #expect(back.altitude == 12.5 && back.horizontalAccuracy == 4.2 && back.verticalAccuracy == 6)
        #expect(back.course == 114.5 && back.speed == 13.9 && back.speedAccuracy == 0.4)
        #expect(back.timestamp == location.timestamp)
        #expect(location.copy() as? CLLocation === location)

        let visit = CLVisit(
            arrivalDate: Date(timeIntervalSince1970: 100), departureDate: .distantFuture,
            coordinate: CLLocationCoordinate2D(latitude: 1, longitude: 2), horizontalAccuracy: 100)
        let archived = try NSKeyedArchiver.archivedData(withRootObject: visit, requiringSecureCoding: true)
        let again = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: CLVisit.self, from: archived))
        #expect(again.arrivalDate == visit.arrivalDate && again.departureDate == .distantFuture)
        #expect(again.coordinate.longitude == 2 && again.horizontalAccuracy == 100)
    }
}
