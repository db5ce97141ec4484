// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import TestSupport
import Testing

/// What `gpsloc decode` reads: several files, directories, gzip logs; and what it refuses.
@Suite("gpsloc decode's inputs, the built binary")
struct DecodeInputsTests {
    static let drive = Fixtures.url("drive-1hz.nmea").path

    /// The test's directories, removed when it ends.
    let scratch = ScratchDirectories("decode-inputs")

    /// `data` compressed by the gzip program, as logs are kept.
    static func gzip(_ path: String) async throws -> String {
        let result = try await Runner.run(["-k", "-f", path], executable: URL(fileURLWithPath: "/bin/gzip"))
        #expect(result.status == 0, "\(result.standardError)")
        return path + ".gz"
    }

    @Test("a gzip log decodes to the same records as the log itself, a multi-member one to both")
    func gzipLogs() async throws {
        let directory = try scratch.make()
        let plain = directory + "/drive.nmea"
        try FileManager.default.copyItem(atPath: Self.drive, toPath: plain)
        let compressed = try await Self.gzip(plain)
        let expected = try await Runner.run(["decode", plain]).standardOutput
        let inflated = try await Runner.run(["decode", compressed])
        #expect(inflated.status == 0)
        #expect(inflated.standardOutput == expected)
        #expect(inflated.standardError.contains("6600 sentences, 0 rejected"))

        // `cat a.gz b.gz` is a valid gzip file of both.
        let members = try Data(contentsOf: URL(fileURLWithPath: compressed))
        let both = try await Runner.run(["decode", "-"], input: members + members)
        #expect(both.standardOutput == expected + expected)

        // A truncated one: what came before the cut is kept, and the error says why it stopped.
        let truncated = try await Runner.run(["decode", "-"], input: members.prefix(members.count / 2))
        #expect(truncated.status == 1)
        #expect(truncated.standardError.contains("its gzip data ends early"))
        let kept = truncated.standardOutput.split(separator: "\n")
        #expect(kept.count > 50 && expected.hasPrefix(kept.dropLast().joined(separator: "\n")))
    }

