// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NMEA
import TestSupport
import Testing

/// The framing rules read one byte at a time, as plainly as they can be written: the model the
/// framer's fast scanning must agree with on any input.
struct ReferenceFramer {
    struct Output: Equatable, CustomStringConvertible {
        var line: [UInt8]
        var body: [UInt8]
        var hasChecksum: Bool
        var description: String { String(decoding: line, as: UTF8.self) }
    }

    let policy: ChecksumPolicy
    let maximumLength: Int
    var output: [Output] = []
    var rejected: [RejectionReason: Int] = [:]
    var skipped = 0
    private var current: [UInt8]? = nil
    private var discarding = false

    init(policy: ChecksumPolicy, maximumLength: Int) {
        self.policy = policy
        self.maximumLength = maximumLength
    }

    mutating func feed(_ bytes: [UInt8]) {
        for byte in bytes { feed(byte) }
    }

    private mutating func feed(_ byte: UInt8) {
        let isStart = byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!")
        let isLineEnd = byte == 13 || byte == 10
        if var sentence = current {
            if isLineEnd {
                current = nil
                complete(sentence)
            } else if isStart {
                if sentence.count > 1 { rejected[.truncated, default: 0] += 1 }
                current = [byte]
            } else if byte < 0x20 || byte >= 0x7F {
                rejected[.invalidCharacter, default: 0] += 1
                current = nil
            } else if sentence.count >= maximumLength {
                rejected[.tooLong, default: 0] += 1
                current = nil
                discarding = true
            } else {
                sentence.append(byte)
                current = sentence
            }
        } else if discarding {
            if isLineEnd {
                discarding = false
            } else if isStart {
                discarding = false
                current = [byte]
            }
        } else if isStart {
            current = [byte]
        } else if !isLineEnd {
            skipped += 1
        }
    }

    mutating func finish() {
        guard let sentence = current else { return }
        current = nil
        if let star = sentence.lastIndex(of: UInt8(ascii: "*")), sentence.count - star >= 3 {
            complete(sentence)
        } else if sentence.count > 1 {
            rejected[.truncated, default: 0] += 1
        }
    }

    private mutating func complete(_ sentence: [UInt8]) {
        var line = sentence
        while line.count > 1 && line.last == UInt8(ascii: " ") { line.removeLast() }
        if let star = line.lastIndex(of: UInt8(ascii: "*")) {
            let digits = Array(line[(star + 1)...])
            let expected = line[1..<star].reduce(0, ^)
            guard digits.count == 2, let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16),
                value == expected
            else {
                rejected[.badChecksum, default: 0] += 1
                return
            }
            output.append(Output(line: line, body: Array(line[1..<star]), hasChecksum: true))
        } else if policy == .required {
            rejected[.missingChecksum, default: 0] += 1
        } else if line.count > 1 {
            output.append(Output(line: line, body: Array(line[1...]), hasChecksum: false))
        }
    }
}

@Suite("The framer against a byte-at-a-time model of its rules")
struct FramerModelTests {
    static let sentences = [
        "$GNRMC,080000.00,A,5222.38564,N,00453.55755,E,3.888,114.52,140326,,,A,V*06",
        "$GPGSV,3,1,10,10,47,257,31,13,70,232,37,15,11,031,23,17,09,214,26,1*6E",
        "$GNGSA,A,3,10,13,20,24,25,26,29,32,,,,,1.74,0.94,1.46,1*03",
        "$GNGGA,080000.00,5222.38564,N,00453.55755,E,1,23,0.94,12.0,M,46.9,M,,*70",
        "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26",
        "$PGRME,15.0,M,45.0,M,25.0,M*1C",
        "$GPTXT,01,01,02,ANTENNA OK*36",
        "$gpzda,201530.00,04,07,2002,00,00*40",
    ]

    /// Bytes at the edges of the framer's rules: controls, DEL, non-ASCII, and the characters it acts on.
    static let edgeBytes: [UInt8] = [
        0x00, 0x09, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0xB5, 0xFF, 0x21, 0x24, 0x2A, 0x2C,
    ]

    /// A stream of real sentences damaged in every way the framer has a rule for.
    static func damagedStream(seed: UInt64, sentences count: Int) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        for _ in 0..<count {
            var line = Array(sentences.randomElement(using: &random)!.utf8)
            switch Int.random(in: 0..<14, using: &random) {
            case 0: line[Int.random(in: 1..<line.count, using: &random)] ^= 0x01
            case 1: line.removeLast(Int.random(in: 1...3, using: &random))
            case 2:
                let byte = (edgeBytes + [UInt8.random(in: 0...255, using: &random)]).randomElement(
                    using: &random)!
                line.insert(byte, at: Int.random(in: 1..<line.count, using: &random))
            case 3: line.insert(UInt8(ascii: "$"), at: Int.random(in: 0..<line.count, using: &random))
            case 4: line += Array(repeating: UInt8(ascii: " "), count: Int.random(in: 1...3, using: &random))
            case 5: line.removeLast(3)
            case 6:
                line += Array(repeating: UInt8(ascii: "A"), count: Int.random(in: 30...90, using: &random))
            case 7: line.insert(UInt8(ascii: "*"), at: Int.random(in: 1..<line.count, using: &random))
            case 8:
                bytes += (0..<Int.random(in: 1...40, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            default: break
            }
            bytes += line
            bytes += [[13, 10], [10], [13], [13, 10], []].randomElement(using: &random)!
        }
        return bytes
    }

    static func frame(_ chunks: [[UInt8]], policy: ChecksumPolicy, maximumLength: Int) -> (
        [ReferenceFramer.Output], FramerStatistics
    ) {
        var framer = NMEAFramer(configuration: .init(checksumPolicy: policy, maximumLength: maximumLength))
        var output: [ReferenceFramer.Output] = []
        let collect = { (sentence: FramedSentence) in
            output.append(
                ReferenceFramer.Output(
                    line: Array(sentence.line), body: Array(sentence.body), hasChecksum: sentence.hasChecksum)
            )
        }
        for chunk in chunks { chunk.withUnsafeBytes { framer.append($0, collect) } }
        framer.finish(collect)
        return (output, framer.statistics)
    }

    @Test(arguments: [(1, 1024), (2, 40), (3, 82), (4, 16), (5, 1024), (6, 60)])
    func agreesWithTheModelHoweverTheStreamIsCut(seed: UInt64, maximumLength: Int) async {
        let stream = Self.damagedStream(seed: seed, sentences: 400)
        for policy in ChecksumPolicy.allCases {
            var model = ReferenceFramer(policy: policy, maximumLength: maximumLength)
            model.feed(stream)
            model.finish()
            let cuts = [
                [stream], SentenceBuilder.chunks(stream, sizes: [1]),
                SentenceBuilder.chunks(
                    stream, sizes: SentenceBuilder.randomSizes(count: 61, maximum: 100, seed: seed)),
            ]
            for chunks in cuts {
                await Task.yield()
                let (output, statistics) = Self.frame(chunks, policy: policy, maximumLength: maximumLength)
                #expect(output == model.output, "policy \(policy), \(chunks.count) chunks")
                for reason in RejectionReason.allCases {
                    #expect(statistics[reason] == model.rejected[reason, default: 0], "\(reason), \(policy)")
                }
                #expect(statistics.skippedBytes == model.skipped)
                #expect(statistics.sentences == model.output.count)
                #expect(statistics.bytes == stream.count)
            }
            #expect(
                model.output.count + model.rejected[.tooLong, default: 0] > 100,
                "the stream must hold many sentences")
        }
    }
}
