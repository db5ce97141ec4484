import ArgumentParser
import GNSS
import GNSSSources
import NMEA

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode an NMEA log into one record per receiver epoch.",
        discussion: """
            Reads FILE (or standard input for '-' or no FILE), skips '#' comment lines, and prints \
            one record per epoch on standard output. A summary (bytes, sentences by type, rejected \
            sentences by reason, epochs) goes to standard error.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case gpsd, jsonl, csv, none
    }

    @Argument(help: "The NMEA log to decode; '-' or nothing for standard input.")
    var file: String?

    @Option(help: "Output: gpsd (gpsd's TPV and SKY JSON), jsonl (one fix record per line), csv, or none.")
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

    @Flag(name: .shortAndLong, help: "Do not print the summary.")
    var quiet = false

    func validate() throws {
        guard (16...NMEAFramer.Configuration.maximumLengthLimit).contains(maximumLength) else {
            throw ValidationError(
                "--max-length must be from 16 to \(NMEAFramer.Configuration.maximumLengthLimit) "
                    + "(NMEA sentences are up to 82 bytes; try 1024)")
        }
    }

    func run() throws {
        let source = ReplaySource(
            path: file, framing: .init(checksumPolicy: checksum, maximumLength: maximumLength),
            referenceDate: referenceDate.map { .recordedOn($0.date) })
        var output = OutputBuffer()
        if format == .csv { output.line(FixFormat.csvHeader) }
        let format = self.format
        let statistics: DecodeStatistics
        do {
            statistics = try source.decodeAll { fix in
                switch format {
                case .gpsd: output.append { FixFormat.appendGPSDReports(fix, to: &$0) }
                case .jsonl:
                    output.append {
                        FixFormat.appendJSONRecord(fix, to: &$0)
                        $0.append(10)
                    }
                case .csv: output.line(FixFormat.csvRow(fix))
                case .none: break
                }
            }
        } catch let error as SourceError {
            // Not a usage mistake: say what went wrong, without the usage text, and exit 1.
            output.flush()
            printError("gpsloc decode: error: \(error)")
            throw ExitCode.failure
        }
        output.flush()
        if !quiet { printError(Self.summary(statistics, name: file ?? "standard input")) }
    }

    static func summary(_ statistics: DecodeStatistics, name: String) -> String {
        let framer = statistics.framer
        let bytes = statistics.bytesRead ?? framer.bytes
        var lines = ["\(name): \(bytes) bytes, \(framer.sentences) sentences, \(framer.rejected) rejected"]
        let types = statistics.sentencesByType.map { "\($0.type) \($0.count)" }.joined(separator: ", ")
        lines.append("  sentences: " + (types.isEmpty ? "none" : types))
        let reasons = RejectionReason.allCases.filter { framer[$0] > 0 }.map { "\($0) \(framer[$0])" }
        lines.append("  rejected: " + (reasons.isEmpty ? "none" : reasons.joined(separator: ", ")))
        if statistics.unparsable > 0 { lines.append("  unparsable addresses: \(statistics.unparsable)") }
        lines.append("  skipped bytes: \(framer.skippedBytes), comment lines: \(statistics.commentLines)")
        lines.append("  epochs: \(statistics.fixes), with position: \(statistics.positionFixes)")
        return lines.joined(separator: "\n")
    }
}
