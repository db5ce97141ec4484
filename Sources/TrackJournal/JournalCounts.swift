// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

/// A journal's records by kind, in the words every report of them uses: `verify`'s lines,
/// `decrypt`'s, and the recorder's last line count records the same way.
public struct JournalCounts: Sendable, Hashable, CustomStringConvertible {
    public var locations = 0
    public var nmea = 0
    public var messages = 0
    public var gaps = 0
    public var openings = 0
    public var finals = 0

    public init() {}

    /// Every record, the opening and final ones included.
    public var records: Int { locations + nmea + messages + gaps + openings + finals }

    /// The records that hold what was recorded (locations, NMEA, messages, gaps): not the
    /// segments' opening and final records.
    public var data: Int { locations + nmea + messages + gaps }

    public mutating func count(_ record: JournalRecord) {
        switch record {
        case .location: locations += 1
        case .nmea: nmea += 1
        case .message: messages += 1
        case .gap: gaps += 1
        case .opening: openings += 1
        case .final: finals += 1
        }
    }

    public static func + (a: Self, b: Self) -> Self {
        var sum = a
        sum.locations += b.locations
        sum.nmea += b.nmea
        sum.messages += b.messages
        sum.gaps += b.gaps
        sum.openings += b.openings
        sum.finals += b.finals
        return sum
    }

    /// `302 records: 300 locations, 1 opening, 1 final` (kinds with none left out).
    public var description: String {
        func kind(_ count: Int, _ one: String, _ many: String) -> String? {
            count == 0 ? nil : counted(count, one, many)
        }
        let kinds = [
            kind(locations, "location", "locations"), kind(nmea, "NMEA record", "NMEA records"),
            kind(messages, "message", "messages"), kind(gaps, "gap record", "gap records"),
            kind(openings, "opening", "openings"), kind(finals, "final", "finals"),
        ].compactMap { $0 }
        let total = counted(records, "record", "records")
        return kinds.isEmpty ? total : total + ": " + kinds.joined(separator: ", ")
    }
}
