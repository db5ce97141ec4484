// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA
import TestSupport
import Testing

@Suite("The framer, drip-fed")
struct FramerDripFeedTests {
    @Test("A log with faults frames to the same sentences and counts however it is cut")
    func faultyLog() async throws {
        struct Framed: Equatable {
            var lines: [String] = []
            var checksummed = 0
        }
        let bytes = try Fixtures.bytes("drive-faults.nmea")
        let framed = await verifyDripFeed(bytes, make: { NMEAFramer() }, into: Framed()) { result, sentence in
            result.lines.append(String(decoding: sentence.line, as: UTF8.self))
            if sentence.hasChecksum { result.checksummed += 1 }
        }
        #expect(framed.lines.count == 5102)
    }

    @Test("A last sentence without its line end is delivered by finish")
    func lastLine() async {
        let bytes = Array(SentenceBuilder.sentence("GPGGA,080000.00,,,,,0,00,99.99,,,,,,", lineEnd: "").utf8)
        let lines = await verifyDripFeed(bytes, make: { NMEAFramer() }, into: [String]()) {
            $0.append(String(decoding: $1.line, as: UTF8.self))
        }
        #expect(lines.count == 1)
    }
}
