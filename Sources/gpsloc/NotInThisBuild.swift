// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The commands a gpsloc built without some of its traits lacks: each is still a command, which
/// says what it would have done, why this build cannot, and how to build one that can, rather
/// than the parser's "Unexpected argument".
enum NotInThisBuild {
    /// Why a gpsloc built without the Journal trait cannot record, read or send a track journal.
    static let journal =
        "this gpsloc was built without the track journal (swift build --disable-default-traits, as "
        + "tools/decode-example builds it); `swift build --product gpsloc` builds the whole of it"

    /// Why a gpsloc built without the MQTT trait has no uplink.
    static let mqtt =
        "this gpsloc was built without the MQTT trait (the default traits were left out); "
        + "`swift build --product gpsloc` builds it with them (libmosquitto-dev, which tools/build-deps "
        + "installs), and `--enable-all-traits` adds libgps to them"

    /// The refusal of `command`, for `reason`: on standard error, exit status 1.
    static func refuse(_ command: String, _ reason: String) throws -> Never {
        printError("gpsloc \(command): error: \(reason)")
        throw ExitCode.failure
    }
}

#if !Journal
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a track journal (not in this build: it was built without the Journal trait).")
        @Argument(parsing: .allUnrecognized) var arguments: [String] = []
        func run() throws { try NotInThisBuild.refuse("record", NotInThisBuild.journal) }
    }

    struct Journal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a track journal (not in this build: it was built without the Journal trait).")
        @Argument(parsing: .allUnrecognized) var arguments: [String] = []
        func run() throws { try NotInThisBuild.refuse("journal", NotInThisBuild.journal) }
    }
#endif

#if !MQTT
    struct Uplink: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Publish locations to an MQTT broker (not in this build: it was built without the MQTT trait)."
        )
        @Argument(parsing: .allUnrecognized) var arguments: [String] = []
        func run() throws { try NotInThisBuild.refuse("uplink", NotInThisBuild.mqtt) }
    }
#endif
