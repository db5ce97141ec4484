// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Builds a sentence field by field and closes it with `*hh\r\n`.
public struct NMEAWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]
    private var start: Int

    /// Starts a sentence `$<talker><type>` (or `!…` for encapsulated ones) at the end of `buffer`.
    public init(
        appendingTo buffer: [UInt8] = [], start: UInt8 = UInt8(ascii: "$"), talker: Talker, type: String
    ) {
        bytes = buffer
        self.start = bytes.count
        bytes.append(start)
        talker.appendASCII(to: &bytes)
        bytes.append(contentsOf: type.utf8)
    }

    public mutating func field(_ value: NMEADecimal?) {
        bytes.append(UInt8(ascii: ","))
        value?.appendASCII(to: &bytes)
    }

    public mutating func field(_ value: NMEALetter?) {
        bytes.append(UInt8(ascii: ","))
        if let value { bytes.append(value.rawValue) }
    }

    public mutating func field(_ value: NMEATime?) {
        bytes.append(UInt8(ascii: ","))
        value?.appendASCII(to: &bytes)
    }

    /// An integer field, zero-padded to `width` digits.
    public mutating func field(_ value: Int?, width: Int = 1) {
        bytes.append(UInt8(ascii: ","))
        guard let value else { return }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: InlineArray<20, UInt8> = .init(repeating: 48)
        var magnitude = value.magnitude
        var count = 0
        repeat {
            digits[count] = UInt8(truncatingIfNeeded: magnitude % 10) + 48
            magnitude /= 10
            count += 1
        } while magnitude > 0
        count = max(count, min(width, 20))
        for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
    }

    public mutating func field(_ value: String?) {
        bytes.append(UInt8(ascii: ","))
        if let value { bytes.append(contentsOf: value.utf8) }
    }

    /// A latitude (`ddmm.mmmm`) or longitude (`dddmm.mmmm`) with its hemisphere letter, the
    /// degrees zero-padded as receivers send them.
    public mutating func field(_ coordinate: NMEACoordinate?) {
        bytes.append(UInt8(ascii: ","))
        if let coordinate {
            let isLongitude =
                coordinate.hemisphere == UInt8(ascii: "E") || coordinate.hemisphere == UInt8(ascii: "W")
            var digits: [UInt8] = []
            coordinate.value.appendASCII(to: &digits)
            let negative = digits.first == UInt8(ascii: "-")
            if negative { digits.removeFirst() }
            let integerDigits = digits.firstIndex(of: UInt8(ascii: ".")) ?? digits.count
            let width = isLongitude ? 5 : 4
            if negative { bytes.append(UInt8(ascii: "-")) }
            if integerDigits < width {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - integerDigits))
            }
            bytes.append(contentsOf: digits)
        }
        field(coordinate.map { NMEALetter(rawValue: $0.hemisphere) })
    }

    /// Appends `*hh\r\n` and returns the finished buffer.
    public consuming func finish() -> [UInt8] {
        var checksum: UInt8 = 0
        for index in (start + 1)..<bytes.count { checksum ^= bytes[index] }
        bytes.append(UInt8(ascii: "*"))
        bytes.append(hexDigit(checksum >> 4))
        bytes.append(hexDigit(checksum & 0xF))
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
