// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking

/// Directories of a test's own under the system's temporary directory, removed with the value
/// that made them: a suite's instance (made anew for each test) or a test's own local. A test
/// run leaves nothing behind in `/tmp`, however many times it runs.
public final class ScratchDirectories: Sendable {
    private let prefix: String
    private let made = Mutex<[String]>([])

    /// `prefix` names the directories (`prefix-XXXXXXXX`), for whoever finds one while it lives.
    public init(_ prefix: String) { self.prefix = prefix }

    deinit {
        for path in made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A new, empty directory.
    public func make() throws -> String {
        let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        made.withLock { $0.append(path) }
        return path
    }

    /// `text` written to a file named `name` in a new directory; its path.
    public func file(_ name: String, _ text: String) throws -> String {
        let path = try make() + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
