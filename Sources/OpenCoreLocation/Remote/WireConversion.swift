// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine
import LocationWire

// What the daemon says in words that only the Apple API has.

extension CLError {
    init(wireText text: String) {
        let parts = text.split(separator: ":", maxSplits: 1)
        let code = parts.first.flatMap { Int($0) }.flatMap(Code.init(rawValue:)) ?? .denied
        self.init(code, parts.count > 1 ? String(parts[1]) : text)
    }
}
