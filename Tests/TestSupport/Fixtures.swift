// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS

/// Where test data lives.
public enum Fixtures {
    /// The package's root folder.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// The project's own fixtures (`fixtures/`).
    public static func url(_ name: String) -> URL {
        packageRoot.appendingPathComponent("fixtures").appendingPathComponent(name)
    }

    /// The contents of one of the project's own fixtures.
    public static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(name)))
    }

    /// gpsd's regression corpus: `$GPSD_FIXTURES` if set, else `../shared/fixtures/gpsd` beside
    /// the package. `nil` when neither exists.
    public static var gpsdCorpus: URL? {
        let candidates = [
            ProcessInfo.processInfo.environment["GPSD_FIXTURES"].map { URL(fileURLWithPath: $0) },
            packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/gpsd"),
        ].compactMap { $0 }
        return candidates.first { url in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
    }

    /// The gpsd logs (`NAME.log` with a `NAME.log.chk` beside it), sorted by name.
    /// What a test that needs gpsd's corpus records when it is not there.
    public static let gpsdCorpusMissing = """
        gpsd's regression corpus was not found: expected ../shared/fixtures/gpsd beside the \
        package, or a directory named by GPSD_FIXTURES. The oracle did not run.
        """

    public static func gpsdLogs() throws -> [URL] {
        guard let corpus = gpsdCorpus else { return [] }
        return try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "log" }
            .filter { FileManager.default.fileExists(atPath: $0.path + ".chk") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

/// The first `epochs` epochs of the 1 Hz drive, RMC and GGA only (small enough to pace at 4800
/// baud), and the fixes `gpsloc decode` makes of them.
public func driveSample(epochs: Int, allSentences: Bool = false) throws -> (bytes: [UInt8], fixes: [Fix]) {
    // Read as bytes, line by line, only as far as the epochs asked for: a quarter of the suite's
    // tests take a sample, and splitting the whole 400 kB log into characters for each held a
    // thread of the test pool for a fifth of a second.
    let file = try Fixtures.bytes("drive-1hz.nmea")
    let kind = { (line: ArraySlice<UInt8>, name: String) in line.dropFirst(3).starts(with: name.utf8) }
    var bytes: [UInt8] = []
    var seen = 0
    var start = file.startIndex
    while start < file.endIndex {
        let end = file[start...].firstIndex(of: UInt8(ascii: "\n")) ?? file.endIndex
        var line = file[start..<end]
        start = end + 1
        while line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
        if kind(line, "RMC") {
            seen += 1
            if seen > epochs { break }
        }
        if allSentences || kind(line, "RMC") || kind(line, "GGA") {
            bytes += line
            bytes += [13, 10]
        }
    }
    var decoder = FixDecoder()
    var fixes: [Fix] = []
    decoder.decode(bytes) { fixes.append($0) }
    decoder.finish { fixes.append($0) }
    return (bytes, fixes)
}
