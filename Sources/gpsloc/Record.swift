// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if Journal
    import ArgumentParser
    import Dispatch
    import FoundationEssentials
    import GNSS
    import Telematics
    import TrackJournal

    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record every location update into a journal sealed to a public key.",
            discussion: """
                An app like any other (a client of gpslocd under its own decision, or with --source the \
                app named by --app), holding an Always service session: an approximate grant records \
                reduced locations only. Each record is sealed on its own to --key's recipient, so the \
                box cannot read what it recorded; `gpsloc journal decrypt --key PRIVATE` reads it back. \
                Each record is on disk before the next is taken (fdatasync), so a power cut loses at \
                most the one being written; the next run cuts a torn end and begins a new segment that \
                says where. A full disk loses the records that do not fit, says so, and recording \
                resumes when space returns, a gap record counting what was lost. Updates without a \
                location are explained at once, when the reason changes and every ten minutes; a run \
                a decision kept from every location ends with status 1. SIGTERM or Ctrl-C closes the \
                journal with a final record.
                """
        )

        @OptionGroup var options: AppOptions

        @Option(help: "The journal's directory (made when missing, mode 0700).")
        var journal: String

        @Option(help: "The recipient's public key (`gpsloc journal keygen --public-key`).")
        var key: String

        // Their defaults are said in the help as a person reads them (8 MiB, not 8388608): the
        // options are optional so that the parser does not print them again.
        @Option(
            name: .customLong("segment-size"),
            help: "Close a segment and begin the next once it is this many bytes (default 8 MiB).")
        var segmentSizeOption: Int?
        var segmentSize: Int { segmentSizeOption ?? 8 << 20 }

        @Option(
            name: .customLong("segment-age"),
            help: "Or once it is this many seconds old (default 3600, an hour)."
        )
        var segmentAgeOption: Double?
        var segmentAge: Double { segmentAgeOption ?? 3600 }

        @Option(
            name: .customLong("max-size"),
            help:
                "The journal's size cap in bytes: the oldest segments are removed past it (default 256 MiB).")
        var maxSizeOption: Int?
        var maxSize: Int { maxSizeOption ?? 256 << 20 }

        @Flag(
            help: "Do not fdatasync after each record (faster, kinder to flash; a power cut may lose more).")
        var noSync = false

        @Flag(
            help: """
                Record the receiver's NMEA too (as gpslocd's gpsd protocol writes it from each fix: RMC, GGA, \
                GSA, GSV, GST, HDT), while the app may have precise locations; `gpsloc journal decrypt \
                --format nmea` gives it back, and `gpsloc decode --key` decodes it.
                """)
        var nmea = false

        func validate() throws {
            guard segmentSize >= 4096 else {
                throw ValidationError("--segment-size must be at least 4096 bytes")
            }
            guard segmentAge >= 1 else { throw ValidationError("--segment-age must be at least 1 second") }
            guard maxSize >= 2 * segmentSize else {
                throw ValidationError(
                    "--max-size must be at least twice --segment-size, e.g. --max-size \(2 * segmentSize)")
            }
        }

        func run() async throws {
            let recipient: JournalPublicKey
            do {
                recipient = try JournalKeys.publicKey(contentsOf: key)
            } catch {
                printError("gpsloc record: error: --key \(error)")
                throw ExitCode.failure
            }
            let limits = JournalWriter.Limits(
                segmentBytes: segmentSize, segmentSeconds: segmentAge, totalBytes: maxSize,
                syncEachRecord: !noSync)
            let context = try options.makeContext(command: "record")
            let journal = journal
            let recording = Task { () throws -> Int32 in
                let writer: JournalWriter
                do {
                    writer = try JournalWriter(directory: journal, recipient: recipient, limits: limits)
                } catch {
                    printError("gpsloc record: error: \(error)")
                    return 1
                }
                Self.sayRecovery(writer.recovery, journal: journal)
                // In process, the decision is the store's; a client of gpslocd hears the command from it.
                let grant =
                    context.isDaemonClient
                    ? nil
                    : "gpsloc auth grant '\(context.configuration.client)' always"
                        + (options.storeDirectory.map { " --store '\($0)'" } ?? "")
                let recorder = TrackRecorder(writer, grant: grant) { printError("gpsloc record: " + $0) }
                var failure: (any Error)?
                do {
                    try await recorder.record(from: context, nmea: nmea)
                } catch is CancellationError {
                } catch {
                    failure = error
                }
                do {
                    try recorder.close()
                } catch {
                    printError("gpsloc record: error: closing the journal: \(error)")
                }
                printError("gpsloc record: \(recorder.written) written to \(journal)")
                if let failure {
                    printError("gpsloc record: error: \(failure)")
                    return 1
                }
                // A run a decision kept from every location did not do its job, whatever it closed.
                if let refused = recorder.refusedAll {
                    printError("gpsloc record: error: no location was recorded: \(refused)")
                    return 1
                }
                return 0
            }
            // SIGTERM (systemctl stop) and Ctrl-C end the recording; the journal is closed, not cut.
            let signals = onTermination { recording.cancel() }
            defer { signals.forEach { $0.cancel() } }
            let status = try await recording.value
            if status != 0 { throw ExitCode(status) }
            try AppOptions.checkSource(of: context)
        }

        private static func sayRecovery(_ recovery: JournalWriter.Recovery, journal: String) {
            guard recovery.previous > 0 else { return }
            var said =
                "gpsloc record: \(journal): continuing after segment \(recovery.previous) (\(counted(recovery.previousFrames, "record", "records")))"
            if recovery.cutBytes > 0 {
                said +=
                    "; its last \(counted(recovery.cutBytes, "byte", "bytes")) \(agreeing(recovery.cutBytes, "was", "were")) a torn write (the recorder stopped mid-record) and were cut at byte \(recovery.cutAt)"
            }
            printError(said)
        }
    }
#endif
