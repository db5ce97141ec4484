// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The comma-separated fields of one sentence body (`GPGGA,123519,…` without `$` and `*hh`),
/// located once without copying. Field 0 is the address.
@usableFromInline
struct Fields: ~Copyable {
    static let capacity = 64
    let body: UnsafeBufferPointer<UInt8>
    /// The body's first byte (never read when the body is empty).
    private let base: UnsafePointer<UInt8>
    /// `bounds[i]` is where field `i - 1` ends (its comma, or the end of the body) and
    /// `bounds[i] + 1` where field `i` starts, with `bounds[0] = -1`: `capacity + 1` slots for the
    /// first `capacity` fields, lent by ``withFields(_:_:)``.
    private let bounds: UnsafeMutablePointer<Int16>
    /// How many fields the sentence has (may exceed `capacity`; later ones are not addressable).
    let count: Int
    /// How many fields can be read: `count`, at most `capacity`.
    private let addressable: Int

    /// Calls `body` with the fields of `sentenceBody`, located in memory on the stack.
    @inline(__always)
    static func withFields<Result>(
        _ sentenceBody: UnsafeBufferPointer<UInt8>, _ body: (borrowing Fields) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: capacity + 1) { storage in
            body(Fields(sentenceBody, bounds: storage.baseAddress!))
        }
    }

    @inline(__always)
    private init(_ body: UnsafeBufferPointer<UInt8>, bounds: UnsafeMutablePointer<Int16>) {
        // Fields are located in the first 32 KiB (a framer's default limit is 1 KiB); a longer body
        // ends there for `Fields`, while `body` keeps it whole.
        let length = min(body.count, Int(Int16.max))
        self.body = body
        self.base = body.baseAddress ?? UnsafePointer(bitPattern: 1)!
        self.bounds = bounds
        bounds[0] = -1
        var commas = 0
        var index = 0
        while index + 8 <= length {
            var flags = Bytes8.equal(Bytes8.load(base + index), UInt8(ascii: ","))
            while flags != 0 {
                if commas < Fields.capacity {
                    bounds[commas + 1] = Int16(truncatingIfNeeded: index + Bytes8.firstIndex(flags))
                }
                commas += 1
                flags &= flags &- 1
            }
            index += 8
        }
        while index < length {
            if base[index] == UInt8(ascii: ",") {
                if commas < Fields.capacity { bounds[commas + 1] = Int16(truncatingIfNeeded: index) }
                commas += 1
            }
            index += 1
        }
        if commas < Fields.capacity { bounds[commas + 1] = Int16(truncatingIfNeeded: length) }
        count = commas + 1
        addressable = min(count, Fields.capacity)
    }

    /// Field `index`, or an empty field when the sentence is shorter.
    @inline(__always)
    subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
        guard index < addressable else { return UnsafeBufferPointer(start: nil, count: 0) }
        let start = Int(bounds[index]) &+ 1
        return UnsafeBufferPointer(start: base + start, count: Int(bounds[index + 1]) &- start)
    }

    @inline(__always)
    func isEmpty(_ index: Int) -> Bool { self[index].isEmpty }
    @inline(__always)
    func decimal(_ index: Int) -> NMEADecimal? { NMEADecimal.parse(self[index]) }
    @inline(__always)
    func time(_ index: Int) -> NMEATime? { NMEATime.parse(self[index]) }

    /// An unsigned integer field; `nil` when empty, signed, fractional or too large.
    @inline(__always)
    func integer(_ index: Int) -> Int? {
        let field = self[index]
        if let short = Self.shortDigits(field) { return short < 0 ? nil : Int(short) }
        guard !field.isEmpty, field.count <= 9 else { return nil }
        var value = 0
        for byte in field {
            let digit = byte &- 48
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int(digit)
        }
        return value
    }

    /// A whole number that may carry decimals or a sign (`"45.0"`, `"-3"`), truncated toward zero.
    @inline(__always)
    func wholeNumber(_ index: Int) -> Int? {
        guard let decimal = decimal(index), abs(decimal.integerPart) <= Int64(Int32.max) else { return nil }
        return Int(decimal.integerPart)
    }

    /// A whole number as ``wholeNumber(_:)`` reads it, when it fits in an `Int16`: the small
    /// numbers of satellite views (elevation, azimuth, signal strength), read in one pass.
    @inline(__always)
    func smallWholeNumber(_ index: Int) -> Int16? {
        let field = self[index]
        if let short = Self.shortDigits(field), short >= 0 { return Int16(short) }
        let count = field.count
        guard count > 0 else { return nil }
        if count <= 4 {
            // Up to four plain digits, as receivers send them.
            var value: Int16 = 0
            var plain = true
            for byte in field {
                let digit = byte &- 48
                plain = plain && digit < 10
                value = value &* 10 &+ Int16(digit)
            }
            if plain { return value }
        }
        return Self.wholeNumberInt16(field)
    }

    /// One to three plain digits, read without a loop: their value, -1 when they are not all
    /// digits, `nil` for an empty or longer field.
    @inline(__always)
    private static func shortDigits(_ field: UnsafeBufferPointer<UInt8>) -> Int16? {
        guard let base = field.baseAddress else { return nil }
        switch field.count {
        case 1:
            let d0 = base[0] &- 48
            return d0 < 10 ? Int16(d0) : -1
        case 2:
            let d0 = base[0] &- 48
            let d1 = base[1] &- 48
            return max(d0, d1) < 10 ? Int16(d0) &* 10 &+ Int16(d1) : -1
        case 3:
            let d0 = base[0] &- 48
            let d1 = base[1] &- 48
            let d2 = base[2] &- 48
            return max(d0, d1, d2) < 10 ? Int16(d0) &* 100 &+ Int16(d1) &* 10 &+ Int16(d2) : -1
        default:
            return nil
        }
    }

    private static func wholeNumberInt16(_ field: UnsafeBufferPointer<UInt8>) -> Int16? {
        NMEADecimal.parse(field).flatMap { Int16(exactly: $0.integerPart) }
    }

    /// The first byte of a field as a letter, `nil` when the field is empty.
    @inline(__always)
    func letter(_ index: Int) -> NMEALetter? {
        let field = self[index]
        return field.isEmpty ? nil : NMEALetter(rawValue: field[0])
    }

    @inline(__always)
    func coordinate(_ valueIndex: Int) -> NMEACoordinate? {
        guard let value = decimal(valueIndex), let hemisphere = letter(valueIndex + 1) else { return nil }
        return NMEACoordinate(value: value, hemisphere: hemisphere.rawValue)
    }

    func string(_ index: Int) -> String {
        String(decoding: self[index], as: UTF8.self)
    }
}

@inline(__always)
func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? nibble + 48 : nibble + 55 }

@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 48
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 55
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 87
    default: nil
    }
}
