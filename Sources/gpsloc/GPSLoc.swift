// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import BuildInfo
import GNSS
import GNSSSources
import NMEA

@main
struct GPSLoc: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpsloc",
        abstract: "Location from GPS receivers and NMEA logs.",
        discussion: """
            Exit status: 0 done; 1 an error of the input, the output, a source or gpslocd \
            (the message says which); 64 a usage error (an option, an argument, a source address \
            or GPSLOC_LOG_LEVEL that is not understood); 3 watch, a client of gpslocd, whose updates \
            gpslocd ended. Ended by a signal (Ctrl-C, SIGTERM), it \
            dies of it: a shell shows 130 or 143.
            """,
        version: BuildInfo.version,
        subcommands: GPSLoc.commands
    )
}

extension GPSLoc {
    /// The subcommands. In a build without the Journal or MQTT trait, `record`, `journal` and
    /// `uplink` say that they are not in it and how to build them (NotInThisBuild.swift).
    static var commands: [any ParsableCommand.Type] {
        [
            Decode.self, Simulate.self, Watch.self, Monitor.self, Auth.self, Agent.self, Activity.self,
            Devices.self,
            Record.self, Journal.self, Uplink.self,
        ]
    }
}

extension ChecksumPolicy: ExpressibleByArgument {}

/// A calendar date given on the command line as `YYYY-MM-DD`.
struct DateArgument: ExpressibleByArgument {
    var date: CivilDate
    init?(argument: String) {
        guard let date = CivilDate(parsing: argument) else { return nil }
        self.date = date
    }
}

/// Buffered writes to a file descriptor.
struct OutputBuffer: ~Copyable {
    private var bytes: [UInt8] = []
    private let descriptor: Int32

    init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
        bytes.reserveCapacity(1 << 16)
    }

    mutating func line(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(10)
        if bytes.count >= 1 << 16 { flush() }
    }

    /// Lets `body` append to the buffer directly.
    mutating func append(_ body: (inout [UInt8]) -> Void) {
        body(&bytes)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        // A closed pipe (`gpsloc decode … | head`) ends the program through SIGPIPE; other
        // write errors have nowhere better to go than being dropped here.
        try? writeAll(bytes, to: descriptor)
        bytes.removeAll(keepingCapacity: true)
    }

    deinit { try? writeAll(bytes, to: descriptor) }
}

/// Writes `text` and a newline to standard error.
func printError(_ text: String) {
    var output = OutputBuffer(descriptor: 2)
    // Messages carry text from outside (app ids, paths, a gpsd's words): it is shown, never obeyed.
    output.line(terminalSafe(text, keepingLineBreaks: true))
}
