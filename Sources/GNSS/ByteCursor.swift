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

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        position.pointee = byte
        position += 1
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        position.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        position += text.utf8CodeUnitCount
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
}

private let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12]

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

/// Writes ``formatFixed(_:_:)``'s text; the cursor has room for 32 + `decimals` bytes.
func writeFixed(_ value: Double, _ decimals: Int, to cursor: inout ByteCursor) {
    var scale = 1.0
    if decimals < powersOfTen.count {
        scale = powersOfTen[decimals]
    } else {
        for _ in 0..<decimals { scale *= 10 }
    }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9.0e15, decimals <= 18 else {
        // Out of the exact range: the shortest text that reads back as the value (at most 24
        // bytes).
        cursor.put(contentsOf: String(value).utf8)
        return
    }
    // The rounded digits as an exact decimal; a value that rounds to zero has no sign.
    let digits = Int64(scaled)
    cursor.put(NMEADecimal(mantissa: value < 0 ? -digits : digits, scale: UInt8(decimals)))
}
