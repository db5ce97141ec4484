// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Why a text is not JSON, and where: the byte offset, and the line and column an editor shows.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, in words ("a ',' or '}' was expected after the value").
    package var reason: String
    package var offset: Int
    /// 1-based, counted in lines and in bytes within the line.
    package var line: Int
    package var column: Int

    package var description: String { "\(reason) at line \(line), column \(column)" }
}

/// A recursive-descent reader of RFC 8259 JSON into ``JSONValue``.
struct JSONParser {
    let bytes: [UInt8]
    let depthLimit: Int
    var position = 0
    var depth = 0

    init(bytes: [UInt8], depthLimit: Int) {
        self.bytes = bytes
        self.depthLimit = depthLimit
    }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        let value = try self.value()
        skipSpace()
        guard position == bytes.count else { throw failure("the text goes on after the JSON value") }
        return value
    }

    private func failure(_ reason: String) -> JSONSyntaxError {
        let before = bytes[..<min(position, bytes.count)]
        let line = before.count { $0 == 0x0A } + 1
        let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return JSONSyntaxError(reason: reason, offset: position, line: line, column: column)
    }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard let byte = next else { throw failure("a value was expected, and the text ended") }
        switch byte {
        case UInt8(ascii: "{"): return try nested { (parser) throws(JSONSyntaxError) in try parser.object() }
        case UInt8(ascii: "["): return try nested { (parser) throws(JSONSyntaxError) in try parser.array() }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("'\(Self.shown(byte))' cannot begin a value (strings take double quotes)")
        }
    }

    private mutating func nested(
        _ body: (inout JSONParser) throws(JSONSyntaxError) -> JSONValue
    ) throws(JSONSyntaxError) -> JSONValue {
        guard depth < depthLimit else { throw failure("nested deeper than \(depthLimit) levels") }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if next == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard next == UInt8(ascii: "\"") else {
                throw failure("a member's name in double quotes was expected")
            }
            let key = try string()
            skipSpace()
            guard next == UInt8(ascii: ":") else {
                throw failure("a ':' was expected after the name \"\(key)\"")
            }
            position += 1
            members[key] = try value()
            skipSpace()
            switch next {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw failure("a ',' or '}' was expected after the value of \"\(key)\"")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipSpace()
        if next == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipSpace()
            switch next {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw failure("a ',' or ']' was expected after an element of a list")
            }
        }
    }

    private mutating func word(_ text: StaticString) throws(JSONSyntaxError) {
        let count = text.utf8CodeUnitCount
        let matches =
            position + count <= bytes.count
            && text.withUTF8Buffer { expected in bytes[position..<position + count].elementsEqual(expected) }
        guard matches else { throw failure("'\(text)' was expected") }
        position += count
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = position
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.position
            while let byte = parser.next, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                parser.position += 1
            }
            return parser.position - from
        }
        if next == UInt8(ascii: "-") { position += 1 }
        let leading = position
        guard digits(&self) > 0 else { throw failure("a digit was expected in a number") }
        if bytes[leading] == UInt8(ascii: "0"), position - leading > 1 {
            position = leading
            throw failure("a number cannot begin with 0")
        }
        if next == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw failure("a digit was expected after the decimal point") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            position += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw failure("a digit was expected in the exponent") }
        }
        guard let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)) else {
            throw failure("the number cannot be read")
        }
        return value
    }

    /// A string: its bytes as they are when it has no escape (gpsd's strings have none), else
    /// the runs between escapes and what each escape stands for.
    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        var run = position
        var unescaped: [UInt8]?
        while true {
            guard let byte = next else { throw failure("the text ended inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                let tail = bytes[run..<position]
                position += 1
                guard var text = unescaped else { return String(decoding: tail, as: UTF8.self) }
                text += tail
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                var text = unescaped ?? []
                text += bytes[run..<position]
                position += 1
                UTF8.encode(try escape()) { text.append($0) }
                unescaped = text
                run = position
            case 0..<0x20:
                throw failure("a control code (below 0x20) must be escaped inside a string")
            default:
                position += 1
            }
        }
    }

    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard let byte = next else { throw failure("the text ended inside a string") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit), next == UInt8(ascii: "\\"), position + 1 < bytes.count,
                bytes[position + 1] == UInt8(ascii: "u")
            {
                position += 2
                let low = try hex4()
                if (0xDC00..<0xE000).contains(low) {
                    return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
                }
                return Unicode.Scalar(0xFFFD)!
            }
            return Unicode.Scalar(unit) ?? Unicode.Scalar(0xFFFD)!
        default:
            position -= 1
            throw failure("'\\\(Self.shown(byte))' is not an escape JSON knows")
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next, let digit = Self.hexDigit(byte) else {
                throw failure("four hexadecimal digits were expected after \\u")
            }
            unit = unit << 4 | digit
            position += 1
        }
        return unit
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// A byte as a message may show it: itself when printable ASCII, else its code.
    private static func shown(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "byte 0x" + String(byte, radix: 16)
    }
}
