// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if Journal
    import ArgumentParser
    import FoundationEssentials
    import GNSS
    import GNSSSources
    import TrackJournal

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    struct Journal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the keys of a track journal, check one, and read one back.",
            discussion: """
                `gpsloc record` writes a journal sealed to a public key; only the private key reads it, \
                and it belongs off the box that records (a fleet's backend, an owner's laptop).
                """,
            subcommands: [Keygen.self, Verify.self, Decrypt.self]
        )

        struct Keygen: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract:
                    "Make a key pair: the public key for the recorder, the private key for whoever reads.")

            @Option(
                help: "Where the private key goes (made with mode 0600; an existing file is not replaced).")
            var privateKey: String

            @Option(help: "Where the public key goes (the recorder's --key).")
            var publicKey: String

            func run() throws {
                let (privateText, publicText) = JournalKeys.generate()
                try Self.create(privateKey, privateText, mode: 0o600, option: "--private-key")
                try Self.create(publicKey, publicText, mode: 0o644, option: "--public-key")
                print("private key: \(privateKey) (keep it off the recording box)\npublic key:  \(publicKey)")
            }

            static func create(_ path: String, _ text: String, mode: mode_t, option: String) throws {
                do {
                    try JournalKeys.createKeyFile(path, text, mode: mode)
                } catch {
                    printError(
                        "gpsloc journal keygen: error: \(option) \(path): \(error)"
                            + (error.code == EEXIST
                                ? "; a key is never overwritten: move it away or choose another path" : ""))
                    throw ExitCode.failure
                }
            }
        }

        struct KeyOption: ParsableArguments {
            @Option(name: .customLong("key"), help: "The private key (`gpsloc journal keygen`).")
            var path: String?

            init() {}
            init(path: String) { self.path = path }

            func load(required: Bool, command: String) throws -> JournalPrivateKey? {
                guard let path else {
                    if required {
                        printError("gpsloc \(command): error: give the private key with --key FILE")
                        throw ExitCode.validationFailure
                    }
                    return nil
                }
                do {
                    return try JournalKeys.privateKey(contentsOf: path)
                } catch {
                    printError("gpsloc \(command): error: --key \(error)")
                    throw ExitCode.failure
                }
            }
        }

        struct Verify: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Say what of a journal is intact, what a power cut tore, and what is damaged.",
                discussion: """
                    With --key, every record is opened: a record altered, a segment moved, renamed, \
                    copied, removed or put in from another journal, and the newest segments removed \
                    while the journal's head says they were there, are damage, each named with where it \
                    is and how many records it cost. Without it, only what the frames' CRCs can tell: \
                    headers, whole records, bytes that are no record. Only the end of the newest \
                    segment, not closed, with nothing whole after it, is a power cut's tear. Exit status \
                    0 when nothing is damaged (a tear and the segments the size cap removed are the \
                    journal's own, and said), 2 when something is, and then the first line says DAMAGED; \
                    1 when the path holds no journal at all.
                    """)

            @Argument(help: "The journal's directory, or one segment.")
            var journal: String

            @OptionGroup var key: KeyOption

            /// `1 damaged place`, `3 damaged places`.
            static func places(_ count: Int) -> String {
                "\(count) damaged \(count == 1 ? "place" : "places")"
            }

            /// Fails when `path` held no journal at all: nothing in it is whole, nor damaged, and saying
            /// "whole" of an empty or mistyped directory would pass a check that checked nothing.
            static func requireJournal(_ report: JournalReader.Report, at path: String, command: String)
                throws
            {
                guard report.segments.isEmpty && report.damage.isEmpty else { return }
                printError(
                    "gpsloc \(command): error: \(path) holds no journal (no segment is in it); check the path: a "
                        + "journal is the directory `gpsloc record --journal DIR` writes, or one of its segments"
                )
                throw ExitCode.failure
            }

            func run() throws {
                let privateKey = try key.load(required: false, command: "journal verify")
                let report: JournalReader.Report
                do {
                    report = try JournalReader(path: journal, privateKey: privateKey).read()
                } catch {
                    printError("gpsloc journal verify: error: \(error)")
                    throw ExitCode.failure
                }
                try Self.requireJournal(report, at: journal, command: "journal verify")
                if !report.isIntact {
                    print("DAMAGED: \(journal): \(Self.places(report.damage.count)); \(report.lossSummary)")
                }
                for segment in report.segments {
                    var line = "\(segment.path): \(counted(segment.frames, "whole record", "whole records"))"
                    line += privateKey == nil ? " (not opened without --key)" : "; opened \(segment.counts)"
                    if let final = segment.final { line += "; closed (\(final))" }
                    if segment.tail > 0 {
                        line += "; \(counted(segment.tail, "byte", "bytes")) after its last whole record"
                    }
                    print(line)
                }
                for note in report.notes { print("note: \(note)") }
                for damage in report.damage { print("damage: \(damage)") }
                if !report.isIntact {
                    print("\(journal): DAMAGED; read \(report.counts); \(report.lossSummary)")
                } else if privateKey == nil {
                    print("\(journal): whole, not verified (without --key, records are not opened)")
                } else {
                    print("\(journal): intact; \(report.counts)")
                }
                if !report.isIntact { throw ExitCode(2) }
            }
        }

        struct Decrypt: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Read a journal back with its private key: locations, or the receiver's NMEA.",
                discussion: """
                    Only authentic records are written, each once and in order, never one of another \
                    journal; past damage the rest are read on. What is damaged, where, and how many \
                    records it cost is said on standard error, and makes the exit status 2.
                    """)

            enum Format: String, ExpressibleByArgument, CaseIterable {
                case jsonl, gpsd, gpx, nmea
            }

            @Argument(help: "The journal's directory, or one segment.")
            var journal: String

            @OptionGroup var key: KeyOption

            @Option(
                help:
                    "jsonl (a location a line), gpx (a track of the locations) or nmea (the recorded sentences)."
            )
            var format: Format = .jsonl

            func run() throws {
                let privateKey = try key.load(required: true, command: "journal decrypt")
                var output = OutputBuffer()
                var track = JournalTextWriter(format: format)
                let report: JournalReader.Report
                do {
                    report = try JournalReader(path: journal, privateKey: privateKey).read { record, _ in
                        output.append { track.write(record, to: &$0) }
                    }
                } catch {
                    printError("gpsloc journal decrypt: error: \(error)")
                    throw ExitCode.failure
                }
                try Verify.requireJournal(report, at: journal, command: "journal decrypt")
                output.append { track.finish(to: &$0) }
                output.flush()
                if !report.isIntact {
                    printError(
                        "gpsloc journal decrypt: DAMAGED: \(journal): \(Verify.places(report.damage.count)); "
                            + "\(report.lossSummary); every authentic record was written, in order, once")
                }
                for note in report.notes { printError("gpsloc journal decrypt: \(note)") }
                for damage in report.damage { printError("gpsloc journal decrypt: damage: \(damage)") }
                if !report.isIntact { throw ExitCode(2) }
            }
        }
    }

    /// A journal's records in one of `decrypt`'s formats.
    struct JournalTextWriter {
        let format: Journal.Decrypt.Format
        private var started = false

        init(format: Journal.Decrypt.Format) { self.format = format }

        mutating func write(_ record: JournalRecord, to out: inout [UInt8]) {
            switch (format, record) {
            case (.nmea, .nmea(let bytes)):
                out += bytes
            case (.jsonl, .location(let location)):
                out += Array(Self.json(location).utf8) + [10]
            case (.gpsd, .location(let location)):
                out += Array(Self.tpv(location).utf8) + [10]
            case (.jsonl, .gap(let lost, let from, let to)):
                let line = JSONObjectWriter.object { json in
                    json.add("gap", integer: Int(lost))
                    json.add("from", time: UTCTimestamp(nanosecondsSinceEpoch: from))
                    json.add("to", time: UTCTimestamp(nanosecondsSinceEpoch: to))
                }
                out += Array(line.utf8) + [10]
            case (.gpx, .location(let location)):
                if !started {
                    out += Array(
                        """
                        <?xml version="1.0" encoding="UTF-8"?>
                        <gpx version="1.1" creator="gpsloc journal decrypt" xmlns="http://www.topografix.com/GPX/1/1">
                        <trk><trkseg>

                        """.utf8)
                    started = true
                }
                var point = printf("<trkpt lat=\"%.9f\" lon=\"%.9f\">", location.latitude, location.longitude)
                if location.verticalAccuracy > 0 {
                    point += printf("<ele>%.2f</ele>", Double(location.altitude))
                }
                point += "<time>\(Self.time(location.time).iso8601)</time></trkpt>\n"
                out += Array(point.utf8)
            default:
                break
            }
        }

        mutating func finish(to out: inout [UInt8]) {
            guard format == .gpx else { return }
            if !started {
                out += Array(
                    """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <gpx version="1.1" creator="gpsloc journal decrypt" xmlns="http://www.topografix.com/GPX/1/1">
                    <trk><trkseg>

                    """.utf8)
            }
            out += Array("</trkseg></trk>\n</gpx>\n".utf8)
        }

        static func time(_ seconds: Double) -> UTCTimestamp {
            UTCTimestamp(nanosecondsSinceEpoch: Int64((seconds * 1e9).rounded()))
        }

        /// A location as gpsd's TPV: what the journal kept of the fix (a reduced location: its
        /// position and radius, mode 2, as gpslocd reports reduced locations to gpsd's clients).
        static func tpv(_ location: JournalLocation) -> String {
            JSONObjectWriter.object { json in
                json.add("class", string: "TPV")
                json.add("device", string: "journal")
                json.add("mode", integer: location.isReduced || location.verticalAccuracy <= 0 ? 2 : 3)
                json.add("time", time: time(location.time))
                json.add("lat", location.latitude, decimals: 9)
                json.add("lon", location.longitude, decimals: 9)
                if !location.isReduced && location.verticalAccuracy > 0 {
                    json.add("altMSL", Double(location.altitude), decimals: 3)
                    json.add("epv", Double(location.verticalAccuracy), decimals: 3)
                }
                json.add("eph", Double(location.horizontalAccuracy), decimals: 3)
                if location.course >= 0 { json.add("track", Double(location.course), decimals: 4) }
                if location.speed >= 0 { json.add("speed", Double(location.speed), decimals: 3) }
            }
        }

        /// A location as `gpsloc watch --format jsonl` writes one; values not known are left out.
        static func json(_ location: JournalLocation) -> String {
            JSONObjectWriter.object { json in
                json.add("time", time: time(location.time))
                json.add("latitude", location.latitude, decimals: 9)
                json.add("longitude", location.longitude, decimals: 9)
                json.add("horizontalAccuracy", Double(location.horizontalAccuracy), decimals: 2)
                if location.verticalAccuracy > 0 {
                    json.add("altitude", Double(location.altitude), decimals: 3)
                    json.add("verticalAccuracy", Double(location.verticalAccuracy), decimals: 2)
                }
                if location.speed >= 0 { json.add("speed", Double(location.speed), decimals: 3) }
                if location.course >= 0 { json.add("course", Double(location.course), decimals: 2) }
                json.add("accuracyLimited", bool: location.isReduced)
                json.add("isSimulatedBySoftware", bool: location.flags & 2 != 0)
            }
        }
    }
#endif
