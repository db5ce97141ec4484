// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import TestSupport
import Testing

@Suite("The JSON reader of gpsd's reports and gpslocd's configuration")
struct JSONParserTests {
    @Test(
        "values as RFC 8259 has them",
        arguments: [
            (
                #"{"a":1,"b":[true,false,null],"c":"x"}"#,
                JSONValue.object([
                    "a": .number(1), "b": .array([.bool(true), .bool(false), .null]), "c": .string("x"),
                ])
            ),
            (
                " [ -0.5e2 , 1E+3, 0, 12.25 ] ",
                .array([.number(-50), .number(1000), .number(0), .number(12.25)])
            ),
            (#""é\u00e9\ud83d\ude00\n\"\\\/""#, .string("éé😀\n\"\\/")),
            ("{}", .object([:])),
            ("[]", .array([])),
        ] as [(String, JSONValue)])
    func values(text: String, expected: JSONValue) throws {
        #expect(try JSONValue.parsing(Array(text.utf8)) == expected)
    }

    @Test(
        "what is not JSON is named with its line and column",
        arguments: [
            (
                "{\n  \"sources\": [\"serial:/dev/ttyUSB0\"\n}",
                "a ',' or ']' was expected after an element of a list at line 3, column 1"
            ),
            (
                #"{"sources": ['x']}"#,
                "''' cannot begin a value (strings take double quotes) at line 1, column 14"
            ),
            (#"{"a" 1}"#, #"a ':' was expected after the name "a" at line 1, column 6"#),
            ("[1,2", "a ',' or ']' was expected after an element of a list at line 1, column 5"),
            ("[01]", "a number cannot begin with 0 at line 1, column 2"),
            ("[1.]", "a digit was expected after the decimal point at line 1, column 4"),
            (#"["a\qb"]"#, #"'\q' is not an escape JSON knows at line 1, column 5"#),
            (
                "\"a\u{01}\"",
                "a control code (below 0x20) must be escaped inside a string at line 1, column 3"
            ),
            ("{} {}", "the text goes on after the JSON value at line 1, column 4"),
            ("", "a value was expected, and the text ended at line 1, column 1"),
            ("tru", "'true' was expected at line 1, column 1"),
        ])
    func mistakes(text: String, says: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parsing(Array(text.utf8)) }
        #expect(error?.description == says)
    }

    @Test("nesting deeper than the limit is refused, not a crash")
    func depth() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue.parse(Array(deep.utf8)) == nil)
        let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(JSONValue.parse(Array(allowed.utf8)) != nil)
    }

    /// Generated documents read as Foundation's reader reads them (numbers to within its rounding); random bytes and every prefix
    /// of a document are an answer, never a crash.
    @Test("the same values as JSONSerialization on 2,000 generated documents; any bytes are an answer")
    func agreesWithFoundation() async throws {
        var random = SeededGenerator(seed: 33)
        var yielder = Yielder()
        for _ in 0..<2000 {
            await yielder.giveWay()
            let text = Self.document(depth: 0, using: &random)
            let ours = try JSONValue.parsing(Array(text.utf8))
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            #expect(Self.same(ours, theirs), "\(text)")
            for cut in stride(from: 0, to: text.utf8.count, by: 7) {
                _ = JSONValue.parse(Array(text.utf8.prefix(cut)))
            }
        }
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            _ = JSONValue.parse(bytes)
        }
    }

    private static func document(depth: Int, using random: inout SeededGenerator) -> String {
        switch Int.random(in: depth > 3 ? 0..<4 : 0..<6, using: &random) {
        case 0: return ["true", "false", "null"].randomElement(using: &random)!
        case 1:
            let value = Double.random(in: -1e6...1e6, using: &random)
            return Bool.random(using: &random) ? String(Int(value)) : "\(value)"
        case 2, 3:
            let pieces = ["a", "é", "\\n", "\\\"", "\\u0041", "😀", " ", "\\/", "Z"]
            return "\""
                + (0..<Int.random(in: 0..<6, using: &random)).map { _ in pieces.randomElement(using: &random)!
                }
                .joined() + "\""
        case 4:
            return "["
                + (0..<Int.random(in: 0..<4, using: &random)).map { _ in
                    document(depth: depth + 1, using: &random)
                }
                .joined(separator: ",") + "]"
        default:
            return "{"
                + (0..<Int.random(in: 0..<4, using: &random)).map { index in
                    "\"k\(index)\" : " + document(depth: depth + 1, using: &random)
                }.joined(separator: ", ") + "}"
        }
    }

    private static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let value):
            guard let number = theirs as? NSNumber, String(cString: number.objCType) == "c" else {
                return false
            }
            return number.boolValue == value
        case .number(let value):
            // Foundation's reader misses the nearest double by an ulp now and then; ours is
            // `Double(String)`'s, correctly rounded.
            guard let number = theirs as? NSNumber else { return false }
            return abs(number.doubleValue - value) <= abs(value) * 1e-15
        case .string(let value): return theirs as? String == value
        case .array(let values):
            guard let array = theirs as? [Any], array.count == values.count else { return false }
            return zip(values, array).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let object = theirs as? [String: Any], object.count == members.count else { return false }
            return members.allSatisfy { key, value in object[key].map { same(value, $0) } ?? false }
        }
    }
}
