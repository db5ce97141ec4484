// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CSDBus
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The pid the bus daemon says opened each connection on the bus, asked once per connection (a
/// connection's pid never changes) and forgotten when the connection is no longer listed; on the
/// bus thread.
final class BusPIDs: Sendable {
    private let known = Mutex<[String: UInt32]>([:])

    /// How many connections now on the bus the bus daemon says pid `pid` opened; nil when it could
    /// not list them.
    func connections(openedBy pid: UInt32, on bus: OpaquePointer) -> Int? {
        var acquired: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        guard sd_bus_list_names(bus, &acquired, nil) >= 0, let acquired else { return nil }
        var unique: [String] = []
        var index = 0
        while let name = acquired[index] {
            if name.pointee == CChar(UInt8(ascii: ":")) { unique.append(String(cString: name)) }
            free(name)
            index += 1
        }
        free(acquired)
        var pids = known.withLock { known in
            known = known.filter { unique.contains($0.key) }
            return known
        }
        for name in unique where pids[name] == nil {
            var uid: UInt32 = 0
            var opener: UInt32 = 0
            var pidfd: Int32 = -1
            // One that left since it was listed is not on the bus.
            guard ocl_peer_credentials(bus, name, &uid, &opener, &pidfd) >= 0 else { continue }
            if pidfd >= 0 { close(pidfd) }
            pids[name] = opener
        }
        known.withLock { $0 = pids }
        return pids.values.filter { $0 == pid }.count
    }
}
