// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import GNSSSimulation
import NMEA
import TestSupport
import Testing

/// Decodes `lines` (sentences without checksums; the builder adds them) and returns the fixes,
/// each with the index of the line after which it was handed out.
func assemble(
    _ lines: [String], referenceDate: ReferenceDate? = .recordedOn(CivilDate(year: 2014, month: 12, day: 31))
) -> [(fix: Fix, after: Int)] {
    var decoder = FixDecoder(referenceDate: referenceDate)
    var result: [(Fix, Int)] = []
    for (index, line) in lines.enumerated() {
        decoder.decode(Array(SentenceBuilder.sentence(line).utf8)) { result.append(($0, index)) }
    }
    decoder.finish { result.append(($0, lines.count)) }
    return result
}

/// One bu353-style epoch: GGA, GSA, RMC at `second` past 03:07, moving north.
func epoch(_ second: Int, minutes: String = "3747.0873", speed: String = "0.69") -> [String] {
    let time = "0307" + (second < 10 ? "0" : "") + String(second) + ".000"
    return [
        "GPGGA,\(time),\(minutes),S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000",
        "GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5",
        "GPRMC,\(time),A,\(minutes),S,17518.8938,E,\(speed),181.39,311214,,,A",
    ]
}

@Suite("Fix assembly")
struct AssemblerTests {
    @Test func oneFixPerEpochWithEverySentenceMerged() throws {
        let fixes = assemble(epoch(19) + epoch(20) + epoch(21))
        #expect(fixes.count == 3)
        let first = try #require(fixes.first?.fix)
        #expect(first.time?.iso8601 == "2014-12-31T03:07:19.000Z")
        #expect(first.mode == .threeDimensional)
        #expect(first.status == .gps)
        #expect(abs(first.latitude! - -37.784788333) < 1e-9)
        #expect(first.altitudeMSL == 59.9)
        #expect(abs(first.altitudeHAE! - 83.6) < 1e-9)
        #expect(abs(first.speed! - 0.69 * 1852 / 3600) < 1e-12)
        #expect(first.course == 181.39)
        #expect(first.dop.hdop == 1.1 && first.dop.pdop == 1.8 && first.dop.vdop == 1.5)
        #expect(first.satellitesUsed == 8)
        #expect(first.sentenceCount == 3)
    }

    @Test func onceLearnedAnEpochIsHandedOutAtItsLastSentence() {
        var lines: [String] = []
        for second in 10..<16 { lines += epoch(second) }
        let fixes = assemble(lines)
        #expect(fixes.count == 6)
        // The first epochs close when the next one starts; after two agreeing epochs the fix
        // comes with the epoch's own RMC, without waiting for the next GGA.
        let late = fixes.prefix(3).map(\.after)
        #expect(late == [3, 6, 9])
        let prompt = fixes.dropFirst(3).map(\.after)
        #expect(prompt == [11, 14, 17])
    }

    @Test func endOfInputFlushesTheLastEpoch() {
        let fixes = assemble(epoch(19) + Array(epoch(20).prefix(1)))
        #expect(fixes.count == 2)
        #expect(fixes.last?.fix.time?.iso8601 == "2014-12-31T03:07:20.000Z")
        #expect(fixes.last?.fix.speed == nil || fixes.last?.fix.speedIsDerived == true)
    }

    @Test func dateOfAnRMCLaterInTheEpochDatesTheEarlierGGA() throws {
        let fixes = assemble(epoch(19))
        #expect(try #require(fixes.first).fix.time?.date == CivilDate(year: 2014, month: 12, day: 31))
    }

    @Test func noDateMeansNoTimestampButTheTimeOfDayIsKept() throws {
        let fixes = assemble([
            "GPGGA,120000.00,4807.038,N,01131.324,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,120001.00,4807.038,N,01131.324,E,1,08,0.9,545.4,M,46.9,M,,",
        ])
        let fix = try #require(fixes.first?.fix)
        #expect(fix.time == nil)
        #expect(fix.timeOfDay == NMEATime(hour: 12, minute: 0, second: 0, nanoseconds: 0, fractionDigits: 2))
        #expect(fix.mode == .threeDimensional)
    }

    @Test(arguments: [
        ("010170", 1970), ("311268", 2068), ("010169", 1969), ("311299", 1999), ("010100", 2000),
    ])
    func twoDigitYearsPivotAt1969(date: String, year: Int) throws {
        let fixes = assemble(
            ["GPRMC,120000,A,4807.038,N,01131.324,E,0.0,0.0,\(date),,,A"], referenceDate: nil)
        #expect(try #require(fixes.first).fix.time?.date.year == year)
    }

