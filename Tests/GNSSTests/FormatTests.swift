// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NMEA
import TestSupport
import Testing

@testable import GNSS

@Suite("Text formats")
struct FormatTests {
    /// Fixed decimals against `%.*f` over every magnitude a report holds, each number of
    /// decimals gpsd's reports use, and whole numbers (satellite angles and signals): the same
    /// text, but where the value lies within a rounding error of a tie, which `%.*f` settles on the
    /// exact binary value and this half away from zero.
    @Test func fixedDecimalsMatchPrintf() async {
        var random = SeededGenerator(seed: 7)
        var values: [Double] = [0, -0.0, 0.5, 1.5, -2.5, 99.95, 359.0, 12.0, 0.000_4, -0.000_4, 1e8, 9.9e7]
        for _ in 0..<20000 {
            let magnitude = Double.random(in: -4...9, using: &random)
            let sign: Double = Bool.random(using: &random) ? -1 : 1
            values.append(sign * pow(10, magnitude) * Double.random(in: 1..<10, using: &random))
            values.append(Double(Int.random(in: 0...400, using: &random)))
        }
        var yielder = Yielder()
        for value in values {
            await yielder.giveWay()
            for decimals in [0, 1, 2, 3, 4, 6, 9] {
                let ours = formatFixed(value, decimals)
                let reference = String(format: "%.*f", decimals, value)
                if ours == reference || ours == reference.replacingOccurrences(of: "-", with: "") { continue }
                let scaled = abs(value) * pow(10, Double(decimals))
                let distance = abs(scaled - scaled.rounded(.down) - 0.5)
                #expect(
                    distance < 1e-6 * max(1, scaled),
                    "\(value) with \(decimals): \(ours), printf \(reference)")
            }
        }
    }

    /// A value rounded to a number of decimals is the value its fixed text reads back as, and it
    /// writes the same text again: what a reader holds at the text's resolution round-trips.
    @Test func roundedToFixedIsWhatTheTextReadsBackAs() async {
        var random = SeededGenerator(seed: 33)
        var values: [Double] = [
            0, -0.0, 0.0004, -0.0004, 92.337_203_685_477_58, -4.25, 1e300, -1e300, 8.9e15, 4.06e13,
        ]
        for _ in 0..<20000 {
            let magnitude = Double.random(in: -10...16, using: &random)
            let sign: Double = Bool.random(using: &random) ? -1 : 1
            values.append(sign * pow(10, magnitude) * Double.random(in: 1..<10, using: &random))
        }
        var yielder = Yielder()
        for value in values {
            await yielder.giveWay()
            for decimals in [0, 1, 2, 3, 6, 9, 12] {
                let text = formatFixed(value, decimals)
                let rounded = roundedToFixed(value, decimals)
                #expect(Double(text) == rounded, "\(value) with \(decimals): \(text) against \(rounded)")
                #expect(formatFixed(rounded, decimals) == text, "\(value) with \(decimals)")
                #expect(roundedToFixed(rounded, decimals) == rounded, "\(value) with \(decimals)")
            }
        }
    }

    /// ISO 8601 times against a reference written with `String(format:)`, over four centuries.
    @Test func iso8601MatchesAReferenceFormatter() {
        var random = SeededGenerator(seed: 12)
        var moments: [Int64] = [0, -1, 1, 499_999, 500_000, 999_999_999, -86_400_000_000_000, -500_001]
        for _ in 0..<5000 {
            moments.append(Int64.random(in: (Int64.min / 2)...(Int64.max / 2), using: &random))
        }
        func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
            let quotient = a / b
            return a % b != 0 && a < 0 ? quotient - 1 : quotient
        }
        for nanoseconds in moments {
            let timestamp = UTCTimestamp(nanosecondsSinceEpoch: nanoseconds)
            let milliseconds = floorDivide(nanoseconds + 500_000, 1_000_000)
            let days = floorDivide(milliseconds, 86_400_000)
            let ofDay = milliseconds - days * 86_400_000
            let date = CivilDate(daysSinceEpoch: Int(days))
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", date.year, date.month, date.day,
                Int(ofDay / 3_600_000), Int(ofDay / 60_000 % 60), Int(ofDay / 1000 % 60), Int(ofDay % 1000))
            #expect(timestamp.iso8601 == expected, "\(nanoseconds)")
        }
    }

    /// Text that does not fit the room first offered is written again with more, and what was in
    /// the buffer before stays.
    @Test func writersThatRunOutOfRoomWriteAgain() {
        var output = Array("kept ".utf8)
        let text = (0..<3000).map { String($0 % 10) }.joined()
        ByteCursor.append(to: &output, estimate: 8) { cursor in
            for byte in text.utf8 {
                guard cursor.hasRoom(for: 1) else { return }
                cursor.put(byte)
            }
        }
        #expect(String(decoding: output, as: UTF8.self) == "kept " + text)

        var json: [UInt8] = []
        JSONObjectWriter.append(to: &json, estimate: 1) { json in
            json.add("class", string: "TPV")
            json.add("text", string: "tab\tquote\"\u{1}")
            json.add("time", time: UTCTimestamp(nanosecondsSinceEpoch: 1_234_567_890_123_456_789))
            json.add("n", integer: Int.min)
            json.add("x", -1e300, decimals: 3)
            json.add("y", 2.5, decimals: 2)
            json.openArray("list")
            for index in 0..<3 {
                json.openObject()
                json.add("i", integer: index)
                json.add("ok", bool: index == 1)
                json.closeObject()
            }
            json.closeArray()
        }
        #expect(
            String(decoding: json, as: UTF8.self)
                == #"{"class":"TPV","text":"tab\tquote\"\u0001","time":"2009-02-13T23:31:30.123Z","n":-9223372036854775808,"#
                + #""x":-1e+300,"y":2.50,"list":[{"i":0,"ok":false},{"i":1,"ok":true},{"i":2,"ok":false}]}"#)
    }
}
