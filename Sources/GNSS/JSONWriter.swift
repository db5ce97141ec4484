// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// JSON string literals.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        ByteCursor.append(to: &bytes, estimate: maximumQuotedCount(text)) { cursor in
            guard cursor.hasRoom(for: maximumQuotedCount(text)) else { return }
            writeQuoted(text, to: &cursor)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The most bytes `text` takes as a literal: each byte may become `\u00XX`.
    static func maximumQuotedCount(_ text: String) -> Int { 2 + 6 * text.utf8.count }

    /// Writes `text` as a literal; the cursor has room for ``maximumQuotedCount(_:)`` bytes.
    static func writeQuoted(_ text: String, to cursor: inout ByteCursor) {
        cursor.put(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(byte)
            case UInt8(ascii: "\n"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"):
                cursor.put(UInt8(ascii: "\\"))
                cursor.put(UInt8(ascii: "t"))
            case 0..<0x20:
                cursor.put("\\u00")
                cursor.put(lowercaseHexDigit(byte >> 4))
                cursor.put(lowercaseHexDigit(byte & 15))
            default: cursor.put(byte)
            }
        }
        cursor.put(UInt8(ascii: "\""))
    }

    private static func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 48 : nibble + 87
    }
}

/// Builds a JSON object in place at the end of a byte array, skipping `nil` values; objects and
/// arrays nest. Each value first makes sure of room for its largest form. Every JSON object this
/// package prints is written with it: the decoder's records and gpsd's reports, and the command
/// line's updates and monitor events.
package struct JSONObjectWriter {
    private var cursor: ByteCursor
    /// Whether nothing has been written yet at the current level.
    private var first = true

    /// Appends the object `body` writes to `output`; `estimate` is the room to start with.
    package static func append(
        to output: inout [UInt8], estimate: Int, _ body: (inout JSONObjectWriter) -> Void
    ) {
        ByteCursor.append(to: &output, estimate: estimate) { cursor in
            var json = JSONObjectWriter(cursor: cursor)
            json.open(UInt8(ascii: "{"))
            body(&json)
            json.close(UInt8(ascii: "}"))
            cursor = json.cursor
        }
    }

    /// The object `body` writes, as text.
    package static func object(estimate: Int = 512, _ body: (inout JSONObjectWriter) -> Void) -> String {
        var bytes: [UInt8] = []
        append(to: &bytes, estimate: estimate, body)
        return String(decoding: bytes, as: UTF8.self)
    }

    private init(cursor: ByteCursor) { self.cursor = cursor }

    /// The longest value ``add(_:_:decimals:)`` writes.
    private static let maximumNumberCount = 32

    /// Writes the key, with room after it for `valueCount` bytes; `false` when there is none.
    @inline(__always)
    private mutating func key(_ name: StaticString, room valueCount: Int) -> Bool {
        guard cursor.hasRoom(for: name.utf8CodeUnitCount + 4 + valueCount) else { return false }
        if !first { cursor.put(UInt8(ascii: ",")) }
        first = false
        cursor.put(UInt8(ascii: "\""))
        cursor.put(name)
        cursor.put(UInt8(ascii: "\""))
        cursor.put(UInt8(ascii: ":"))
        return true
    }

    package mutating func add(_ name: StaticString, string value: String?) {
        guard let value, key(name, room: JSONText.maximumQuotedCount(value)) else { return }
        JSONText.writeQuoted(value, to: &cursor)
    }

    /// A member whose name is only known at run time (a map's key), escaped as any string is.
    package mutating func add(key name: String, string value: String) {
        let room = JSONText.maximumQuotedCount(name) + JSONText.maximumQuotedCount(value) + 2
        guard cursor.hasRoom(for: room) else { return }
        if !first { cursor.put(UInt8(ascii: ",")) }
        first = false
        JSONText.writeQuoted(name, to: &cursor)
        cursor.put(UInt8(ascii: ":"))
        JSONText.writeQuoted(value, to: &cursor)
    }

    /// A string as the next element of an array.
    package mutating func element(string value: String) {
        guard cursor.hasRoom(for: JSONText.maximumQuotedCount(value) + 1) else { return }
        if !first { cursor.put(UInt8(ascii: ",")) }
        first = false
        JSONText.writeQuoted(value, to: &cursor)
    }

    /// A timestamp as ``UTCTimestamp/iso8601``, quoted.
    package mutating func add(_ name: StaticString, time value: UTCTimestamp) {
        guard key(name, room: UTCTimestamp.maximumISO8601Count + 2) else { return }
        cursor.put(UInt8(ascii: "\""))
        value.writeISO8601(to: &cursor)
        cursor.put(UInt8(ascii: "\""))
    }

    package mutating func add(_ name: StaticString, integer value: Int?) {
        guard let value, key(name, room: NMEADecimal.maximumASCIICount) else { return }
        if value >= 0 && value < 100_000_000 {
            cursor.putSmall(UInt32(value), decimals: 0, negative: false)
        } else {
            cursor.put(NMEADecimal(value))
        }
    }

    /// A string known when the program was built, that needs no escaping (a report's class).
    package mutating func add(_ name: StaticString, constant value: StaticString) {
        guard key(name, room: value.utf8CodeUnitCount + 2) else { return }
        cursor.put(UInt8(ascii: "\""))
        cursor.put(value)
        cursor.put(UInt8(ascii: "\""))
    }

    /// A string escaped and quoted once already (see ``QuotedText``).
    package mutating func add(_ name: StaticString, quoted value: QuotedText?) {
        guard let value, key(name, room: value.bytes.count) else { return }
        cursor.put(contentsOf: value.bytes)
    }

    /// `"name":null`.
    package mutating func addNull(_ name: StaticString) {
        guard key(name, room: 4) else { return }
        cursor.put("null")
    }

    package mutating func add(_ name: StaticString, bool value: Bool) {
        guard key(name, room: 5) else { return }
        // Byte by byte: a copy call costs more than these few stores (one per satellite).
        if value {
            cursor.put(UInt8(ascii: "t"))
            cursor.put(UInt8(ascii: "r"))
            cursor.put(UInt8(ascii: "u"))
            cursor.put(UInt8(ascii: "e"))
        } else {
            cursor.put(UInt8(ascii: "f"))
            cursor.put(UInt8(ascii: "a"))
            cursor.put(UInt8(ascii: "l"))
            cursor.put(UInt8(ascii: "s"))
            cursor.put(UInt8(ascii: "e"))
        }
    }

    package mutating func add(_ name: StaticString, _ value: Double?, decimals: Int) {
        guard let value, value.isFinite, key(name, room: Self.maximumNumberCount + decimals) else { return }
        writeFixed(value, decimals, to: &cursor)
    }

    /// Opens an object as the value of `name`; ``closeObject()`` ends it.
    package mutating func openObject(_ name: StaticString) {
        guard key(name, room: 1) else { return }
        open(UInt8(ascii: "{"))
    }

    /// Opens an object as the next element of an array.
    package mutating func openObject() {
        guard cursor.hasRoom(for: 2) else { return }
        if !first { cursor.put(UInt8(ascii: ",")) }
        open(UInt8(ascii: "{"))
    }

    package mutating func closeObject() { close(UInt8(ascii: "}")) }

    /// Opens an array as the value of `name`; ``closeArray()`` ends it.
    package mutating func openArray(_ name: StaticString) {
        guard key(name, room: 1) else { return }
        open(UInt8(ascii: "["))
    }

    package mutating func closeArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        guard cursor.hasRoom(for: 1) else { return }
        cursor.put(bracket)
        first = true
    }

    private mutating func close(_ bracket: UInt8) {
        guard cursor.hasRoom(for: 1) else { return }
        cursor.put(bracket)
        first = false
    }
}

/// A string as JSON writes it, quotes included, escaped once for the many reports that name it
/// (a receiver's path in each of gpsd's reports).
public struct QuotedText: Sendable, Hashable {
    package let bytes: [UInt8]

    public init(_ text: String) {
        var bytes: [UInt8] = []
        ByteCursor.append(to: &bytes, estimate: JSONText.maximumQuotedCount(text)) { cursor in
            JSONText.writeQuoted(text, to: &cursor)
        }
        self.bytes = bytes
    }
}
