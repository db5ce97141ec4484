// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import FoundationEssentials
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the bus daemon passes no pidfd for a connection (dbus-daemon before 1.15), what proves
/// that the process now holding the pid it names is the one whose connection calls.
///
/// The bus daemon names the pid that *opened* the connection, when it opened it. That process may
/// have handed the connection to a child and exited, and its pid gone to another program since:
/// a pidfd taken now pins whoever has the number now. What the kernel can still say is which
/// sockets each process holds and where each leads (`unix_diag`). So: every connection the bus
/// daemon says pid P opened must be one the process now holding P can be holding. If P opened
/// more connections than that process holds to the bus, one of them was opened by a process that
/// is gone, and the bus cannot say which: none is proven.
///
/// What it cannot see: a process that holds a connection another process opened (passed to it,
/// or inherited open across exec) counts that connection as its own; the test is then weaker by
/// as many such connections as it holds.
enum BusConnectionProof {
    /// The address of the bus whose daemon's end `connection` (a connected Unix socket of this
    /// process's own, such as gpslocd's bus connection) reaches: the listening socket's path, or
    /// its abstract name with the leading zero. Nil when the kernel cannot say.
    static func busAddress(of connection: CInt) -> [UInt8]? {
        var info = stat()
        guard fstat(connection, &info) == 0, let inode = UInt32(exactly: info.st_ino) else { return nil }
        guard let (peer, _) = describe(inode), peer != 0, let (_, address) = describe(peer), !address.isEmpty
        else { return nil }
        return address
    }

    /// How many sockets of process `pid`, pinned by `pidfd`, are connections to the bus at
    /// `address`; nil when its descriptors cannot be read, the kernel cannot be asked, or it exited
    /// meanwhile (whoever has the pid after it is not who was counted).
    static func connections(of pid: Int32, pinnedBy pidfd: FileDescriptor, to address: [UInt8]) -> Int? {
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else {
            return nil
        }
        var inodes = Set<UInt32>()
        var buffer = [CChar](repeating: 0, count: 64)
        for descriptor in descriptors {
            let count = readlink("/proc/\(pid)/fd/\(descriptor)", &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard target.hasPrefix("socket:["), target.hasSuffix("]"),
                let inode = UInt32(target.dropFirst(8).dropLast())
            else { continue }
            inodes.insert(inode)
        }
        var held = 0
        for inode in inodes {
            // Sockets of other kinds (TCP, netlink…) are not in unix_diag's table: not found.
            guard let (peer, _) = describe(inode) else { return nil }
            guard peer != 0 else { continue }
            guard let (_, reached) = describe(peer) else { return nil }
            if reached == address { held += 1 }
        }
        // Still the process whose descriptors were read: a pidfd polls readable once it exits.
        var exited = pollfd(fd: pidfd.rawValue, events: Int16(POLLIN), revents: 0)
        guard poll(&exited, 1, 0) == 0 else { return nil }
        return held
    }

    /// Unix socket `inode`'s peer (0 for none) and address, an empty address when it has none and
    /// when no Unix socket has that inode; nil when the kernel cannot be asked.
    private static func describe(_ inode: UInt32) -> (peer: UInt32, address: [UInt8])? {
        var peer: UInt32 = 0
        var name = [UInt8](repeating: 0, count: 128)
        var length = 0
        let found = clinux_unix_socket(inode, &peer, &name, name.count, &length)
        guard found >= 0 else { return nil }
        return found == 0 ? (0, []) : (peer, Array(name[..<length]))
    }
}
