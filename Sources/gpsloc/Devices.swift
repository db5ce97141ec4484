// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FoundationEssentials
import GNSSSources

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List serial devices and which of them speak NMEA at which rate.",
        discussion: """
            Without arguments, looks at /dev/serial/by-id/*, /dev/ttyUSB* and /dev/ttyACM*. Each \
            device is opened exclusively and listened to at the standard rates until checksummed \
            NMEA arrives; a device in use by another program (gpsd, for one) is reported as busy. \
            Prints one line per device: its path, then `nmea RATE` with the source to use, or what \
            was found instead. Exits with 1 when no device speaks NMEA.
            """
    )

    @Argument(help: "Devices to probe instead of the usual ones.")
    var paths: [String] = []

    @Option(parsing: .unconditional, help: "How long to listen at each rate, in seconds.")
    var probeTime: Double = 1.5

    func validate() throws {
        guard probeTime.isFinite, probeTime >= 0.1, probeTime <= 60 else {
            throw ValidationError("--probe-time must be between 0.1 and 60 seconds, e.g. --probe-time 2")
        }
    }

    func run() async throws {
        try CommandLog.bootstrap()
        let candidates = paths.isEmpty ? SerialSource.candidateDevices() : paths
        guard !candidates.isEmpty else {
            printError(
                "gpsloc devices: no serial devices under /dev/serial/by-id, /dev/ttyUSB* or /dev/ttyACM*; "
                    + "is the receiver plugged in? Name a device to probe it, e.g. gpsloc devices /dev/ttyS0")
            throw ExitCode(1)
        }
        let time = Duration.milliseconds(Int(probeTime * 1000))
        // Probed side by side: a silent device costs the time of all its rates.
        let results = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for (index, path) in candidates.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await SerialSource.probe(path: path, probeTime: time)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [(Int, Result<Int, any Error>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var output = OutputBuffer()
        var found = false
        for (path, result) in zip(candidates, results) {
            switch result {
            case .success(let rate):
                found = true
                output.line("\(path)  nmea \(rate)  serial:\(path)?baud=\(rate)")
            case .failure(let error):
                output.line("\(path)  -  \(error)")
            }
        }
        output.flush()
        if !found { throw ExitCode(1) }
    }
}
