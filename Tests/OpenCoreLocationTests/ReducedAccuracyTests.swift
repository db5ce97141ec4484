// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import TestSupport
import Testing

@testable import OpenCoreLocation

@Suite("Reduced accuracy through the API")
struct ReducedAccuracyTests {
    @Test("Under reduced accuracy every update carries accuracyLimited, and nothing comes between outputs")
    func serviceUnderReducedAccuracy() async throws {
        let h = try authorizedHarness(precise: false)
        h.source.send(
            (0..<1800).map { .position(52 + Double($0) * 0.00001, 5, at: Double($0), speed: 10, course: 0) })
        h.source.end()
        let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
        let located = updates.filter { $0.location != nil }
        #expect(located.count == 2)
        #expect(located.allSatisfy { $0.location!.speed == -1 && $0.location!.course == -1 })
        #expect(located.allSatisfy { $0.location!.horizontalAccuracy >= 3600 })
        #expect(updates.allSatisfy { $0.accuracyLimited })
        #expect(updates.count == located.count)
        #expect(FileManager.default.fileExists(atPath: h.directory + "/reducer.key"))
    }
}
