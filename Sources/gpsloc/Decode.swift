// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FoundationEssentials
import GNSS
import GNSSSources
import NMEA

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode an NMEA log into one record per receiver epoch.",
        discussion: """
            Reads each FILE in turn (a directory: the regular files in it, by name, hidden ones \
            and those plainly no log skipped and named, and those of its subdirectories with \
            --recursive; devices, FIFOs and sockets are read only when named; standard input for '-' or no FILE), skips '#' comment lines, and prints one record per epoch on standard \
            output. A gzip, xz or zstd log is decompressed as it is read (known by its first \
            bytes); bzip2 and zip are refused with the command that decompresses them. A summary of each file \
            (bytes, sentences by type, rejected sentences by reason, epochs) goes to standard \
            error. A file that cannot be read, or holds no NMEA at all, is an error (status 1) \
            that stops nothing: the other files are still decoded.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case gpsd, jsonl, csv, gpx, geojson, geojsonseq, kml, none

        /// The track format it is, for the formats maps and GIS tools read.
        var track: TrackWriter.Format? { TrackWriter.Format(rawValue: rawValue) }
    }

    @Argument(help: "The NMEA logs (or directories of logs) to decode; '-' or nothing for standard input.")
    var files: [String] = []

    @Option(
        help: """
            Output: gpsd (gpsd's TPV and SKY JSON), jsonl (one fix record per line), csv, gpx (GPX 1.1 \
            track), geojson (a LineString per segment), geojsonseq (RFC 8142, a Point per fix), kml, or \
            none. Tracks start a new segment at each loss of fix and at each new log.
            """)
    var format: Format = .jsonl

    @Option(
        help:
            "required: sentences without a valid *hh checksum are rejected; lenient: a missing one is accepted."
    )
    var checksum: ChecksumPolicy = .required

    @Option(
        name: .customLong("reference-date"),
        help:
            "The day (YYYY-MM-DD) the log was recorded, for GPS week-rollover correction; overrides '# Date:'."
    )
    var referenceDate: DateArgument?

    @Option(
        name: .customLong("max-length"), parsing: .unconditional,
        help: "The longest sentence accepted, in bytes.")
    var maximumLength: Int = 1024

    @Flag(name: .shortAndLong, help: "Do not print the summary, nor what a directory held that was skipped.")
    var quiet = false

    @Flag(help: "Read the logs in the subdirectories of a directory too.")
    var recursive = false

    @Option(
        name: .customLong("key"),
        help:
            "The private key of a track journal (`gpsloc record --nmea`) named among the logs: its NMEA is decoded."
    )
    var journalKey: String?

    @OptionGroup var progress: ProgressOptions

    @OptionGroup var selection: DecodeSelection

    mutating func validate() throws {
        try selection.resolve(for: format)
        guard (16...NMEAFramer.Configuration.maximumLengthLimit).contains(maximumLength) else {
            throw ValidationError(
                "--max-length must be from 16 to \(NMEAFramer.Configuration.maximumLengthLimit) "
                    + "(NMEA sentences are up to 82 bytes; try 1024)")
        }
    }

    func run() throws {
        try CommandLog.bootstrap()
        var output = OutputBuffer()
        if format == .csv { output.line(selection.columns.header) }
        var track = format.track.map {
            TrackWriter(format: $0, creator: "OpenCoreLocation gpsloc \(ProductVersion.current)")
        }
        if let track { output.append { track.begin(into: &$0) } }
        // Journals are opened into memory first; the logs' walk sees their sentences as a log.
        var opened: [Int32] = []
        defer { opened.forEach { close($0) } }
        let arguments = try DecodeJournal.openJournals(among: files, keyPath: journalKey, opened: &opened)
        let logs = LogFiles(arguments, recursive: recursive)
        // A directory that cannot be read stops nothing either: the other logs are decoded.
        for problem in logs.problems { printError("gpsloc decode: error: \(problem)") }
        if !quiet { for entry in logs.skipped { printError("gpsloc decode: skipped \(entry)") } }
        var failed = !logs.problems.isEmpty
        // Standard input on a terminal is a person typing or pasting, or one who expected a log to
        // be read: either way they are told what is waited for.
        if logs.paths.contains(nil), isatty(STDIN_FILENO) == 1 {
            printError(
                "gpsloc decode: reading NMEA sentences from the terminal; end with Ctrl-D, "
                    + "or give a log to decode (gpsloc decode FILE)")
        }
        var reach = FixReach()
        for path in logs.paths {
            if !decode(path, into: &output, track: &track, reach: &reach) { failed = true }
            if track != nil { output.append { track!.endSegment(into: &$0) } }
        }
        if track != nil { output.append { track!.end(into: &$0) } }
        output.flush()
        if let box = selection.box, let warning = reach.warning(box: box) {
            printError("gpsloc decode: warning: \(warning)")
        }
        if failed { throw ExitCode.failure }
    }

    /// Whether `path` (standard input when `nil`) is a regular file, rather than a pipe or a device.
    private static func isRegularFile(_ path: String?) -> Bool {
        var info = stat()
        let found = path.map { stat($0, &info) } ?? fstat(0, &info)
        return found == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Decodes one log into `output`; says whether it went well (the error is printed).
    private func decode(
        _ path: String?, into output: inout OutputBuffer, track: inout TrackWriter?, reach: inout FixReach
    ) -> Bool {
        let source = ReplaySource(
            path: path, framing: .init(checksumPolicy: checksum, maximumLength: maximumLength),
            referenceDate: referenceDate.map { .recordedOn($0.date) })
        let name = path ?? "standard input"
        let format = self.format
        let (selection, satellites) = (self.selection, !self.selection.noSatellites)
        let (fields, columns) = (selection.recordFields, selection.columns)
        let allColumns = columns == .all
        let statistics: DecodeStatistics
        // gpsd's reports name the receiver, begin with its DEVICE and end in CRLF, as gpsd sends
        // them; from a pipe or a device, each report is written as soon as its epoch is decoded.
        let devicePath = path ?? "stdin"
        let device = QuotedText(devicePath)
        let live = format == .gpsd && !Self.isRegularFile(path)
        // A receiver read live was reached now; a log's was reached at its first fix, so that the
        // same log decodes to the same bytes every time (a log without times gives no moment).
        var deviceWritten = false
        func writeDevice(activated: UTCTimestamp?, into output: inout OutputBuffer) {
            deviceWritten = true
            output.append {
                FixFormat.appendGPSDDevice(path: devicePath, activated: activated, to: &$0)
                $0 += [13, 10]
            }
        }
        if live { writeDevice(activated: .now, into: &output) }
        var timeline = FixTimeline()
        var meter = ProgressMeter(label: name, enabled: progress.enabled)
        do {
            statistics = try source.decodeAll(progress: { meter.update(done: $0, total: $1) }) { fix in
                timeline.add(fix)
                if selection.box != nil { reach.add(fix, inBox: selection.isInBox(fix)) }
                guard selection.keepsAll || selection.keeps(fix) else {
                    // A fix left out breaks a track, as a loss of fix does.
                    if track != nil { output.append { track!.endSegment(into: &$0) } }
                    return
                }
                switch format {
                case .gpsd:
                    if !deviceWritten { writeDevice(activated: fix.time, into: &output) }
                    output.append {
                        FixFormat.appendGPSDReports(
                            fix, satellites: satellites, device: device, crlf: true, to: &$0)
                    }
                    if live { output.flush() }
                case .jsonl:
                    output.append {
                        FixFormat.appendJSONRecord(fix, fields: fields, to: &$0)
                        $0.append(10)
                    }
                case .csv:
                    output.line(allColumns ? FixFormat.csvRow(fix) : FixFormat.csvRow(fix, columns: columns))
                case .gpx, .geojson, .geojsonseq, .kml:
                    if fix.hasPosition { timeline.recordsWritten += 1 }
                    output.append { track!.add(fix, into: &$0) }
                    return
                case .none: return
                }
                timeline.recordsWritten += 1
            }
        } catch {
            meter.finish()
            // Not a usage mistake: say what went wrong, without the usage text.
            output.flush()
            printError("gpsloc decode: error: \(error)")
            return false
        }
        meter.finish()
        if format == .gpsd && !deviceWritten { writeDevice(activated: nil, into: &output) }
        let basis = referenceDate.map { "--reference-date \($0.date)" }
        if !quiet {
            printError(
                Self.summary(statistics, name: name, timeline: timeline, seconds: meter.elapsed, basis: basis)
            )
        }
        let bytes = statistics.bytesRead ?? statistics.framer.bytes
        guard statistics.framer.sentences > 0 || bytes == 0 else {
            output.flush()
            let missing = statistics.framer[.missingChecksum]
            // Lenient checking helps a log whose lines merely lack checksums, not noise.
            let hint =
                missing >= 10 && missing * 2 >= statistics.framer.rejected && checksum == .required
                ? "its \(missing) sentences without a checksum count with --checksum lenient"
                : "is it an NMEA log? A receiver's binary log (u-blox UBX, SiRF) needs converting first"
            printError(
                "gpsloc decode: error: no NMEA sentences in \(name)'s \(counted(bytes, "byte", "bytes")); \(hint)"
            )
            return false
        }
        return true
    }
}
