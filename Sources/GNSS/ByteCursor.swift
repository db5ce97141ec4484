// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// Where text is written: memory with room for a number of bytes. Writers make sure of room
/// with ``hasRoom(for:)`` before they `put`; when there is too little, the cursor remembers it
/// and ``append(to:estimate:_:)`` writes everything again with more.
struct ByteCursor {
    private let start: UnsafeMutablePointer<UInt8>
    private var position: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>
    /// Whether a writer found too little room.
    private(set) var overflowed = false

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        start = buffer.baseAddress!
        position = start
        end = start + buffer.count
    }

    /// Appends what `write` writes to `output`, starting with room for `estimate` bytes.
    static func append(to output: inout [UInt8], estimate: Int, _ write: (inout ByteCursor) -> Void) {
        var room = max(estimate, 64)
        while true {
            var overflowed = false
            output.append(addingCapacity: room) { span in
                span.withUnsafeMutableBufferPointer { buffer, initialized in
                    var cursor = ByteCursor(UnsafeMutableBufferPointer(rebasing: buffer[initialized...]))
                    write(&cursor)
                    overflowed = cursor.overflowed
                    if !overflowed { initialized += cursor.position - cursor.start }
                }
            }
            if !overflowed { return }
            room *= 4
        }
    }

    /// Whether `count` more bytes fit; notes the overflow when they do not.
    @inline(__always)
    mutating func hasRoom(for count: Int) -> Bool {
        if end - position >= count { return true }
        overflowed = true
        return false
    }

    /// `digits` with a decimal point `decimals` digits from the right (at least one digit before
    /// it), after a minus sign when `negative`: at most 11 bytes.
    @inline(__always)
    mutating func putSmall(_ digits: UInt32, decimals: Int, negative: Bool) {
        if negative { put(UInt8(ascii: "-")) }
        // The commonest numbers of all, a satellite's number and signal, without a loop.
        if decimals == 0 && digits < 100 {
            if digits < 10 {
                put(UInt8(truncatingIfNeeded: digits) &+ 48)
            } else {
                var pair = digits
                putPair(&pair, endingAt: 1)
                position += 2
            }
            return
        }
        var count = 1
        var power: UInt32 = 10
        while count < 9 && digits >= power {
            count += 1
            power &*= 10
        }
        count = max(count, decimals + 1)
        let length = count + (decimals > 0 ? 1 : 0)
        var remaining = digits
        var index = length - 1
        // Two digits per division, from a table of the pairs "00" to "99": the decimals, the
        // point, then the whole part.
        var decimalsLeft = decimals
        while decimalsLeft >= 2 {
            putPair(&remaining, endingAt: index)
            index -= 2
            decimalsLeft -= 2
        }
        if decimalsLeft == 1 {
            position[index] = UInt8(truncatingIfNeeded: remaining % 10) &+ 48
            remaining /= 10
            index -= 1
        }
        if decimals > 0 {
            position[index] = UInt8(ascii: ".")
            index -= 1
        }
        while index >= 1 {
            putPair(&remaining, endingAt: index)
            index -= 2
        }
        if index == 0 {
            position[0] = UInt8(truncatingIfNeeded: remaining % 10) &+ 48
        }
        position += length
    }

    /// Writes the last two digits of `remaining` at `index - 1` and `index`, and drops them.
    @inline(__always)
    private func putPair(_ remaining: inout UInt32, endingAt index: Int) {
        let pair = Int(remaining % 100) &* 2
        remaining /= 100
        let pairs = Self.digitPairs.utf8Start
        position[index] = pairs[pair + 1]
        position[index - 1] = pairs[pair]
    }

    /// "00", "01", … "99" in a row; computed, so that no lazy initialisation guards its reads.
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        position.pointee = byte
        position += 1
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        if count <= 8 {
            // A key's name is this short: a call to copy it costs more than the bytes.
            let source = text.utf8Start
            var index = 0
            while index < count {
                position[index] = source[index]
                index &+= 1
            }
        } else {
            position.update(from: text.utf8Start, count: count)
        }
        position += count
    }

    /// At most ``NMEADecimal/maximumASCIICount`` bytes.
    @inline(__always)
    mutating func put(_ decimal: NMEADecimal) {
        position += decimal.writeASCII(to: position)
    }

    /// `value` in decimal with at least `width` digits: at most 20 + `width` bytes.
    mutating func put(_ value: Int, width: Int) {
        let magnitude = Int64(clamping: value.magnitude)
        if value < 0 { put(UInt8(ascii: "-")) }
        var digits = 1
        var limit: Int64 = 10
        while digits < 19 && magnitude >= limit {
            digits += 1
            limit = limit &* 10
        }
        for _ in digits..<max(width, digits) { put(UInt8(ascii: "0")) }
        put(NMEADecimal(mantissa: magnitude, scale: 0))
    }

    /// Bytes written so far, for text that is not in ASCII digits (a `Double`'s description).
    mutating func put(contentsOf bytes: some Collection<UInt8>) {
        for byte in bytes { put(byte) }
    }

    /// Copies `bytes` at once.
    @inline(__always)
    mutating func put(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            position.update(from: base, count: buffer.count)
            position += buffer.count
        }
    }
}

