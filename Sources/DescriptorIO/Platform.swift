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
    let usable = usableProcessorIDs().count
    return usable > 0 ? usable : max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
}

/// The numbers of the processors the calling thread may run on (up to `limit` of them, lowest
/// first): the process's, unless the thread was confined to fewer. Empty where they cannot be
/// read.
public func usableProcessorIDs(limit: Int = 1024) -> [Int] {
    guard limit > 0 else { return [] }
    var ids = [CInt](repeating: 0, count: limit)
    let count = Int(clinux_usable_processor_ids(&ids, CInt(limit)))
    return ids.prefix(count).map(Int.init)
}

/// Confines the calling thread to `processors`; `false` where the kernel refused (a number
/// outside the process's CPU set, say).
@discardableResult
public func pinCurrentThread(to processors: [Int]) -> Bool {
    let ids = processors.map(CInt.init)
    return clinux_pin_current_thread(ids, CInt(ids.count)) == 0
}

/// Gives the calling thread the nice value `nice` (-20 to 19, lower running sooner); the error
/// number where the kernel refused (`EACCES` or `EPERM`: lowering it needs `CAP_SYS_NICE`, or a
/// `RLIMIT_NICE` that allows it, systemd's `LimitNICE=`). Threads the thread creates later start
/// with its value.
public func setCurrentThreadNice(_ nice: Int) -> CInt? {
    clinux_set_current_thread_nice(CInt(nice)) == 0 ? nil : errno
}
