// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// A decimal number exactly as it was written on the wire: `mantissa / 10^scale`.
///
/// `"005.50"` is stored as mantissa 550, scale 2, so no precision is lost to binary floating point.
/// Leading zeros and a leading `+` are not kept; the value and its number of decimals are.
public struct NMEADecimal: Sendable, Hashable, CustomStringConvertible {
    /// The digits of the number with the decimal point removed.
    public var mantissa: Int64
    /// How many of the mantissa's digits stand after the decimal point (0…18).
    public var scale: UInt8

    /// Creates the number `mantissa / 10^scale`.
    public init(mantissa: Int64, scale: UInt8) {
        precondition(scale <= 18, "scale must be 0…18")
        self.mantissa = mantissa
        self.scale = scale
    }

    @usableFromInline
    init(unchecked mantissa: Int64, scale: UInt8) {
        self.mantissa = mantissa
        self.scale = scale
    }

    /// Creates a whole number.
    public init(_ integer: Int) {
        self.init(mantissa: Int64(integer), scale: 0)
    }

    /// Parses `"-12.345"`; `nil` for an empty or malformed field.
    public init?(_ text: String) {
        var text = text
        let parsed = text.withUTF8 { NMEADecimal.parse(UnsafeBufferPointer(rebasing: $0[...])) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The value as a `Double` (the nearest one; use `mantissa` and `scale` for exact arithmetic).
    @inlinable public var doubleValue: Double {
        Double(mantissa) / NMEADecimal.powersOfTen[Int(scale)]
    }

    /// The whole-number part, rounded toward zero.
    public var integerPart: Int64 {
        mantissa / NMEADecimal.integerPowersOfTen[Int(scale)]
    }

    public var description: String {
        var bytes: [UInt8] = []
        appendASCII(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the number with exactly `scale` decimals.
    public func appendASCII(to out: inout [UInt8]) {
        out.append(addingCapacity: NMEADecimal.maximumASCIICount) { span in
            span.withUnsafeMutableBufferPointer { buffer, written in
                written += writeASCII(to: buffer.baseAddress! + written)
            }
        }
    }

    /// The most bytes ``writeASCII(to:)`` writes: a sign, 19 digits and a decimal point.
    public static let maximumASCIICount = 21

    /// Writes the number with exactly `scale` decimals to `out`, which has room for
    /// ``maximumASCIICount`` bytes, and returns how many bytes it wrote.
    public func writeASCII(to out: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = mantissa.magnitude
        let scale = Int(self.scale)
        // Counted against a running power of ten: a global table costs a lazy-initialisation check
        // on every read, and this runs for every number of every report.
        var digits = 1
        var power: UInt64 = 10
        while digits < 19 && magnitude >= power {
            digits += 1
            power &*= 10
        }
        digits = max(digits, scale + 1)
        var position = out
        if mantissa < 0 {
            position.pointee = UInt8(ascii: "-")
            position += 1
        }
        let length = digits + (scale > 0 ? 1 : 0)
        var index = length - 1
        for _ in 0..<scale {
            position[index] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
            magnitude /= 10
            index -= 1
        }
        if scale > 0 {
            position[index] = UInt8(ascii: ".")
            index -= 1
        }
        while index >= 0 {
            position[index] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
            magnitude /= 10
            index -= 1
        }
        return position - out + length
    }

    @usableFromInline static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    ]

    /// 10^`exponent` as an integer, for `exponent` in 0…18.
    @usableFromInline static let integerPowersOfTen: [Int64] = [
        1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 10_000_000_000,
        100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
        10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
    ]

    /// Parses digits with an optional sign and decimal point. Returns `nil` on anything else
    /// or on more than 18 significant digits.
    @inlinable
    static func parse(_ field: UnsafeBufferPointer<UInt8>) -> NMEADecimal? {
        var index = 0
        let count = field.count
        guard count > 0 else { return nil }
        var negative = false
        if field[0] == UInt8(ascii: "-") {
            negative = true
            index = 1
        } else if field[0] == UInt8(ascii: "+") {
            index = 1
        }
        var mantissa: Int64 = 0
        if count <= 18 {
            // At most 18 digits: neither limit can be reached, so only the syntax is checked.
            // The digits before the point, then those after it.
            let first = index
            while index < count {
                let digit = field[index] &- 48
                guard digit < 10 else { break }
                mantissa = mantissa &* 10 &+ Int64(digit)
                index += 1
            }
            var point = -1
            if index < count {
                guard field[index] == UInt8(ascii: ".") else { return nil }
                point = index
                index += 1
                while index < count {
                    let digit = field[index] &- 48
                    guard digit < 10 else { return nil }
                    mantissa = mantissa &* 10 &+ Int64(digit)
                    index += 1
                }
            }
            guard count - first > (point < 0 ? 0 : 1) else { return nil }
            let scale = point < 0 ? 0 : UInt8(truncatingIfNeeded: count - point - 1)
            return NMEADecimal(unchecked: negative ? -mantissa : mantissa, scale: scale)
        }
        var scale: UInt8 = 0
        var significantDigits = 0
        var sawDigit = false
        var sawPoint = false
        while index < count {
            let byte = field[index]
            if byte &- 48 < 10 {
                if significantDigits >= 18 || scale >= 18 { return nil }
                mantissa = mantissa &* 10 &+ Int64(byte &- 48)
                if mantissa != 0 { significantDigits += 1 }
                if sawPoint { scale += 1 }
                sawDigit = true
            } else if byte == UInt8(ascii: ".") && !sawPoint {
                sawPoint = true
            } else {
                return nil
            }
            index += 1
        }
        guard sawDigit else { return nil }
        return NMEADecimal(mantissa: negative ? -mantissa : mantissa, scale: scale)
    }
}

/// A list of at most `capacity` elements stored inline, without a heap allocation.
public struct FixedList<let capacity: Int, Element: BitwiseCopyable & Hashable & Sendable>: Sendable,
    RandomAccessCollection, Hashable
{
    @usableFromInline var storage: InlineArray<capacity, Element>
    @usableFromInline var length: Int

    /// Creates an empty list whose unused slots hold `filler`.
    @inlinable public init(filler: Element) {
        storage = .init(repeating: filler)
        length = 0
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { length }
    @inlinable public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < length, "index out of range")
            return storage[position]
        }
        set {
            precondition(position >= 0 && position < length, "index out of range")
            storage[position] = newValue
        }
    }

    /// Whether another element fits.
    @inlinable public var isFull: Bool { length == capacity }

    /// Empties the list (its slots keep what they held).
    @inlinable mutating func removeAll() { length = 0 }

    /// Appends `element`; returns `false` (and drops it) when the list is full.
    @discardableResult
    @inlinable public mutating func append(_ element: Element) -> Bool {
        guard length < capacity else { return false }
        storage[length] = element
        length += 1
        return true
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.length == rhs.length else { return false }
        for index in 0..<lhs.length where lhs.storage[index] != rhs.storage[index] { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(length)
        for index in 0..<length { hasher.combine(storage[index]) }
    }
}

/// A UTC time of day as sent in `hhmmss.sss` fields, keeping the number of decimals sent.
public struct NMEATime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var hour: UInt8
    public var minute: UInt8
    /// 0…60 (60 only during a leap second).
    public var second: UInt8
    public var nanoseconds: UInt32
    /// How many decimals of a second were written (0…9).
    public var fractionDigits: UInt8

    public init(hour: UInt8, minute: UInt8, second: UInt8, nanoseconds: UInt32 = 0, fractionDigits: UInt8 = 0)
    {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanoseconds = nanoseconds
        self.fractionDigits = fractionDigits
    }

    /// Nanoseconds since midnight.
    public var nanosecondsOfDay: Int64 {
        (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * 1_000_000_000 + Int64(nanoseconds)
    }

    public static func < (lhs: NMEATime, rhs: NMEATime) -> Bool {
        lhs.nanosecondsOfDay < rhs.nanosecondsOfDay
    }

    public var description: String {
        var bytes: [UInt8] = []
        appendASCII(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func appendASCII(to out: inout [UInt8]) {
        appendTwoDigits(Int(hour), to: &out)
        appendTwoDigits(Int(minute), to: &out)
        appendTwoDigits(Int(second), to: &out)
        if fractionDigits > 0 {
            out.append(UInt8(ascii: "."))
            var divisor: UInt32 = 100_000_000
            for _ in 0..<fractionDigits {
                out.append(UInt8(truncatingIfNeeded: (nanoseconds / divisor) % 10) + 48)
                divisor /= 10
            }
        }
    }

    /// Parses `hhmmss` with optional decimals; `nil` when malformed or out of range.
    static func parse(_ field: UnsafeBufferPointer<UInt8>) -> NMEATime? {
        guard field.count >= 6 else { return nil }
        for index in 0..<6 where field[index] &- 48 >= 10 { return nil }
        let hour = (field[0] &- 48) * 10 + (field[1] &- 48)
        let minute = (field[2] &- 48) * 10 + (field[3] &- 48)
        let second = (field[4] &- 48) * 10 + (field[5] &- 48)
        guard hour < 24, minute < 60, second <= 60 else { return nil }
        var nanoseconds: UInt32 = 0
        var digits: UInt8 = 0
        if field.count > 6 {
            guard field[6] == UInt8(ascii: "."), field.count <= 16 else { return nil }
            var scale: UInt32 = 100_000_000
            for index in 7..<field.count {
                let digit = field[index] &- 48
                guard digit < 10 else { return nil }
                if digits < 9 {
                    nanoseconds += UInt32(digit) * scale
                    scale /= 10
                    digits += 1
                }
            }
        }
        return NMEATime(
            hour: hour, minute: minute, second: second, nanoseconds: nanoseconds, fractionDigits: digits)
    }
}

/// A calendar date as sent in RMC's `ddmmyy` field (two-digit year).
public struct NMEADate: Sendable, Hashable, CustomStringConvertible {
    public var day: UInt8
    public var month: UInt8
    /// The year within its century, 0…99.
    public var yearOfCentury: UInt8

    public init(day: UInt8, month: UInt8, yearOfCentury: UInt8) {
        self.day = day
        self.month = month
        self.yearOfCentury = yearOfCentury
    }

    /// The full year with the NMEA pivot: 69…99 → 1969…1999, 00…68 → 2000…2068.
    public var pivotedYear: Int {
        yearOfCentury >= 69 ? 1900 + Int(yearOfCentury) : 2000 + Int(yearOfCentury)
    }

    public var description: String {
        var bytes: [UInt8] = []
        appendTwoDigits(Int(day), to: &bytes)
        appendTwoDigits(Int(month), to: &bytes)
        appendTwoDigits(Int(yearOfCentury), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func parse(_ field: UnsafeBufferPointer<UInt8>) -> NMEADate? {
        guard field.count == 6 else { return nil }
        for index in 0..<6 where field[index] &- 48 >= 10 { return nil }
        let day = (field[0] &- 48) * 10 + (field[1] &- 48)
        let month = (field[2] &- 48) * 10 + (field[3] &- 48)
        let year = (field[4] &- 48) * 10 + (field[5] &- 48)
        guard (1...31).contains(day), (1...12).contains(month) else { return nil }
        return NMEADate(day: day, month: month, yearOfCentury: year)
    }
}

/// A latitude or longitude as sent: `ddmm.mmmm` / `dddmm.mmmm` and a hemisphere letter.
public struct NMEACoordinate: Sendable, Hashable {
    /// Degrees × 100 plus minutes, exactly as written (`4807.038` is 48° 07.038′).
    public var value: NMEADecimal
    /// `N`, `S`, `E` or `W` as an ASCII byte.
    public var hemisphere: UInt8

    public init(value: NMEADecimal, hemisphere: UInt8) {
        self.value = value
        self.hemisphere = hemisphere
    }

    /// Creates the field pair for signed decimal degrees, with `minuteDecimals` decimals of minutes.
    public init(degrees: Double, isLatitude: Bool, minuteDecimals: UInt8 = 5) {
        let magnitude = abs(degrees)
        var whole = magnitude.rounded(.down)
        let scaleFactor = NMEADecimal.powersOfTen[Int(minuteDecimals)]
        var minutes = ((magnitude - whole) * 60 * scaleFactor).rounded()
        if minutes >= 60 * scaleFactor {
            minutes -= 60 * scaleFactor
            whole += 1
        }
        let mantissa = Int64(whole) * 100 * Int64(scaleFactor) + Int64(minutes)
        self.value = NMEADecimal(mantissa: mantissa, scale: minuteDecimals)
        if isLatitude {
            self.hemisphere = degrees < 0 ? UInt8(ascii: "S") : UInt8(ascii: "N")
        } else {
            self.hemisphere = degrees < 0 ? UInt8(ascii: "W") : UInt8(ascii: "E")
        }
    }

    /// Signed decimal degrees (south and west negative), or `nil` when the minutes are 60 or more
    /// or the hemisphere letter is not one of `NSEW`.
    public var degrees: Double? {
        let unit = UInt64(NMEADecimal.integerPowersOfTen[Int(value.scale)])
        let magnitude = value.mantissa.magnitude
        // `dddmm.mmmm` as whole minutes (with the degrees above them) and a fraction of one.
        let wholeMinutes = magnitude / unit
        let wholeDegrees = wholeMinutes / 100
        let minutes = wholeMinutes % 100
        guard minutes < 60 else { return nil }
        // Never overflows: the minutes' mantissa is at most the whole magnitude.
        var result = Double(wholeDegrees) + Double(minutes * unit + magnitude % unit) / Double(unit) / 60
        if value.mantissa < 0 { result = -result }
        switch hemisphere {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): return result
        case UInt8(ascii: "S"), UInt8(ascii: "W"): return -result
        default: return nil
        }
    }
}

@inline(__always)
func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
    out.append(UInt8(truncatingIfNeeded: (value / 10) % 10) + 48)
    out.append(UInt8(truncatingIfNeeded: value % 10) + 48)
}