    @Test func midnightRollsTheDateOver() throws {
        let fixes = assemble([
            "GPRMC,235959.00,A,4807.038,N,01131.324,E,0.0,0.0,311226,,,A",
            "GPGGA,000000.00,4807.038,N,01131.324,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPGGA,000001.00,4807.038,N,01131.324,E,1,08,0.9,545.4,M,46.9,M,,",
        ])
        #expect(
            fixes.map { $0.fix.time?.iso8601 ?? "-" } == [
                "2026-12-31T23:59:59.000Z", "2027-01-01T00:00:00.000Z", "2027-01-01T00:00:01.000Z",
            ])
    }

    @Test func withoutADateAnOldLogIsTakenForARolledOverReceiver() throws {
        // The default reference is a lower bound; a 2014 date is 1024 weeks off from it.
        let fixes = assemble(epoch(19), referenceDate: FixAssembler.defaultReferenceDate)
        #expect(fixes.first?.fix.time?.iso8601 == "2034-08-16T03:07:19.000Z")
    }

    @Test func weekRolloverIsUndoneAgainstTheReferenceDate() throws {
        // A receiver with the 1024-week bug reports 1999-08-22 on 2019-04-07.
        let line = "GPRMC,000430.00,A,4808.9993,N,01135.0798,E,0.1,0.0,220899,,,A"
        let recorded = assemble([line], referenceDate: .recordedOn(CivilDate(year: 2019, month: 4, day: 6)))
        #expect(recorded.first?.fix.time?.iso8601 == "2019-04-07T00:04:30.000Z")
        let lowerBound = assemble([line], referenceDate: .notBefore(CivilDate(year: 2026, month: 11, day: 1)))
        #expect(lowerBound.first?.fix.time?.iso8601 == "2019-04-07T00:04:30.000Z")
        let off = assemble([line], referenceDate: nil)
        #expect(off.first?.fix.time?.iso8601 == "1999-08-22T00:04:30.000Z")
        // A log header that is years off from the data does not move a plausible date.
        let header = assemble([line], referenceDate: .recordedOn(CivilDate(year: 2010, month: 10, day: 16)))
        #expect(header.first?.fix.time?.iso8601 == "1999-08-22T00:04:30.000Z")
    }

    @Test func speedAndClimbAreDerivedWhenTheReceiverGivesNone() throws {
        // GGA only, dated by ZDA: 1 s apart, 0.001' of latitude (≈1.85 m) and 2 m up.
        let fixes = assemble([
            "GPZDA,120000.00,01,06,2026,00,00",
            "GPGGA,120000.00,4807.000,N,01131.000,E,1,08,0.9,545.0,M,46.9,M,,",
            "GPZDA,120001.00,01,06,2026,00,00",
            "GPGGA,120001.00,4807.001,N,01131.000,E,1,08,0.9,547.0,M,46.9,M,,",
        ])
        let second = try #require(fixes.last?.fix)
        #expect(second.speedIsDerived)
        #expect(abs(second.speed! - 1.853) < 0.01)
        #expect(second.climbIsDerived)
        #expect(abs(second.climb! - 2.0) < 1e-9)
    }

    @Test func satellitesAreKeptPerSystemAndSignalWithUsedFlagsFromEveryGSA() throws {
        let fixes = assemble([
            "GNRMC,120000.00,A,4807.038,N,01131.324,E,0.0,0.0,010626,,,A,V",
            "GNGGA,120000.00,4807.038,N,01131.324,E,1,05,0.9,545.4,M,46.9,M,,",
            "GNGSA,A,3,05,12,,,,,,,,,,,1.5,0.9,1.2,1",
            "GNGSA,A,3,70,,,,,,,,,,,,1.5,0.9,1.2,2",
            "GNGSA,A,3,12,,,,,,,,,,,,1.5,0.9,1.2,3",
            "GPGSV,1,1,03,05,40,100,44,12,50,200,40,17,10,300,,1",
            "GPGSV,1,1,02,05,40,100,38,12,50,200,35,5",
            "GLGSV,1,1,01,70,30,050,33,1",
            "GAGSV,1,1,02,12,60,250,42,14,20,010,25,7",
        ])
        let fix = try #require(fixes.last?.fix)
        #expect(fix.satellites.count == 8)
        let gpsL1 = fix.satellites.filter { $0.constellation == .gps && $0.signal == 1 }
        let gpsL2 = fix.satellites.filter { $0.constellation == .gps && $0.signal == 5 }
        #expect(gpsL1.map(\.svid) == [5, 12, 17])
        #expect(gpsL2.map(\.svid) == [5, 12])
        #expect(gpsL1.map(\.used) == [true, true, false])
        let glonass = try #require(fix.satellites.first { $0.constellation == .glonass })
        #expect(glonass.svid == 6 && glonass.nmeaID == 70 && glonass.used)
        let galileo = fix.satellites.filter { $0.constellation == .galileo }
        #expect(galileo.map(\.used) == [true, false])
        // Satellites, not signals: GPS 5 and 12 (each on two signals), GLONASS 6 and Galileo 12.
        #expect(fix.satellitesUsed == 4)
        #expect(fix.satellites.count { $0.used } == 6)
    }

    @Test func aGSVSeriesWithAMissingPartIsDropped() throws {
        let fixes = assemble([
            "GPRMC,120000.00,A,4807.038,N,01131.324,E,0.0,0.0,010626,,,A",
            "GPGSV,3,1,09,01,40,100,44,02,50,200,40,03,10,300,30,04,20,100,30",
            "GPGSV,3,3,09,09,40,100,44",
        ])
        #expect(try #require(fixes.last).fix.satellites.isEmpty)
    }

    @Test func aFixKeptByTheCallerKeepsItsSatellitesWhenTheNextEpochArrives() throws {
        let fixes = assemble(
            (0..<3).flatMap { second in
                [
                    "GPRMC,12000\(second).00,A,4807.038,N,01131.324,E,0.0,0.0,010626,,,A",
                    "GPGSV,1,1,02,01,40,100,4\(second),02,50,200,3\(second)",
                ]
            })
        #expect(fixes.count == 3)
        for (second, (fix, _)) in fixes.enumerated() {
            #expect(fix.satellites.map(\.snr) == [Double(40 + second), Double(30 + second)])
        }
    }

    @Test func sentencesMadeByHandWithNumbersNoReceiverSendsAreTaken() {
        var decoder = FixDecoder()
        var fixes: [Fix] = []
        func decode(_ line: String) {
            decoder.decode(Array(SentenceBuilder.sentence(line).utf8)) { fixes.append($0) }
        }
        decode("GPRMC,120000.00,A,4807.038,N,01131.324,E,0.0,0.0,010626,,,A")
        let sentences: [NMEASentence] = [
            .gsv(GSV(messageCount: 1, messageNumber: -3, satellites: [GSVSatellite(id: 1)], signalID: -1)),
            .gsv(
                GSV(messageCount: 1, messageNumber: 1, satellites: [GSVSatellite(id: 2)], signalID: 1 << 40)),
            .gsa(GSA(talker: .gnss, fixType: 3, satellites: [2], systemID: -7)),
            .gsa(GSA(talker: .gnss, fixType: 3, satellites: [2], systemID: 1 << 40)),
        ]
        for sentence in sentences { decoder.decode(sentence: sentence) { fixes.append($0) } }
        decode("GPRMC,120001.00,A,4807.038,N,01131.324,E,0.0,0.0,010626,,,A")
        decoder.finish { fixes.append($0) }
        #expect(fixes.count == 2)
        #expect(fixes.first?.satellites.map(\.nmeaID) == [2])
    }

    @Test func errorEstimatesFollowDOPTimesUEREUnlessTheReceiverSays() throws {
        let model = try #require(assemble(epoch(19)).first?.fix)
        #expect(model.errors.source == .dopModel)
        #expect(abs(model.errors.horizontal! - 1.1 * 19) < 1e-9)
        #expect(abs(model.errors.vertical! - 1.5 * 23) < 1e-9)
        #expect(abs(model.errors.spherical! - 1.8 * 19) < 1e-9)
        #expect(model.errors.time == 0.005)
        let garmin = try #require(assemble(epoch(19) + ["PGRME,9.1,M,15.0,M,12.0,M"]).first?.fix)
        #expect(garmin.errors.source == .receiverPGRME)
        #expect(abs(garmin.errors.vertical! - 15.0 * 2.45 / 1.18) < 1e-9)
    }

    @Test func gstStatisticsAreKeptApartFromTheErrorModel() throws {
        let fix = try #require(
            assemble(epoch(19) + ["GPGST,030719.000,0.006,0.023,0.020,273.6,0.023,0.020,0.031"]).first?.fix)
        #expect(fix.noise?.orientation == 273.6)
        #expect(fix.noise?.altitude == 0.031)
        #expect(fix.errors.source == .dopModel)
    }

    @Test func receiverWithoutAFixYieldsOneNoFixPerCycle() {
        var lines: [String] = []
        for _ in 0..<4 {
            lines += [
                "GPGGA,,,,,,0,,,,M,,M,,", "GPGSA,A,1,,,,,,,,,,,,,,,", "GPRMC,,V,,,,,,,,,,N",
                "GPVTG,,T,,M,,N,,K,N",
            ]
        }
        let fixes = assemble(lines)
        #expect(fixes.count == 4)
        #expect(fixes.allSatisfy { $0.fix.mode == .noFix && !$0.fix.hasPosition && $0.fix.time == nil })
    }

    @Test func aReceiverThatSendsRMCOnceASecondAmongTenHertzGGAsLosesNoCourse() throws {
        // GGA every 100 ms; once a second an RMC with speed and course comes after it, where the
        // 10 Hz epochs have taught the assembler to hand the fix out already.
        var lines: [String] = []
        for second in 20..<24 {
            for tenth in 0..<10 {
                let time = "0307\(second).\(tenth)0"
                lines.append("GPGGA,\(time),3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000")
                if tenth == 0 { lines.append("GPRMC,\(time),A,3747.0873,S,17518.8938,E,9.4,41.9,311214,,,A") }
            }
        }
        let fixes = assemble(lines)
        #expect(fixes.count == 40, "one fix per epoch, the late RMC included")
        let whole = fixes.filter { $0.fix.time!.nanosecondsSinceEpoch % 1_000_000_000 == 0 }
        #expect(whole.count == 4)
        // GGA is learned as the end within 0.2 s, but fixes are not handed out at it before it
        // has held for a whole second; by then the RMC has come after it, and from there on the
        // fixes wait for their epoch to close and carry the receiver's course and speed.
        let carried = whole.map { $0.fix.course == 41.9 && $0.fix.speedIsDerived == false }
        #expect(carried == [true, true, true, true])

        // Without the RMC, fixes are handed out at their own GGA from the time GGA has ended
        // epochs for a second (learned at 20.1, so from 21.1 on); before, at the next one.
        let plain = assemble(lines.filter { $0.hasPrefix("GPGGA") })
        #expect(plain.count == 40)
        #expect(plain.prefix(11).enumerated().allSatisfy { $0.element.after == $0.offset + 1 })
        #expect(plain.dropFirst(11).enumerated().allSatisfy { $0.element.after == $0.offset + 11 })
    }

    @Test func aVoidRMCStartsItsOwnSecondAndLeavesTheValidFixBeforeItValid() throws {
        // A receiver that starts each second with RMC (u-blox's order) loses its fix at 03:07:22.
        func second(_ second: Int) -> [String] {
            let time = "0307\(second).00"
            return [
                "GPRMC,\(time),A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A",
                "GPGGA,\(time),3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000",
                "GPGSA,A,3,17,28,06,01,30,20,26,13,,,,,1.8,1.1,1.5",
            ]
        }
        let lost = [
            "GPRMC,030722.00,V,,,,,,,311214,,,N", "GPGGA,030722.00,,,,,0,00,25.0,,M,,M,,",
            "GPGSA,A,1,,,,,,,,,,,,,,,",
        ]
        // The same stream twice: once the end of the epoch is learned (fixes handed out at GSA),
        // once not yet (each fix handed out when the next epoch starts). The result is the same.
        for valid in [second(18) + second(19) + second(20) + second(21), second(21)] {
            let fixes = assemble(valid + lost)
            #expect(fixes.count == valid.count / 3 + 1)
            let last = try #require(fixes.last?.fix)
            let before = try #require(fixes.dropLast().last?.fix)
            #expect(before.time?.iso8601 == "2014-12-31T03:07:21.000Z")
            #expect(before.mode == .threeDimensional && before.status == .gps)
            #expect(before.dop.hdop == 1.1, "the next epoch's HDOP stays with the next epoch")
            #expect(last.time?.iso8601 == "2014-12-31T03:07:22.000Z")
            #expect(last.mode == .noFix && !last.hasPosition)
            #expect(last.dop.hdop == 25)
        }
    }

    @Test func voidRMCsFromAnUnsetClockAfterARestartDoNotMoveTheDate() throws {
        // As gp-320fw's cold boot: a fix at 00:03:45, a restart, void RMCs stamped from an unset
        // real-time clock (23:59:48 on 2006-12-16), then the receiver's time again.
        let lines = [
            "GPRMC,000344.03,A,4808.9993,N,01135.0798,E,000.1,000.0,070419,003.0,E,A",
            "GPRMC,000345.03,A,4808.9993,N,01135.0798,E,000.1,000.0,070419,003.0,E,A",
            "GPRMC,235948.00,V,0000.0000,N,00000.0000,E,,,161206,,,N",
            "GPRMC,235949.00,V,0000.0000,N,00000.0000,E,,,161206,,,N",
            "GPGGA,000410.00,0000.0000,N,00000.0000,E,0,00,0.0,,M,,M,,",
        ]
        let fixes = assemble(lines, referenceDate: nil)
        #expect(fixes.count == 5)
        #expect(fixes[1].fix.time?.iso8601 == "2019-04-07T00:03:45.030Z")
        #expect(fixes[1].fix.mode == .twoDimensional)
        #expect(fixes[2].fix.mode == .noFix && fixes[2].fix.time == nil)
        #expect(fixes[4].fix.time?.iso8601 == "2019-04-07T00:04:10.000Z")
    }

    @Test func textAndUnknownProprietarySentencesAfterTheFixDoNotBecomeItsEnd() {
        // A receiver that sends status sentences after RMC and again at the start of the next
        // epoch: learning them as the end would hand the fix out before its GSA and RMC.
        var lines: [String] = []
        for second in 10..<16 {
            let sentences = epoch(second)
            lines += [
                sentences[0], "PGLOR,1,STA,ok", sentences[1], sentences[2], "PGLOR,1,STA,ok",
                "GPTXT,01,01,02,ok",
            ]
        }
        let fixes = assemble(lines)
        #expect(fixes.count == 6)
        #expect(fixes.allSatisfy { $0.fix.course == 181.39 && $0.fix.dop.pdop == 1.8 })
        // Handed out at each epoch's RMC once learned, not at the next GGA.
        #expect(fixes.dropFirst(3).map(\.after) == [21, 27, 33])
    }

    @Test func simulatedDriveDecodesToOneFixPerEpochAtTenHertz() throws {
        var simulator = RouteSimulator(seed: 5, rate: 10)
        let log = simulator.log(epochs: 100)
        var decoder = FixDecoder()
        var fixes: [Fix] = []
        decoder.decode(log) { fixes.append($0) }
        decoder.finish { fixes.append($0) }
        #expect(fixes.count == 100)
        #expect(fixes.allSatisfy { $0.mode == .threeDimensional && $0.satellites.count > 20 })
        let times = fixes.compactMap { $0.time?.nanosecondsSinceEpoch }
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 100_000_000 })
        #expect(decoder.statistics.framer.rejected == 0)
    }
}

