// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A process held by a pidfd taken while it is known to be alive (a program the test started, a
/// script's child, a helper's): signalled through it, never by its number. A pid that has ended is
/// soon another process's — at once after a test stages a pid's reuse with `ns_last_pid` — and a
/// `kill` by number would end a process of the suites running beside it.
public final class PinnedProcess: Sendable {
    public let pid: Int32
    private let pidfd: Int32

    /// Pins `pid`, which must be alive now; nil when no process has that pid.
    public init?(_ pid: Int32) {
        let pidfd = pidfd_open(pid, 0)
        guard pidfd >= 0 else { return nil }
        self.pid = pid
        self.pidfd = pidfd
    }

    deinit { close(pidfd) }

    /// Sends `signal` to the process pinned, if it still runs; a process that has ended is not
    /// signalled, whoever has its number now.
    public func signal(_ signal: Int32) {
        _ = pidfd_send_signal(pidfd, signal, nil, 0)
    }
}
