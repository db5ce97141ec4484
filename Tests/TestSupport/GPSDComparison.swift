// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// gpsd's regression corpus as an oracle: the last TPV gpsd printed for each time in a log's
/// `.chk` file against ours for the same time, whatever printed ours (the decoder, gpslocd's
/// gpsd protocol).
public enum GPSDComparison {
    public struct Tally: Sendable {
        public var epochs = 0
        public var found = 0
        public var agreeing = 0
        /// Epochs found 1024 weeks before gpsd's date: a log whose header dates it, which gpsd
        /// ignores and moves forward (fixtures/gpsd-divergences.md).
        public var rolled = 0
        public var disagreements: [String] = []

        public init() {}

        /// The share of gpsd's timed epochs that agree.
        public var share: Double { Double(agreeing) / Double(max(epochs, 1)) }
    }

    /// `time` (gpsd's ISO 8601 with milliseconds) moved 1024 weeks back.
    public static func beforeRollover(_ time: String) -> String? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: time) else { return nil }
        return formatter.string(from: date.addingTimeInterval(-1024 * 7 * 86_400))
    }

    /// The members of a flat JSON object (gpsd's TPV lines): strings unquoted, numbers as text.
    public static func members(_ line: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = line.dropFirst().dropLast(line.hasSuffix("}") ? 1 : 0)
        while let keyStart = rest.firstIndex(of: "\"") {
            let afterKey = rest[rest.index(after: keyStart)...]
            guard let keyEnd = afterKey.firstIndex(of: "\"") else { break }
            let key = String(afterKey[..<keyEnd])
            var value = afterKey[afterKey.index(after: keyEnd)...].dropFirst()  // the colon
            if value.first == "\"" {
                value = value.dropFirst()
                let end = value.firstIndex(of: "\"") ?? value.endIndex
                result[key] = String(value[..<end])
                rest = value[end...].dropFirst()
            } else if value.first == "[" || value.first == "{" {
                break  // nested values come after the fields compared here
            } else {
                let end = value.firstIndex(of: ",") ?? value.endIndex
                result[key] = String(value[..<end])
                rest = value[end...]
            }
        }
        return result
    }

    public static func lastTPVByTime(_ lines: some Sequence<Substring>) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for line in lines where line.hasPrefix("{\"class\":\"TPV\"") {
            let object = members(line)
            guard let time = object["time"] else { continue }
            result[time] = object
        }
        return result
    }

    /// Our TPV lines for `log` against gpsd's own (`log.chk`): for every time gpsd reported, its
    /// last TPV and ours agree in mode, position, altitude, speed and track.
    public static func compare(log: URL, ours: [Substring]) throws -> Tally {
        let expected = lastTPVByTime(
            try String(contentsOf: URL(fileURLWithPath: log.path + ".chk"), encoding: .isoLatin1)
                .split(whereSeparator: \.isNewline))
        let actual = lastTPVByTime(ours)
        var tally = Tally()
        for (time, gpsd) in expected.sorted(by: { $0.key < $1.key }) {
            tally.epochs += 1
            var found = actual[time]
            if found == nil, let earlier = Self.beforeRollover(time), let rolled = actual[earlier] {
                found = rolled
                tally.rolled += 1
            }
            guard let mine = found else {
                tally.disagreements.append("\(time): not found")
                continue
            }
            tally.found += 1
            var differences: [String] = []
            if gpsd["mode"] != mine["mode"] {
                differences.append("mode \(gpsd["mode"] ?? "-") vs \(mine["mode"] ?? "-")")
            }
            for (field, tolerance) in [
                ("lat", 1e-6), ("lon", 1e-6), ("altMSL", 0.01), ("speed", 0.01), ("track", 0.01),
            ] {
                let theirs = gpsd[field].flatMap(Double.init)
                let ourValue = mine[field].flatMap(Double.init)
                switch (theirs, ourValue) {
                case (nil, _): continue
                case (let value?, nil): differences.append("\(field) \(value) vs none")
                case (let value?, let other?) where abs(value - other) > tolerance:
                    differences.append("\(field) \(value) vs \(other)")
                default: continue
                }
            }
            if differences.isEmpty {
                tally.agreeing += 1
            } else {
                tally.disagreements.append("\(time): " + differences.joined(separator: ", "))
            }
        }
        return tally
    }
}
