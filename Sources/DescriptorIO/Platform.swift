// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How many processors this process may run on: its affinity, which a container's or a unit's
/// CPU set narrows, not merely the processors online (those where the affinity cannot be read).
public func usableProcessors() -> Int {
    let usable = Int(clinux_usable_processors())
    return usable > 0 ? usable : max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
}