    /// `path` compressed by `program` (xz or zstd, from Debian), keeping the original.
    static func compress(_ path: String, with program: String) async throws -> String {
        let executable = URL(fileURLWithPath: "/usr/bin/" + program)
        try #require(
            FileManager.default.isExecutableFile(atPath: executable.path),
            "\(program) is missing: run tools/test, or apt-get install \(program == "xz" ? "xz-utils" : program)"
        )
        let result = try await Runner.run(["-k", "-f", "-q", path], executable: executable)
        #expect(result.status == 0, "\(result.standardError)")
        return path + (program == "xz" ? ".xz" : ".zst")
    }

    @Test(
        "xz and zstd logs decode to the same records as the log itself; concatenated, to both; cut, to an error",
        arguments: ["xz", "zstd"])
    func xzAndZstd(program: String) async throws {
        let directory = try scratch.make()
        let plain = directory + "/drive.nmea"
        try FileManager.default.copyItem(atPath: Self.drive, toPath: plain)
        let compressed = try await Self.compress(plain, with: program)
        let expected = try await Runner.run(["decode", plain]).standardOutput
        let decoded = try await Runner.run(["decode", compressed])
        #expect(decoded.status == 0, "\(decoded.standardError)")
        #expect(decoded.standardOutput == expected)
        #expect(decoded.standardError.contains("6600 sentences, 0 rejected"))

        let bytes = try Data(contentsOf: URL(fileURLWithPath: compressed))
        let both = try await Runner.run(["decode", "-"], input: bytes + bytes)
        #expect(both.status == 0)
        #expect(both.standardOutput == expected + expected)

        let truncated = try await Runner.run(["decode", "-"], input: bytes.prefix(bytes.count * 2 / 3))
        #expect(truncated.status == 1)
        #expect(
            truncated.standardError.contains("its \(program) data ends early"), "\(truncated.standardError)")
        // Every epoch before the cut, the last one as far as it went.
        let kept = truncated.standardOutput.split(separator: "\n")
        #expect(kept.count > 50 && expected.hasPrefix(kept.dropLast().joined(separator: "\n")))

        var damaged = bytes
        damaged.append(contentsOf: Array("not compressed at all".utf8))
        let trailing = try await Runner.run(["decode", "-"], input: damaged)
        #expect(trailing.status == 1)
        #expect(
            trailing.standardError.contains("its \(program) data is damaged"), "\(trailing.standardError)")
        #expect(trailing.standardOutput == expected)
    }

    @Test(
        "formats it cannot read are refused at once with the command that helps",
        arguments: [
            (Array("BZh9".utf8), "is bzip2-compressed; this build reads gzip, xz and zstd: bzip2 -dc"),
            ([0x50, 0x4B, 0x03, 0x04], "is a zip archive; this build reads gzip, xz and zstd: unzip -p"),
            ([0x7F, 0x45, 0x4C, 0x46], "is an executable (ELF), not an NMEA log"),
            (Array("OCLJ".utf8), "is a sealed track journal; give its private key with --key FILE"),
        ])
    func refusedFormats(_ magic: [UInt8], _ says: String) async throws {
        let path = try scratch.make() + "/log.bin"
        try Data(magic + Array(repeating: 0x41, count: 4000)).write(to: URL(fileURLWithPath: path))
        let result = try await Runner.run(["decode", path])
        #expect(result.status == 1)
        #expect(result.standardError.contains(says), "\(result.standardError)")
        #expect(!result.standardError.contains("Usage:"))
    }

    @Test("bytes that hold no NMEA are an error with a hint, not a quiet empty success")
    func noNMEA() async throws {
        var generator = SeededGenerator(seed: 3)
        let noise = Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let result = try await Runner.run(["decode", "-"], input: noise)
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                "no NMEA sentences in standard input's 20000 bytes; is it an NMEA log?"))
        let bare = String(
            repeating: "$GPGGA,080000.00,5222.3856,N,00453.5576,E,1,08,0.9,12.0,M,46.9,M,,\r\n", count: 20)
        let unchecked = try await Runner.run(["decode", "-"], input: Data(bare.utf8))
        #expect(
            unchecked.standardError.contains("count with --checksum lenient"), "\(unchecked.standardError)")
    }

    @Test("one sentence and one byte are counted in the singular")
    func singularCounts() async throws {
        let sentence = "$GPGGA,080000.00,5222.3856,N,00453.5576,E,1,08,0.9,12.0,M,46.9,M,,*51\r\n"
        let one = try await Runner.run(["decode", "-"], input: Data(sentence.utf8))
        #expect(
            one.standardError.contains(
                "standard input: \(sentence.utf8.count) bytes, 1 sentence, 0 rejected"),
            "\(one.standardError)")
        let byte = try await Runner.run(["decode", "-"], input: Data([0x41]))
        #expect(byte.status == 1)
        #expect(
            byte.standardError.contains("no NMEA sentences in standard input's 1 byte;"),
            "\(byte.standardError)")
    }

    @Test("several files and a directory, in order; one that fails stops nothing and makes the status 1")
    func severalFiles() async throws {
        let directory = try scratch.make()
        try FileManager.default.createDirectory(atPath: directory + "/b", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.drive, toPath: directory + "/b/2.nmea")
        try FileManager.default.copyItem(atPath: Self.drive, toPath: directory + "/1.nmea")
        _ = try await Self.gzip(directory + "/1.nmea")
        try FileManager.default.removeItem(atPath: directory + "/1.nmea")
        try Data("ignored".utf8).write(to: URL(fileURLWithPath: directory + "/.hidden"))
        let one = try await Runner.run(["decode", Self.drive]).standardOutput
        let empty = try scratch.make()
        let result = try await Runner.run([
            "decode", "--recursive", empty, directory, "/nonexistent.nmea", Self.drive,
        ])
        #expect(result.status == 1)
        #expect(result.standardOutput == one + one + one)
        let named = result.standardError.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(
            named == [
                "gpsloc decode: error: the directory '\(empty)' holds no log files",
                "\(directory)/1.nmea.gz: 408009 bytes, 6600 sentences, 0 rejected",
                "\(directory)/b/2.nmea: 408009 bytes, 6600 sentences, 0 rejected",
                "gpsloc decode: error: cannot open '/nonexistent.nmea': No such file or directory (check the path; use '-' to read standard input)",
                "\(Self.drive): 408009 bytes, 6600 sentences, 0 rejected",
            ], "\(result.standardError)")
    }

    @Test(
        "a directory's README, binary file, FIFO, device link, subdirectory, linked directory and dangling link are named as skipped, never decoded"
    )
    func hostileDirectory() async throws {
        let directory = try scratch.make()
        try FileManager.default.copyItem(atPath: Self.drive, toPath: directory + "/drive.nmea")
        try FileManager.default.createDirectory(
            atPath: directory + "/older", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.drive, toPath: directory + "/older/drive.nmea")
        #expect(mkfifo(directory + "/receiver.fifo", 0o600) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/zero", withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/loop", withDestinationPath: directory)
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/gone", withDestinationPath: "/no/such/log")
        // Beside the logs, a README and a binary file: no logs, named and passed over.
        try Data("# Drives\n\nPrices in $USD, see notes.\n".utf8).write(
            to: URL(fileURLWithPath: directory + "/README.md"))
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(
            to: URL(fileURLWithPath: directory + "/firmware.bin"))
        let one = try await Runner.run(["decode", Self.drive, "--format", "csv"]).standardOutput
        // Opening the FIFO or /dev/zero would block or never end: the timeout would say so (124).
        let timeout = URL(fileURLWithPath: "/usr/bin/timeout")
        let flat = try await Runner.run(
            ["60", Runner.gpsloc.path, "decode", directory, "--format", "csv"], executable: timeout)
        #expect(flat.status == 0, "\(flat.standardError)")
        #expect(flat.standardOutput == one)
        let skipped = flat.standardError.split(separator: "\n").filter {
            $0.hasPrefix("gpsloc decode: skipped")
        }
        let expected: [String] = [
            "gpsloc decode: skipped \(directory)/README.md: not a log: its 37 bytes hold no NMEA sentence "
                + "(name it to decode it anyway)",
            "gpsloc decode: skipped \(directory)/firmware.bin: not a log: its 4096 bytes hold no NMEA "
                + "sentence (name it to decode it anyway)",
            "gpsloc decode: skipped \(directory)/gone: a link to nothing",
            "gpsloc decode: skipped \(directory)/loop: a link to a directory, which a walk does not follow",
            "gpsloc decode: skipped \(directory)/older: a directory (add --recursive to read the logs in it)",
            "gpsloc decode: skipped \(directory)/receiver.fifo: a FIFO; only regular files are read from a "
                + "directory (name it to read it)",
            "gpsloc decode: skipped \(directory)/zero: a link to a character device; only regular files are "
                + "read from a directory (name it to read it)",
        ]
        #expect(skipped.map(String.init) == expected, "\(flat.standardError)")
        let deep = try await Runner.run(
            ["60", Runner.gpsloc.path, "decode", "--recursive", directory, "--format", "csv", "--quiet"],
            executable: timeout)
        #expect(deep.status == 0, "\(deep.standardError)")
        let records = one.split(separator: "\n").dropFirst()
        #expect(deep.standardOutput.split(separator: "\n").count == 1 + 2 * records.count)
        #expect(deep.standardError.isEmpty, "\(deep.standardError)")
    }
}
