// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Any JSON value: for reports whose keys are looked up one by one (gpsd's TPV and SKY) and for a
/// configuration file whose mistakes are named by line and column, which `JSONDecoder` does not
/// tell.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The JSON text `bytes` as a value; `nil` when it is not JSON.
    package static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? parsing(bytes)
    }

    /// The JSON text `bytes` (RFC 8259) as a value, or where and why it is not JSON. Nesting
    /// deeper than `depthLimit` is refused, so that a peer's text cannot exhaust the stack.
    package static func parsing(_ bytes: some Collection<UInt8>, depthLimit: Int = 64) throws(JSONSyntaxError)
        -> JSONValue
    {
        var parser = JSONParser(bytes: Array(bytes), depthLimit: depthLimit)
        return try parser.document()
    }

    /// The member `key` of an object; `nil` for anything else or a missing key.
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// A number's value.
    package var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// A number's value when it is a whole number an `Int` holds (`3` and `3.0`, not `3.5`).
    package var int: Int? {
        guard case .number(let value) = self, value.rounded(.towardZero) == value,
            let exact = Int(exactly: value)
        else { return nil }
        return exact
    }

    package var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}
