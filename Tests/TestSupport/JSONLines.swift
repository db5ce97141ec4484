// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The JSON objects among a program's output lines, in order; other lines (a message, a line
/// cut by the program's end) are left out.
public func jsonObjects(inLines text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
}
