// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// examples/WhereAmI, the program README points a newcomer at, built against the package and run
/// as a person runs it: on a terminal (script(1) gives it one), its decision made beforehand.
@Suite("The example program")
struct ExampleProgramTests {
    /// The test's directories, removed when it ends.
    let scratch = ScratchDirectories("example-program")

    @Test("where-am-i prints the log's first three locations as CLLocation describes them")
    func whereAmI() async throws {
        let store = try scratch.make()
        let app = "org.example.where-am-i"
        #expect(try await Runner.run(["auth", "grant", app, "--store", store]).status == 0)
        let program = Runner.gpsloc.deletingLastPathComponent().appendingPathComponent("where-am-i").path
        let log = Fixtures.url("drive-1hz.nmea").path
        let result = try await Runner.run(
            ["-qec", "'\(program)' 'file:\(log)?speed=max'", "/dev/null"],
            executable: URL(fileURLWithPath: "/usr/bin/script"),
            environment: [
                "OPENCORELOCATION_SOCKET": store + "/no-daemon.sock", "OPENCORELOCATION_STATE_DIR": store,
                "OPENCORELOCATION_APP": app,
                "OPENCORELOCATION_MANIFEST": Fixtures.packageRoot.path + "/examples/Info.plist",
            ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let lines = result.standardOutput.split(whereSeparator: \.isNewline)
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasPrefix("<+52.373") }, "\(result.standardOutput)")
    }
}
