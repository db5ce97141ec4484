// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import Synchronization
import TestSupport
import Testing

@testable import OpenCoreLocation

/// `CLLocationManager`'s properties used as Apple's documentation shows: what each changes.
@Suite("CLLocationManager's properties")
struct LocationManagerTests {
    /// A point `metres` north of 52° N, 5° E.
    static func north(_ metres: Double) -> Double { 52 + metres / 111_195 }

    @Test(
        "startUpdatingLocation() asks nothing, as on Apple platforms: request…Authorization() asks, then updates flow"
    )
    @MainActor func startUpdatingDoesNotAsk() async throws {
        let h = try Harness(answers: [.allowWhileUsing(precise: true)])
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.delegate = recorder
            manager.startUpdatingLocation()
            h.source.send(.position(52, 5, at: 0, speed: 10))
            await settle { recorder.all.contains("status notDetermined") }
            try await Task.sleep(for: .milliseconds(200))
            #expect(h.prompter.requests.isEmpty, "startUpdatingLocation() asked the user")
            #expect(recorder.locations.isEmpty)
            manager.requestWhenInUseAuthorization()
            await settle { h.prompter.requests.count == 1 }
            await settle { recorder.all.contains("status authorizedWhenInUse") }
            h.source.send(.position(Self.north(100), 5, at: 1, speed: 10))
            await settle { !recorder.locations.isEmpty }
            #expect(h.prompter.requests.count == 1)
            manager.stopUpdatingLocation()
        }
    }

    @Test("distanceFilter: a location closer than the filter to the last one delivered is held back")
    @MainActor func distanceFilter() async throws {
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.distanceFilter = 100
            manager.delegate = recorder
            manager.startUpdatingLocation()
            for step in 0..<9 {
                h.source.send(.position(Self.north(Double(step) * 40), 5, at: Double(step), speed: 40))
            }
            await settle { recorder.locations.count >= 3 }
            try await Task.sleep(for: .milliseconds(100))
            // 0, 40, 80, 120 (delivered: 120 m from 0), 160, 200, 240 (delivered), 280, 320 (delivered)
            #expect(recorder.locations.map { (($0 - 52) * 111_195).rounded() } == [0, 120, 240])
            manager.stopUpdatingLocation()
        }
    }

    @Test(
        "pausesLocationUpdatesAutomatically: true pauses a still device and resumes; false delivers every fix"
    )
    @MainActor func pausing() async throws {
        for pauses in [true, false] {
            let h = try authorizedHarness()
            let recorder = DelegateRecorder()
            try await h.run {
                let manager = CLLocationManager()
                manager.pausesLocationUpdatesAutomatically = pauses
                manager.delegate = recorder
                manager.startUpdatingLocation()
                // Five minutes still, a fix every 5 s, then moving away.
                h.source.send((0..<60).map { .position(52, 5, at: Double($0 * 5), speed: 0) })
                h.source.send(
                    (0..<5).map {
                        .position(Self.north(Double($0 + 1) * 50), 5, at: 300 + Double($0), speed: 50)
                    })
                await settle { recorder.locations.last.map { $0 > 52.002 } ?? false }
                if pauses {
                    // Still for a minute (13 fixes) pauses them; 5 after resuming.
                    #expect(recorder.locations.count < 30)
                    let events = recorder.all
                    let paused = try #require(events.firstIndex(of: "paused"))
                    let resumed = try #require(events.firstIndex(of: "resumed"))
                    #expect(paused < resumed)
                } else {
                    #expect(recorder.locations.count == 65)
                    #expect(!recorder.all.contains("paused"))
                }
                manager.stopUpdatingLocation()
            }
        }
    }

    @Test("allowsBackgroundLocationUpdates: updates started in use go on after the app leaves use")
    @MainActor func background() async throws {
        for allows in [true, false] {
            let h = try authorizedHarness()
            let recorder = DelegateRecorder()
            try await h.run {
                let manager = CLLocationManager()
                manager.allowsBackgroundLocationUpdates = allows
                manager.activityType = .automotiveNavigation
                manager.delegate = recorder
                manager.startUpdatingLocation()
                h.source.send(.position(52.1, 5, at: 1, speed: 10))
                await settle { recorder.locations == [52.1] }
                h.activity.setInUse(false)
                try await Task.sleep(for: .milliseconds(50))
                h.source.send(.position(52.2, 5, at: 2, speed: 10))
                if allows {
                    await settle { recorder.locations == [52.1, 52.2] }
                } else {
                    try await Task.sleep(for: .milliseconds(200))
                    #expect(recorder.locations == [52.1])
                }
                manager.stopUpdatingLocation()
            }
        }
        #expect(CLActivityType.allCases.map(\.rawValue) == [1, 2, 3, 4, 5])
    }

    @Test(
        "Heading from the receiver's HDT: changes of a degree or more, magnetic from RMC's variation; none when approximate"
    )
    @MainActor func heading() async throws {
        func fix(_ heading: Double, at second: Double) -> Fix {
            var fix = Fix.position(52, 5, at: second, speed: 3)
            fix.heading = heading
            fix.magneticVariation = 2
            return fix
        }
        let h = try authorizedHarness()
        let recorder = DelegateRecorder()
        try await h.run {
            let manager = CLLocationManager()
            manager.delegate = recorder
            manager.startUpdatingHeading()
            h.source.send([
                fix(10, at: 1), fix(10.5, at: 2), fix(12, at: 3), fix(359.5, at: 4), fix(0.2, at: 5),
            ])
            await settle { recorder.all.filter { $0.hasPrefix("heading") }.count >= 3 }
            try await Task.sleep(for: .milliseconds(100))
            #expect(
                recorder.all.filter { $0.hasPrefix("heading") } == [
                    "heading 10.0 8.0", "heading 12.0 10.0", "heading 359.5 357.5",
                ])
            #expect(CLLocationManager.headingAvailable())
            #expect(manager.heading?.trueHeading == 359.5)
            manager.stopUpdatingHeading()
        }

        let approximate = try authorizedHarness(precise: false)
        let told = DelegateRecorder()
        try await approximate.run {
            let manager = CLLocationManager()
            manager.headingTimeout = .milliseconds(300)
            manager.delegate = told
            manager.startUpdatingHeading()
            approximate.source.send([fix(10, at: 1), fix(20, at: 2)])
            await settle { told.all.contains("error kCLErrorDomain 3") }
            #expect(!told.all.contains { $0.hasPrefix("heading") })
            manager.stopUpdatingHeading()
        }
    }
}
