// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// The running date and time of day of a stream (gpsd's `nmea.date`), and the UTC time they
/// make once GPS week-number rollovers are undone.
///
/// Sentences bring a time of day (GGA, GLL, GNS, GBS) and sometimes a date (RMC, ZDA). The time
/// of day rolls the date over when it goes back by twelve hours or more (midnight), and a date
/// more than 1024 weeks early is moved forward as the ``ReferenceDate`` says.
struct DateResolver: Sendable {
    /// What is known of the true date; `nil` turns the rollover correction off.
    var referenceDate: ReferenceDate? {
        didSet { correctedDay = nil }
    }
    /// The receiver's date as it said, rolled over at midnight.
    private(set) var date: CivilDate? {
        didSet { if date != oldValue { correctedDay = nil } }
    }
    private(set) var timeOfDay: NMEATime?
    /// `date` with week-number rollovers undone, in days since 1970, once worked out.
    private var correctedDay: Int?
    private var lastHour = -1
    /// How many of the receiver's dates were moved by whole 1024-week periods, and by how many
    /// weeks the last one was.
    private(set) var rollovers = RolloverCorrections()

    init(referenceDate: ReferenceDate?) {
        self.referenceDate = referenceDate
    }

    var hasDate: Bool { date != nil }

    /// Moves the running time of day forward, rolling the date over at midnight.
    mutating func advance(to time: NMEATime) {
        let hour = Int(time.hour)
        if lastHour >= 0, lastHour - hour >= 12, let current = date {
            date = CivilDate(daysSinceEpoch: current.daysSinceEpoch + 1)
        }
        lastHour = hour
        timeOfDay = time
    }

    /// The receiver said the date.
    mutating func setDate(_ civil: CivilDate) { date = civil }

    /// The receiver's date is no longer trusted (it lost its fix and sent no time).
    mutating func forgetDate() { date = nil }

    /// The UTC time of the running date and time of day; `nil` without a date, or when the date
    /// lies beyond what a timestamp holds (a corrupt or hostile year).
    mutating func resolvedTime() -> UTCTimestamp? {
        guard let date, let timeOfDay else { return nil }
        let day: Int
        if let correctedDay {
            day = correctedDay
        } else {
            day = (referenceDate?.correcting(date) ?? date).daysSinceEpoch
            correctedDay = day
            if day != date.daysSinceEpoch {
                rollovers.dates += 1
                rollovers.weeks = (day - date.daysSinceEpoch) / 7
            }
        }
        return UTCTimestamp(daysSinceEpoch: day, nanosecondsOfDay: timeOfDay.nanosecondsOfDay)
    }
}

/// Receiver dates moved by GPS week-number rollover correction.
public struct RolloverCorrections: Sendable, Hashable {
    /// Distinct dates the receiver said that were moved (a date counts once, however many
    /// epochs it stamped).
    public var dates = 0
    /// By how many weeks the last one was moved (a multiple of 1024).
    public var weeks = 0
    public init() {}
}

/// What is known of the true date, for undoing GPS week-number rollovers.
public enum ReferenceDate: Sendable, Hashable {
    /// The data was recorded on (about) this date, as a log's `# Date:` header says. A date is
    /// moved forward by whole 1024-week periods only when that lands within a year of it;
    /// otherwise the receiver's own date stands.
    case recordedOn(CivilDate)
    /// The true date is not earlier than this one. A date is moved forward by whole 1024-week
    /// periods while that brings it closer to this one.
    case notBefore(CivilDate)

    static let rolloverDays = 1024 * 7

    /// `date` with any week-number rollover undone.
    public func correcting(_ date: CivilDate) -> CivilDate {
        var days = date.daysSinceEpoch
        switch self {
        case .recordedOn(let reference):
            let target = reference.daysSinceEpoch
            var candidate = days
            while abs(candidate + Self.rolloverDays - target) < abs(candidate - target) {
                candidate += Self.rolloverDays
            }
            if candidate != days && abs(candidate - target) <= 366 { days = candidate }
        case .notBefore(let reference):
            let target = reference.daysSinceEpoch
            while abs(days + Self.rolloverDays - target) < abs(days - target) { days += Self.rolloverDays }
        }
        return CivilDate(daysSinceEpoch: days)
    }
}
