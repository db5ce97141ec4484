// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA
import TestSupport
import Testing

@testable import GNSS

/// The fix assembler's parts on their own: the date resolver, the epoch detector, gpsd's
/// sentence rules and the error model.
@Suite("Assembler parts")
struct AssemblyPartsTests {
    static func time(_ hour: UInt8, _ minute: UInt8, _ second: UInt8, milliseconds: UInt32 = 0) -> NMEATime {
        NMEATime(
            hour: hour, minute: minute, second: second, nanoseconds: milliseconds * 1_000_000,
            fractionDigits: 3)
    }

    static func sentence<T>(_ body: String, _ extract: (NMEASentence) -> T?) throws -> T {
        try #require(extract(try NMEASentence.parse(SentenceBuilder.sentence(body, lineEnd: ""))))
    }

    // MARK: Date resolver

    @Test("The date rolls over when the time of day goes back past midnight")
    func midnight() throws {
        var dates = DateResolver(referenceDate: nil)
        dates.setDate(CivilDate(year: 2026, month: 3, day: 14))
        dates.advance(to: Self.time(23, 59, 59))
        #expect(dates.resolvedTime()?.iso8601 == "2026-03-14T23:59:59.000Z")
        dates.advance(to: Self.time(0, 0, 0))
        #expect(dates.resolvedTime()?.iso8601 == "2026-03-15T00:00:00.000Z")
    }

    @Test("A date 1024 weeks early is moved forward; a recorded date far from it is left alone")
    func weekRollover() {
        var dates = DateResolver(referenceDate: .notBefore(CivilDate(year: 2026, month: 11, day: 1)))
        dates.setDate(CivilDate(year: 2007, month: 4, day: 1))
        dates.advance(to: Self.time(12, 0, 0))
        #expect(dates.resolvedTime()?.iso8601 == "2026-11-15T12:00:00.000Z")
        dates.referenceDate = .recordedOn(CivilDate(year: 2007, month: 4, day: 2))
        #expect(dates.resolvedTime()?.iso8601 == "2007-04-01T12:00:00.000Z")
    }

    @Test("No date, a forgotten one or a year out of range gives no time")
    func noTime() {
        var dates = DateResolver(referenceDate: nil)
        dates.advance(to: Self.time(8, 0, 0))
        #expect(dates.resolvedTime() == nil)
        dates.setDate(CivilDate(year: 2263, month: 1, day: 1))
        #expect(dates.resolvedTime() == nil)
        dates.setDate(CivilDate(year: 2026, month: 1, day: 1))
        #expect(dates.resolvedTime() != nil)
        dates.forgetDate()
        #expect(dates.resolvedTime() == nil)
    }

    // MARK: Epoch detector

    static func step(_ tag: NMEASentenceType, at time: NMEATime? = nil, key: UInt32? = nil) -> Step {
        var step = Step()
        step.tag = tag
        step.kindKey = key ?? UInt32(tag.rawValue)
        if let time { step.stamp(time) }
        return step
    }

    @Test("A new time of day starts an epoch; the stamped type before it is learned as an ender")
    func newTimeAndEnders() {
        var epochs = EpochDetector()
        #expect(epochs.place(Self.step(.gga, at: Self.time(8, 0, 0))) == (true, false))
        #expect(epochs.place(Self.step(.rmc, at: Self.time(8, 0, 0, milliseconds: 5))) == (false, false))
        // The next second: RMC was the last stamped type, so it ends epochs.
        #expect(epochs.place(Self.step(.gga, at: Self.time(8, 0, 1))).newTime)
        #expect(epochs.place(Self.step(.rmc, at: Self.time(8, 0, 1))) == (false, true))
        // An untimed sentence with data after an ender is a report point.
        #expect(epochs.place(Self.step(.gsa)) == (false, true))
    }

    @Test("Without a time, a kind seen twice starts the next epoch")
    func untimedRepeat() {
        var epochs = EpochDetector()
        let gsa = Self.step(.gsa, key: 42)
        #expect(!epochs.repeatsKind(gsa))
        epochs.enter(gsa)
        #expect(epochs.repeatsKind(gsa))
        epochs.enter(Self.step(.gga, at: Self.time(8, 0, 0)))
        #expect(!epochs.repeatsKind(gsa))
        epochs.close()
        #expect(!epochs.repeatsKind(gsa))
    }