@Suite("Time")
struct TimeTests {
    @Test func civilDatesRoundTripThroughDays() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let date = CivilDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
            #expect(date.isValid)
        }
        #expect(CivilDate(year: 2024, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2023, month: 2, day: 29).isValid)
        #expect(CivilDate(parsing: "2019-3-14") == CivilDate(year: 2019, month: 3, day: 14))
        #expect(CivilDate(parsing: "2019-13-14") == nil)
    }

    @Test func iso8601RoundsToTheMillisecond() {
        let time = UTCTimestamp(
            date: CivilDate(year: 2026, month: 2, day: 12), nanosecondsOfDay: 77_833_999_600_000)
        #expect(time?.iso8601 == "2026-02-12T21:37:14.000Z")
        let before1970 = UTCTimestamp(
            date: CivilDate(year: 1969, month: 12, day: 31), nanosecondsOfDay: 1_000_000)
        #expect(before1970?.iso8601 == "1969-12-31T00:00:00.001Z")
    }
}

/// A receiver's true heading, from HDT or THS, on the fix of its epoch.
@Suite("Heading sentences")
struct HeadingSentenceTests {
    static func heading(after bodies: [String]) -> [Double?] {
        var decoder = FixDecoder()
        var fixes: [Fix] = []
        let text = bodies.map { SentenceBuilder.sentence($0) }.joined()
        decoder.decode(Array(text.utf8)) { fixes.append($0) }
        decoder.finish { fixes.append($0) }
        return fixes.map(\.heading)
    }

    @Test(
        "HDT and THS set the heading; THS marked V (not valid) does not",
        arguments: [
            ("HEHDT,274.07,T", 274.07), ("GNTHS,77.52,A", 77.52), ("GNTHS,77.52,E", 77.52),
            ("GNTHS,77.52,V", nil),
        ] as [(String, Double?)])
    func heading(sentence: String, expected: Double?) {
        let headings = Self.heading(after: [
            "GPRMC,080000.00,A,5222.38610,N,00453.55600,E,1.0,90.0,140326,,,A", sentence,
            "GPGGA,080000.00,5222.38610,N,00453.55600,E,1,08,0.9,12.0,M,46.9,M,,",
        ])
        #expect(headings.count == 1)
        #expect(headings.first! == expected, "\(headings)")
    }
}
