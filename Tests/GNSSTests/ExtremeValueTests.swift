// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NMEA
import TestSupport
import Testing

/// Well-formed sentences with correct checksums and extreme field values: each once killed any
/// program that decoded it. They are data like any other.
@Suite("Extreme values in well-formed sentences")
struct ExtremeValueTests {
    static func decode(_ bodies: [String]) -> [Fix] {
        var decoder = FixDecoder()
        var fixes: [Fix] = []
        let bytes = Array(bodies.map { SentenceBuilder.sentence($0) }.joined().utf8)
        decoder.decode(bytes) { fixes.append($0) }
        decoder.finish { fixes.append($0) }
        return fixes
    }

    @Test(
        "A date beyond what 64-bit nanoseconds hold gives a fix without a time",
        arguments: [
            "GPZDA,080000.00,14,03,2263,00,00", "GPZDA,080000.00,14,03,9999,00,00",
            "GPZDA,080000.00,01,01,0000,00,00",
        ])
    func farYears(zda: String) {
        let fixes = Self.decode([zda, "GPGGA,080000.00,5222.38610,N,00453.55600,E,1,08,0.9,12.0,M,46.9,M,,"])
        #expect(!fixes.isEmpty)
        #expect(fixes.allSatisfy { $0.time == nil })
        #expect(fixes.contains { $0.latitude != nil })
    }

    @Test(
        "Coordinates with as many decimals as a field can hold are read, not trapped on",
        arguments: [
            "GPGLL,5222.386100000000000000,N,00453.556000000000000000,E,080000.00,A,A",
            "GPGLL,9999.999999999999999999,N,99999.99999999999999999,E,080000.00,A,A",
            "GPGLL,59.99999999999999999,S,5.999999999999999999,W,080000.00,A,A",
            "GPGGA,080000.00,5959.99999999999999999,S,17959.9999999999999999,W,1,08,0.9,12.0,M,46.9,M,,",
        ])
    func manyDecimals(body: String) {
        _ = Self.decode([body])
        let sentence = try? NMEASentence.parse(SentenceBuilder.sentence(body, lineEnd: ""))
        #expect(sentence != nil)
    }

    @Test("A coordinate with 17 decimals converts to the degrees it says")
    func seventeenDecimals() throws {
        let body = "GPGLL,00.12345678901234567,N,00453.556,E,080000.00,A,A"
        guard case .gll(let gll) = try NMEASentence.parse(SentenceBuilder.sentence(body, lineEnd: "")) else {
            Issue.record("not a GLL")
            return
        }
        let latitude = try #require(gll.latitude?.degrees)
        #expect(abs(latitude - 0.12345678901234567 / 60) < 1e-15)
    }

    @Test("Timestamps out of range are nil, from a date or from gpsd's text")
    func timestampRange() {
        #expect(UTCTimestamp(date: CivilDate(year: 2263, month: 1, day: 1), nanosecondsOfDay: 0) == nil)
        #expect(UTCTimestamp(date: CivilDate(year: 1600, month: 1, day: 1), nanosecondsOfDay: 0) == nil)
        #expect(UTCTimestamp(date: CivilDate(year: 2261, month: 1, day: 1), nanosecondsOfDay: 0) != nil)
        #expect(UTCTimestamp(iso8601: "2263-04-11T23:47:16.855Z") == nil)
        #expect(UTCTimestamp(iso8601: "0000-01-01T00:00:00.000Z") == nil)
        #expect(UTCTimestamp(iso8601: "2024-06-09T00:07:05.000Z") != nil)
    }
}