    @Test("An epoch is handed out at its learned end once that end has held for two epochs and a second")
    func learnedEnd() {
        var epochs = EpochDetector()
        var handedOutAt: [Int] = []
        for second in 0..<4 {
            let time = Self.time(8, 0, UInt8(second))
            for tag in [NMEASentenceType.gga, .rmc] {
                let step = Self.step(tag, at: time)
                let (newTime, isReportPoint) = epochs.place(step)
                if newTime && second > 0 { epochs.close() }
                epochs.enter(step)
                epochs.noteData()
                if epochs.endSentence(kindKey: step.kindKey, isReportPoint: isReportPoint, more: false) {
                    epochs.handedOut()
                    handedOutAt.append(second)
                }
            }
            #expect(epochs.phase == (handedOutAt.last == second ? .handedOut : .collecting))
        }
        #expect(handedOutAt == [3])
    }

    // MARK: gpsd's sentence rules

    @Test("A GGA repeated with the same time loses its status, as gpsd reads it")
    func repeatedGGA() throws {
        let gga = try Self.sentence("GPGGA,080000.00,5222.38610,N,00453.55600,E,1,08,0.9,12.0,M,46.9,M,,") {
            if case .gga(let s) = $0 { s } else { nil }
        }
        var rules = GPSDSentenceRules()
        var dates = DateResolver(referenceDate: nil)
        var first = Step()
        rules.gga(gga, &first, &dates)
        #expect(first.new.mode == .threeDimensional && first.new.status == .gps)
        var again = Step()
        rules.gga(gga, &again, &dates)
        #expect(again.new.status == .unknown && again.mask.contains(.status))
    }

    @Test("A void RMC is stamped but neither sets the time nor moves the date")
    func voidRMC() throws {
        let rmc = try Self.sentence("GPRMC,235948.00,V,,,,,,,161206,,,N") {
            if case .rmc(let s) = $0 { s } else { nil }
        }
        let rules = GPSDSentenceRules()
        var dates = DateResolver(referenceDate: nil)
        dates.setDate(CivilDate(year: 2026, month: 3, day: 14))
        dates.advance(to: Self.time(8, 0, 0))
        var step = Step()
        rules.rmc(rmc, &step, &dates, current: ErrorModel.State(), lastFixMode: .threeDimensional)
        #expect(step.stamp?.nanosecondsOfDay == Self.time(23, 59, 48).nanosecondsOfDay)
        #expect(!step.mask.contains(.time))
        #expect(step.new.mode == .noFix)
        #expect(dates.resolvedTime()?.iso8601 == "2026-03-14T08:00:00.000Z")
    }

    @Test("A ZDA with an impossible date moves the time of day but stamps nothing")
    func invalidZDA() throws {
        let zda = try Self.sentence("GPZDA,080001.00,31,02,2026,00,00") {
            if case .zda(let s) = $0 { s } else { nil }
        }
        var dates = DateResolver(referenceDate: nil)
        var step = Step()
        GPSDSentenceRules().zda(zda, &step, &dates)
        #expect(step.stamp == nil && !step.mask.contains(.time))
        #expect(dates.timeOfDay?.nanosecondsOfDay == Self.time(8, 0, 1).nanosecondsOfDay)
    }

    // MARK: Error model

    @Test("Speed is derived from the change of position when the receiver gives none")
    func derivedSpeed() {
        var model = ErrorModel()
        var fix = Fix.position(52.0, 5.0, at: 1000, speed: nil)
        model.apply(to: &fix)
        var next = Fix.position(52.0001, 5.0, at: 1001, speed: nil)
        model.apply(to: &next)
        #expect(next.speedIsDerived)
        #expect(abs((next.speed ?? 0) - 11.12) < 0.05)
    }

    @Test("Errors are DOP × UERE unless the receiver sent its own")
    func estimates() {
        let model = ErrorModel()
        var fix = Fix.position(52.0, 5.0, at: 1000)
        fix.dop.xdop = 1
        fix.dop.ydop = 2
        let modelled = model.estimates(for: fix, receiver: nil)
        #expect(modelled.source == .dopModel)
        #expect(modelled.latitude == 2 * FixAssembler.UERE.horizontal)
        var own = ErrorEstimates()
        own.latitude = 3
        own.longitude = 4
        own.source = .receiverGBS
        let received = model.estimates(for: fix, receiver: own)
        #expect(received.source == .receiverGBS && received.latitude == 3 && received.longitude == 4)
    }
}

extension EpochDetector {
    /// The detector's inputs, read from a whole step as the assembler reads them.
    fileprivate mutating func place(_ step: Step) -> (newTime: Bool, isReportPoint: Bool) {
        place(stamp: step.stamp, tag: step.tag, bringsData: step.bringsData, more: step.gsxMore)
    }

    fileprivate func repeatsKind(_ step: Step) -> Bool {
        repeatsKind(step.kindKey, stamped: step.stamp != nil)
    }

    fileprivate mutating func enter(_ step: Step) { enter(step.kindKey, stamped: step.stamp != nil) }
}
