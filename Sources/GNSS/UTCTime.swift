// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A proleptic Gregorian calendar date.
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        // Civil-from-days over 400-year eras.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01 (negative before). Out-of-range days roll over into the next month.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthPrime = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthPrime + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether the date exists (no 31 April, 29 February only in leap years).
    public var isValid: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        return CivilDate(daysSinceEpoch: daysSinceEpoch) == self
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    /// Parses `YYYY-MM-DD` (also `YYYY-M-D`, as some log headers write it); `nil` otherwise.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]),
            let day = Int(parts[2].prefix(while: { $0.isNumber })), parts[0].count == 4
        else { return nil }
        self.init(year: year, month: month, day: day)
        guard isValid else { return nil }
    }
}

/// A UTC instant with nanosecond resolution, independent of Foundation.
public struct UTCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since 1970-01-01T00:00:00Z (leap seconds not counted, as in POSIX time).
    public var nanosecondsSinceEpoch: Int64

    public init(nanosecondsSinceEpoch: Int64) { self.nanosecondsSinceEpoch = nanosecondsSinceEpoch }

    /// The instant `nanosecondsOfDay` into `date`, or `nil` when it lies outside what 64-bit
    /// nanoseconds hold (about 1678 to 2262): data from outside may name any year.
    public init?(date: CivilDate, nanosecondsOfDay: Int64) {
        self.init(daysSinceEpoch: date.daysSinceEpoch, nanosecondsOfDay: nanosecondsOfDay)
    }

    /// The instant `nanosecondsOfDay` into the day `daysSinceEpoch`, or `nil` when it does not fit.
    public init?(daysSinceEpoch: Int, nanosecondsOfDay: Int64) {
        let (dayStart, overflow) = Int64(daysSinceEpoch).multipliedReportingOverflow(by: 86_400_000_000_000)
        guard !overflow else { return nil }
        let (total, overflowed) = dayStart.addingReportingOverflow(nanosecondsOfDay)
        guard !overflowed else { return nil }
        nanosecondsSinceEpoch = total
    }

    /// The system clock's time now (`CLOCK_REALTIME`).
    public static var now: UTCTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UTCTimestamp(nanosecondsSinceEpoch: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// The whole seconds since 1970 (rounded down, before 1970 too) and the nanoseconds past them
    /// (0 to 999,999,999), as `timespec` and gpsd's `…_sec`/`…_nsec` members hold an instant.
    public var secondsAndNanoseconds: (seconds: Int64, nanoseconds: Int64) {
        let seconds = floorDivide(nanosecondsSinceEpoch, 1_000_000_000)
        return (seconds, nanosecondsSinceEpoch - seconds * 1_000_000_000)
    }

    /// The whole second nearest to this instant (a pulse per second marks one).
    public var nearestWholeSecond: UTCTimestamp {
        UTCTimestamp(
            nanosecondsSinceEpoch: floorDivide(nanosecondsSinceEpoch + 500_000_000, 1_000_000_000)
                * 1_000_000_000)
    }

    /// Seconds since 1970 as a `Double`.
    public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) / 1e9 }

    public var date: CivilDate {
        CivilDate(daysSinceEpoch: Int(floorDivide(nanosecondsSinceEpoch, 86_400_000_000_000)))
    }

    public var nanosecondsOfDay: Int64 {
        nanosecondsSinceEpoch - Int64(date.daysSinceEpoch) * 86_400_000_000_000
    }

    public static func < (lhs: UTCTimestamp, rhs: UTCTimestamp) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }

    /// Seconds from `other` to `self`.
    public func seconds(since other: UTCTimestamp) -> Double {
        Double(nanosecondsSinceEpoch - other.nanosecondsSinceEpoch) / 1e9
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ`, rounded to the millisecond (gpsd's format).
    public var iso8601: String {
        var bytes: [UInt8] = []
        ByteCursor.append(to: &bytes, estimate: Self.maximumISO8601Count) { cursor in
            guard cursor.hasRoom(for: Self.maximumISO8601Count) else { return }
            writeISO8601(to: &cursor)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The longest ``iso8601`` text (a year far from ours has more than four digits).
    static let maximumISO8601Count = 48

    /// Writes ``iso8601``; the cursor has room for ``maximumISO8601Count`` bytes.
    func writeISO8601(to cursor: inout ByteCursor) {
        let milliseconds = floorDivide(nanosecondsSinceEpoch + 500_000, 1_000_000)
        let rounded = UTCTimestamp(nanosecondsSinceEpoch: milliseconds * 1_000_000)
        let date = rounded.date
        let ofDay = Int(rounded.nanosecondsOfDay / 1_000_000)
        cursor.put(date.year, width: 4)
        cursor.put(UInt8(ascii: "-"))
        cursor.put(date.month, width: 2)
        cursor.put(UInt8(ascii: "-"))
        cursor.put(date.day, width: 2)
        cursor.put(UInt8(ascii: "T"))
        cursor.put(ofDay / 3_600_000, width: 2)
        cursor.put(UInt8(ascii: ":"))
        cursor.put(ofDay / 60_000 % 60, width: 2)
        cursor.put(UInt8(ascii: ":"))
        cursor.put(ofDay / 1000 % 60, width: 2)
        cursor.put(UInt8(ascii: "."))
        cursor.put(ofDay % 1000, width: 3)
        cursor.put(UInt8(ascii: "Z"))
    }

    public var description: String { iso8601 }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, the form gpsd and ``iso8601`` write; `nil` for
    /// anything else.
    public init?(iso8601 text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 20, utf8[10] == UInt8(ascii: "T"), utf8.last == UInt8(ascii: "Z"),
            utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let date = CivilDate(parsing: String(decoding: utf8[0..<10], as: UTF8.self)),
            let hours = number(11..<13), let minutes = number(14..<16), let seconds = number(17..<19),
            hours < 24, minutes < 60, seconds <= 60
        else { return nil }
        var nanoseconds: Int64 = 0
        let fraction = utf8[19..<(utf8.count - 1)]
        if !fraction.isEmpty {
            guard fraction.first == UInt8(ascii: "."), fraction.count >= 2, fraction.count <= 10,
                let digits = number((fraction.startIndex + 1)..<fraction.endIndex)
            else { return nil }
            nanoseconds = Int64(digits)
            for _ in 0..<(10 - fraction.count) { nanoseconds *= 10 }
        }
        let ofDay = Int64((hours * 60 + minutes) * 60 + seconds) * 1_000_000_000 + nanoseconds
        guard let instant = UTCTimestamp(date: date, nanosecondsOfDay: ofDay) else { return nil }
        self = instant
    }
}

func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
}

func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value.magnitude)
    let padded = text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    return value < 0 ? "-" + padded : padded
}
