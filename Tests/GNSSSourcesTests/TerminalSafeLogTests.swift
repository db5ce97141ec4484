// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSSSources
import Logging
import Testing

/// A log line keeps what a peer said visible and harmless.
@Suite("Log lines from outside")
struct TerminalSafeLogTests {
    final class Recorder: LogHandler, @unchecked Sendable {
        var lines: [String] = []
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let metadata = event.metadata?.map { "\($0.key)=\($0.value)" }.joined(separator: " ") ?? ""
            lines.append("\(event.message) \(metadata)")
        }
    }

    @Test("control characters in a message or its metadata are written as escapes")
    func escaped() {
        let recorder = Recorder()
        let logger = Logger(label: "test") { _ in TerminalSafeLogHandler(recorder) }
        logger.notice("gpsd says: \u{1B}]0;owned\u{7}hi", metadata: ["device": "\u{1B}[2J/dev/ttyUSB0"])
        #expect(recorder.lines == [#"gpsd says: \u{1B}]0;owned\u{7}hi device=\u{1B}[2J/dev/ttyUSB0"#])
    }
}
