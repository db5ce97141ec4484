// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import GNSS
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bus connection's peer as the bus daemon names it (`GetConnectionCredentials`): its uid and
/// pid, and the pidfd it passes where it has one (dbus-broker; dbus-daemon from 1.15). Never what
/// the connection says of itself.
public struct BusPeerCredentials: Sendable, Equatable {
    public var uid: UInt32
    public var pid: UInt32
    /// The pidfd the bus daemon passed, `-1` when it passed none.
    public var pidfd: CInt

    /// Why a bus peer could not be pinned.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    public init(uid: UInt32, pid: UInt32, pidfd: CInt) {
        self.uid = uid
        self.pid = pid
        self.pidfd = pidfd
    }

    /// The peer pinned by a pidfd: the bus daemon's own, or one taken here and proven to be the
    /// process whose connection this is (``BusConnectionProof``): `askAgain` asks the bus daemon
    /// once more, `openedBy` how many connections on the bus it says a pid opened, and
    /// `busAddress` is the bus's socket. A refusal says why it could not be pinned.
    public func pinned(
        askAgain: () -> BusPeerCredentials?, openedBy: (UInt32) -> Int?, busAddress: [UInt8]?
    ) -> Result<PeerCredentials, Refusal> {
        guard let processID = Int32(exactly: pid), processID > 0 else {
            return .failure(Refusal("the bus daemon does not say which process it is"))
        }
        let pidfd: FileDescriptor
        if self.pidfd >= 0 {
            pidfd = FileDescriptor(rawValue: self.pidfd)
        } else {
            let raw = pidfd_open(processID, 0)
            guard raw >= 0 else {
                return .failure(Refusal("pid \(pid) could not be pinned (\(Errno(rawValue: errno)))"))
            }
            pidfd = FileDescriptor(rawValue: raw)
            if let refusal = prove(
                pinned: pidfd, askAgain: askAgain, openedBy: openedBy, busAddress: busAddress)
            {
                try? pidfd.close()
                return .failure(refusal)
            }
        }
        let gid = ProcessFacts.gid(pid: processID) ?? uid
        return .success(PeerCredentials(uid: uid, gid: gid, pid: processID, pidfd: pidfd))
    }

    /// Why the process pinned by `pidfd` is not proven to hold this connection, nil when it is:
    /// the bus daemon still names the same pid and uid for the connection, and the process holds
    /// as many connections to the bus as that pid opened (``BusConnectionProof``).
    private func prove(
        pinned pidfd: FileDescriptor, askAgain: () -> BusPeerCredentials?, openedBy: (UInt32) -> Int?,
        busAddress: [UInt8]?
    ) -> Refusal? {
        let again = askAgain()
        if let fd = again?.pidfd, fd >= 0 { close(fd) }
        guard let again, again.pid == pid, again.uid == uid else {
            return Refusal("it left the bus while it was identified")
        }
        let unproven = "the bus daemon passes no pidfd (dbus-daemon before 1.15), so"
        guard let busAddress else {
            return Refusal(
                "\(unproven) pid \(pid) must be proven to hold the connection, and the kernel does not say where gpslocd's own bus connection leads (unix_diag)"
            )
        }
        guard let opened = openedBy(pid) else {
            return Refusal(
                "\(unproven) pid \(pid) must be proven to hold the connection, and the bus daemon did not list its connections"
            )
        }
        guard let held = BusConnectionProof.connections(of: Int32(pid), pinnedBy: pidfd, to: busAddress)
        else {
            return Refusal(
                "\(unproven) pid \(pid) must be proven to hold the connection, and its descriptors could not be read (or it exited)"
            )
        }
        guard held >= opened else {
            let connections = counted(opened, "connection", "connections")
            let stale = opened == 1 ? "it" : opened - held == 1 ? "one of them" : "\(opened - held) of them"
            return Refusal(
                "pid \(pid) opened \(connections) to the bus and the process that has pid \(pid) now holds \(held == 0 ? "none" : "\(held)"): a process that exited opened \(stale) and its pid went to another program; \(unproven) nothing says whose the connection is"
            )
        }
        return nil
    }
}
