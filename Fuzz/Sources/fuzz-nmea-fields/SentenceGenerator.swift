// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FuzzSupport

/// Writes well-formed NMEA sentences, checksum and line end included, whose fields are chosen by
/// the fuzzer's input: mostly values of the field's kind with extreme lengths, digits and signs,
/// sometimes a value from a list of numbers that have broken parsers. Random byte mutation almost
/// never produces a sentence whose checksum is right and whose fields are all extreme; this does
/// nothing else.
struct SentenceGenerator {
    /// What a field holds, for choosing values of its kind.
    enum Kind {
        case time, date, latitude, longitude, northSouth, eastWest, status, mode, integer, decimal
        case unit, day, month, year, text
    }

    /// Each sentence type as its address after the talker and its fields' kinds.
    static let templates: [(address: String, proprietary: Bool, fields: [Kind])] = [
        (
            "RMC", false,
            [
                .time, .status, .latitude, .northSouth, .longitude, .eastWest, .decimal, .decimal, .date,
                .decimal,
                .eastWest, .mode, .status,
            ]
        ),
        (
            "GGA", false,
            [
                .time, .latitude, .northSouth, .longitude, .eastWest, .integer, .integer, .decimal, .decimal,
                .unit,
                .decimal, .unit, .decimal, .integer,
            ]
        ),
        (
            "GSA", false,
            [.mode] + Array(repeating: .integer, count: 13) + [.decimal, .decimal, .decimal, .integer]
        ),
        ("GSV", false, Array(repeating: .integer, count: 20)),
        ("VTG", false, [.decimal, .unit, .decimal, .unit, .decimal, .unit, .decimal, .unit, .mode]),
        ("GLL", false, [.latitude, .northSouth, .longitude, .eastWest, .time, .status, .mode]),
        (
            "GNS", false,
            [
                .time, .latitude, .northSouth, .longitude, .eastWest, .text, .integer, .decimal, .decimal,
                .decimal,
                .decimal, .integer, .status,
            ]
        ),
        ("GST", false, [.time, .decimal, .decimal, .decimal, .decimal, .decimal, .decimal, .decimal]),
        ("ZDA", false, [.time, .day, .month, .year, .integer, .integer]),
        (
            "GBS", false,
            [.time, .decimal, .decimal, .decimal, .integer, .decimal, .decimal, .decimal, .integer, .integer]
        ),
        ("HDT", false, [.decimal, .unit]),
        ("THS", false, [.decimal, .status]),
        ("TXT", false, [.integer, .integer, .integer, .text]),
        ("DTM", false, [.text, .text, .decimal, .northSouth, .decimal, .eastWest, .decimal, .text]),
        ("GRME", true, [.decimal, .unit, .decimal, .unit, .decimal, .unit]),
        ("GRMZ", true, [.decimal, .unit, .integer]),
    ]

    static let talkers = ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "QZ", "GI", "IN", "HE", "II"]

    /// Numbers that have broken parsers: beyond 32 and 64 bits, beyond a double, signs where none
    /// belong, dates no calendar has.
    static let extremes = [
        "", "0", "-0", "-1", "+1", ".", "-", "00", "-.", ".5", "5.", "1e308", "1e-308", "1E9", "nan", "inf",
        "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "99999999999999999999999999999999999999", "0.000000000000000000000000000000000000001",
        "999999999999999999999.999999999999999999", "-999999999999999999999.9", "235960", "240000",
        "999999.999", "000000", "320199", "311299", "290223", "0000", "2263", "9999", "99999", "00",
        "13", "32", "-5", "179.99999999999999999", "9000.0000000000000000001", "18000.0", "359.99999999",
        "360", "-360", "0x10", "1;5",
    ]

    /// Bytes that end or delimit a sentence's field, kept out of text fields.
    static let delimiters: Set<UInt8> = Set(",*$!\\".utf8)

    var input: FuzzInput

    /// One sentence: `$`, the address, the fields, `*`, the checksum and CR LF.
    mutating func sentence() -> String {
        let template = input.pick(Self.templates)
        var body = template.proprietary ? "P" + template.address : input.pick(Self.talkers) + template.address
        var count = template.fields.count
        switch input.below(8) {
        case 0: count = input.below(count + 1)  // fields missing at the end
        case 1: count += input.below(4)  // extra fields
        default: break
        }
        for index in 0..<count {
            let kind = index < template.fields.count ? template.fields[index] : .decimal
            body += "," + value(of: kind)
        }
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex) + "\r\n"
    }

    mutating func value(of kind: Kind) -> String {
        if input.oneIn(5) { return input.pick(Self.extremes) }
        switch kind {
        case .time: return digits(input.below(3) == 0 ? input.below(12) : 6) + fraction()
        case .date: return digits(input.below(3) == 0 ? input.below(10) : 6)
        case .latitude: return digits(input.below(3) == 0 ? input.below(24) : 4) + fraction()
        case .longitude: return digits(input.below(3) == 0 ? input.below(24) : 5) + fraction()
        case .northSouth: return input.pick(["N", "S", "", "E", "n", "X"])
        case .eastWest: return input.pick(["E", "W", "", "N", "w", "X"])
        case .status: return input.pick(["A", "V", "", "D", "Z"])
        case .mode: return input.pick(["A", "D", "E", "F", "M", "N", "P", "R", "S", "", "1", "2", "3"])
        case .integer: return sign() + digits(input.below(4) == 0 ? input.below(24) : input.below(3) + 1)
        case .decimal:
            return sign() + digits(input.below(4) == 0 ? input.below(24) : input.below(4)) + fraction()
        case .unit: return input.pick(["M", "K", "N", "T", "F", "f", ""])
        case .day, .month: return digits(input.below(4) == 0 ? input.below(6) : 2)
        case .year: return digits(input.below(4) == 0 ? input.below(8) : 4)
        case .text:
            let length = input.below(4) == 0 ? input.below(80) : input.below(8)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                let byte = 0x20 + UInt8(input.below(0x5f))
                if !Self.delimiters.contains(byte) { bytes.append(byte) }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private mutating func digits(_ count: Int) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<count { bytes.append(0x30 + UInt8(input.below(10))) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func fraction() -> String {
        switch input.below(4) {
        case 0: return ""
        case 1: return "." + digits(input.below(30))
        default: return "." + digits(input.below(6))
        }
    }

    private mutating func sign() -> String {
        input.oneIn(6) ? "-" : ""
    }
}
