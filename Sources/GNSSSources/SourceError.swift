// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import SystemPackage

/// Why a log could not be read; `errno` is the system's error when one caused it. Reading it
/// again would fail again: it is permanent.
public struct SourceError: SourceFailure, Sendable, CustomStringConvertible {
    public var description: String
    public var errno: Errno?
    public var isPermanent: Bool { true }

    public init(_ description: String, errno: Errno? = nil) {
        self.description = description
        self.errno = errno
    }
}
