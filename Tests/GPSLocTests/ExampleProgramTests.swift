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

    @Test(
        "telematics-box records the whole drive into its journal and publishes it to a real broker",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto"),
            "mosquitto is not installed (tools/test installs it)"))
    func telematicsBox() async throws {
        let directory = try scratch.make()
        let app = "org.example.telematics-box"
        let keygen = try await Runner.run([
            "journal", "keygen", "--private-key", directory + "/fleet.key", "--public-key",
            directory + "/journal.pub",
        ])
        #expect(keygen.status == 0, "\(keygen.standardError)")
        #expect(try await Runner.run(["auth", "grant", app, "always", "--store", directory]).status == 0)
        let broker = try UplinkCommandTests.Broker(directory: directory + "/broker")
        try await broker.start()
        let fleet = try UplinkCommandTests.subscriber(port: broker.port)
        try await Task.sleep(for: .milliseconds(500))
        let program = Runner.gpsloc.deletingLastPathComponent().appendingPathComponent("telematics-box").path
        let log = Fixtures.url("drive-1hz.nmea").path
        let box = try await Runner.run(
            [
                "file:\(log)?speed=max", directory + "/journal.pub", directory + "/box",
                "mqtt://127.0.0.1:\(broker.port)",
            ],
            executable: URL(fileURLWithPath: program),
            environment: [
                "OPENCORELOCATION_SOCKET": directory + "/no-daemon.sock",
                "OPENCORELOCATION_STATE_DIR": directory,
                "OPENCORELOCATION_APP": app,
                "OPENCORELOCATION_MANIFEST": Fixtures.packageRoot.path + "/examples/Info.plist",
            ])
        #expect(box.status == 0, "\(box.standardOutput)\(box.standardError)")
        // The drive's 300 fixes, each a location record.
        #expect(
            box.standardOutput.contains(
                "302 records: 300 locations, 1 opening, 1 final in the journal, 0 messages left"),
            "\(box.standardOutput)")
        #expect(await fleet.waitForOutput(within: 15) { jsonObjects(inLines: $0).count >= 300 })
        fleet.signal(SIGKILL)
        _ = await fleet.wait(within: 10)
        await broker.stop()
        let stamps = Set(jsonObjects(inLines: fleet.output).compactMap { $0["tst"] as? Int })
        #expect(stamps.count == 300, "\(stamps.count) of 300 arrived")
        let decrypted = try await Runner.run([
            "journal", "decrypt", directory + "/box/journal", "--key", directory + "/fleet.key",
        ])
        #expect(decrypted.status == 0, "\(decrypted.standardError)")
        #expect(decrypted.standardOutput.split(whereSeparator: \.isNewline).count == 300)
    }
}
