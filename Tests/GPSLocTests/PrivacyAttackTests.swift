// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// `tools/privacy-attack` at a small scale, against the gpsloc this test run built: every reduced
/// update of every run is checked for leaks, and re-subscribing from new processes must learn
/// nothing one long subscription did not. (The distance targets need hundreds of places; the
/// closing figures come from a full run, see PRIVACY.md.)
@Suite("Reduced accuracy under attack, small scale")
struct PrivacyAttackTests {
    @Test("no leaks, at most 4 locations an hour, and re-subscribing from new processes tells nothing new")
    func smallScale() async throws {
        let tool = Fixtures.packageRoot.appendingPathComponent("tools/privacy-attack")
        let result = try await Runner.run(
            [
                "--places", "3", "--days", "2", "--jobs", "1", "--resubscribe-hours", "9", "--gpsloc",
                Runner.gpsloc.path,
            ], executable: tool)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let output = result.standardOutput
        #expect(output.contains("the same: True"), "\(output)")
        #expect(output.contains(", 0 problems;"), "\(output)")
        #expect(output.contains("parked 2 days: 3 places") && output.contains("road: 3 drives"), "\(output)")
        let checked = output.split(separator: "\n").first { $0.hasPrefix("leaks:") }
        let count = checked.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        #expect(count > 100, "reduced locations were checked: \(output)")
    }
}