/// `value` with exactly `decimals` decimals, rounded half away from zero (as `%.Nf` prints it
/// for all but exact binary ties).
public func formatFixed(_ value: Double, _ decimals: Int) -> String {
    var bytes: [UInt8] = []
    ByteCursor.append(to: &bytes, estimate: 32 + decimals) { cursor in
        guard cursor.hasRoom(for: 32 + decimals) else { return }
        writeFixed(value, decimals, to: &cursor)
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The number ``formatFixed(_:_:)``'s text reads back as: `value` rounded to `decimals`
/// decimals the same way. What a format holds at a fixed resolution is held at that resolution
/// where it is read, so that writing it again gives the same text and reading that the same value.
public func roundedToFixed(_ value: Double, _ decimals: Int) -> Double {
    guard value.isFinite else { return value }
    let scale = fixedScale(decimals)
    let product = abs(value) * scale
    // Out of the exact range, the text is the shortest that reads back as the value itself.
    guard product < exactFixedDigits, decimals <= 18 else { return value }
    let digits = roundedHalfAwayFromZero(product)
    if digits == 0 { return 0 }  // the text has no sign
    // Both operands are exact and the quotient is correctly rounded: the double nearest the
    // decimal, which is what reading the text gives.
    return Double(value < 0 ? -digits : digits) / scale
}

@inline(__always)
private func fixedScale(_ decimals: Int) -> Double {
    switch decimals {
    case 0: 1
    case 1: 1e1
    case 2: 1e2
    case 3: 1e3
    case 4: 1e4
    case 5: 1e5
    case 6: 1e6
    case 9: 1e9
    default: (0..<decimals).reduce(1.0) { value, _ in value * 10 }
    }
}

/// The digits a fixed text is written with stay below this. Below 2^53 the product is rounded
/// exactly; below 2^51 the double nearest the text's decimal, scaled again, is within a
/// quarter of the same digits, so the text reads back and writes again unchanged. Beyond it
/// (a radius of 10^12 m to the millimetre), the text is the shortest that reads back as the value.
private let exactFixedDigits = 1.0e15

/// A product of ``writeFixed(_:_:to:)`` (not negative, below ``exactFixedDigits``) rounded half away from zero, as
/// `rounded()` does, without its call into libm: below 2^53 the truncation and the remainder are
/// exact.
@inline(__always)
private func roundedHalfAwayFromZero(_ product: Double) -> Int64 {
    let truncated = Int64(product)
    return product - Double(truncated) >= 0.5 ? truncated + 1 : truncated
}

/// Writes ``formatFixed(_:_:)``'s text; the cursor has room for 32 + `decimals` bytes.
func writeFixed(_ value: Double, _ decimals: Int, to cursor: inout ByteCursor) {
    let scale = fixedScale(decimals)
    let product = abs(value) * scale
    guard product < exactFixedDigits, decimals <= 18 else {
        // Out of the exact range: the shortest text that reads back as the value (at most 24
        // bytes).
        cursor.put(contentsOf: String(value).utf8)
        return
    }
    let digits = roundedHalfAwayFromZero(product)
    if digits < 100_000_000, decimals <= 8 {
        // Most numbers of a report (angles, signal strengths, DOPs) are this small: written with
        // 32-bit arithmetic, in line.
        cursor.putSmall(UInt32(digits), decimals: decimals, negative: value < 0 && digits != 0)
        return
    }
    // The rounded digits as an exact decimal; a value that rounds to zero has no sign.
    cursor.put(NMEADecimal(mantissa: value < 0 ? -digits : digits, scale: UInt8(decimals)))
}
