// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA
import TestSupport
import Testing

/// Frames `input` fed in `chunks`, returning the sentences as text and the statistics.
func frame(
    _ chunks: [[UInt8]], policy: ChecksumPolicy = .required, maximumLength: Int = 1024
) -> ([String], FramerStatistics) {
    var framer = NMEAFramer(configuration: .init(checksumPolicy: policy, maximumLength: maximumLength))
    var lines: [String] = []
    for chunk in chunks {
        chunk.withUnsafeBytes { raw in
            framer.append(raw) { lines.append(String(decoding: $0.line, as: UTF8.self)) }
        }
    }
    framer.finish { lines.append(String(decoding: $0.line, as: UTF8.self)) }
    return (lines, framer.statistics)
}

func frame(_ text: String, policy: ChecksumPolicy = .required, maximumLength: Int = 1024) -> (
    [String], FramerStatistics
) {
    frame([Array(text.utf8)], policy: policy, maximumLength: maximumLength)
}

@Suite("Framing a byte stream")
struct FramerTests {
    let gga = "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D"
    let rmc = "$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D"

    @Test func acceptsCRLFLFAndLoneCR() {
        let (lines, statistics) = frame(gga + "\r\n" + rmc + "\n" + gga + "\r" + rmc)
        #expect(lines == [gga, rmc, gga, rmc])
        #expect(statistics.sentences == 4)
        #expect(statistics.rejected == 0)
        #expect(statistics.skippedBytes == 0)
    }

    @Test func lowercaseChecksumIsAccepted() {
        let (lines, _) = frame("$GPGSA,A,1,,,,,,,,,,,,,,,*1e\r\n")
        #expect(lines.count == 1)
    }

    @Test func doubledDollarIsNotAnError() {
        let (lines, statistics) = frame("$" + gga + "\r\n")
        #expect(lines == [gga])
        #expect(statistics.rejected == 0)
    }

    @Test func binaryBetweenSentencesIsSkippedAndCounted() {
        var bytes: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x00, 0xFF]
        bytes += Array((gga + "\r\n").utf8)
        bytes += [0xA0, 0xA2, 0x00, 0x18]
        bytes += Array((rmc + "\r\n").utf8)
        let (lines, statistics) = frame([bytes])
        #expect(lines == [gga, rmc])
        #expect(statistics.skippedBytes == 10)
    }

    @Test func aNewStartInsideASentenceRejectsTheTruncatedOne() {
        let truncated = String(gga.prefix(30))
        let (lines, statistics) = frame(truncated + rmc + "\r\n")
        #expect(lines == [rmc])
        #expect(statistics[.truncated] == 1)
    }

    @Test func binaryInsideASentenceRejectsIt() {
        var bytes = Array(gga.prefix(20).utf8)
        bytes += [0x00, 0x9F]
        bytes += Array(gga.dropFirst(20).utf8) + [13, 10]
        bytes += Array((rmc + "\r\n").utf8)
        let (lines, statistics) = frame([bytes])
        #expect(lines == [rmc])
        #expect(statistics[.invalidCharacter] == 1)
    }

    @Test func checksumRejectionsAreCountedByReason() {
        let badSum = String(gga.dropLast(2)) + "00"
        let noSum = String(gga.prefix(while: { $0 != "*" }))
        let shortSum = String(gga.dropLast(1))
        let (lines, statistics) = frame([badSum, noSum, shortSum, rmc].joined(separator: "\r\n") + "\r\n")
        #expect(lines == [rmc])
        #expect(statistics[.badChecksum] == 2)
        #expect(statistics[.missingChecksum] == 1)
    }

    @Test func lenientPolicyAcceptsAMissingChecksumButNotAWrongOne() {
        let badSum = String(gga.dropLast(2)) + "00"
        let noSum = String(gga.prefix(while: { $0 != "*" }))
        let (lines, statistics) = frame(badSum + "\r\n" + noSum + "\r\n", policy: .lenient)
        #expect(lines == [noSum])
        #expect(statistics[.badChecksum] == 1)
    }

    @Test func overlongLinesAreRejectedAndTheStreamRecovers() {
        let long = "$GPTXT," + String(repeating: "A", count: 300) + "*00"
        let (lines, statistics) = frame(long + "\r\n" + gga + "\r\n", maximumLength: 256)
        #expect(lines == [gga])
        #expect(statistics[.tooLong] == 1)
        // Longer than NMEA's 82 characters but under the cap: accepted.
        let (accepted, _) = frame(
            SentenceBuilder.sentence("GPTXT,01,01,02," + String(repeating: "B", count: 120)))
        #expect(accepted.count == 1)
    }

    @Test func lastSentenceWithoutLineEnd() {
        let (lines, _) = frame(gga + "\r\n" + rmc)
        #expect(lines == [gga, rmc])
        let (cut, statistics) = frame(gga + "\r\n" + String(rmc.prefix(40)))
        #expect(cut == [gga])
        #expect(statistics[.truncated] == 1)
    }

    @Test func trailingSpacesAfterChecksumAreTolerated() {
        let (lines, _) = frame(gga + "  \r\n")
        #expect(lines == [gga])
    }

    @Test func bodyExcludesStartAndChecksum() throws {
        var framer = NMEAFramer()
        var bodies: [String] = []
        framer.append(contentsOf: Array((gga + "\r\n").utf8)) {
            bodies.append(String(decoding: $0.body, as: UTF8.self))
        }
        #expect(bodies == [String(gga.dropFirst().dropLast(3))])
    }

    @Test func statisticsCountEveryByte() {
        let text = "noise" + gga + "\r\n"
        let (_, statistics) = frame(text)
        #expect(statistics.bytes == text.utf8.count)
        #expect(statistics.skippedBytes == 5)
    }
}

@Suite("The same output however the input is cut")
struct DripFeedTests {
    /// A stream with everything in it: good sentences, garbage, truncations, bad checksums,
    /// every line ending.
    static let stream: [UInt8] = {
        var bytes: [UInt8] = []
        let lines = [
            "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D\r\n",
            "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*33\n",
            "$GPGSV,3,1,12,17,72,207,32,28,59,095,31,06,35,347,25,01,29,132,23*7B\r",
            "$$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D\r\n",
            "$GPRMC,030720.000,A,3747.0875,S,17518.89",
            "$GPGGA,030720.000,3747.0875,S,17518.8938,E,1,08,1.1,59.8,M,23.7,M,,0000*70\r\n",
            "$GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5*34\r\n",
        ]
        for (index, line) in lines.enumerated() {
            bytes += Array(line.utf8)
            if index % 2 == 0 { bytes += [0xB5, 0x62, 0x24, 0x00, 0x10] }
        }
        var repeated: [UInt8] = []
        for _ in 0..<20 { repeated += bytes }
        return repeated
    }()

    @Test func byteByByteEqualsWhole() {
        let whole = frame([Self.stream])
        let single = frame(SentenceBuilder.chunks(Self.stream, sizes: [1]))
        #expect(single.0 == whole.0)
        #expect(single.1 == whole.1)
        #expect(whole.0.count == 100)
    }

    @Test(arguments: [1, 2, 3, 5, 8, 13, 21])
    func randomChunkSizesEqualWhole(seed: UInt64) {
        let whole = frame([Self.stream])
        let sizes = SentenceBuilder.randomSizes(count: 97, maximum: 150, seed: seed)
        let chunked = frame(SentenceBuilder.chunks(Self.stream, sizes: sizes))
        #expect(chunked.0 == whole.0)
        #expect(chunked.1 == whole.1)
    }
}
