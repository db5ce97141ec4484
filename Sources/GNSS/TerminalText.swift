// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Text from outside (an app's identifier, a manifest's usage description) made safe to show on
/// a terminal: control characters, escape sequences among them, are shown as `\u{1B}`-style
/// escapes instead of acting on the terminal. Line breaks are kept where `keepingLineBreaks`.
package func terminalSafe(_ text: String, keepingLineBreaks: Bool = false) -> String {
    var result = ""
    result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
        let value = scalar.value
        let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
        if isControl && !(keepingLineBreaks && scalar == "\n") {
            result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

extension StringProtocol {
    /// The text without the spaces, tabs and line breaks at either end (an answer typed at a
    /// prompt, a number read from a file).
    package func trimmingWhitespace() -> String {
        var slice = self[...]
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
