// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
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

    /// The peer pinned by a pidfd: the bus daemon's own, or one taken here, checked against what
    /// `askAgain` (the bus daemon asked once more) says afterwards. A refusal says why it could
    /// not be pinned.
    public func pinned(askAgain: () -> BusPeerCredentials?) -> Result<PeerCredentials, Refusal> {
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
            // Pinned now. The bus still naming the same process for the connection means the
            // process pinned is the one that connected (a pid is reused only once its process is
            // gone, and then the bus would have let the connection go with it).
            let again = askAgain()
            if let fd = again?.pidfd, fd >= 0 { close(fd) }
            guard let again, again.pid == pid, again.uid == uid else {
                try? pidfd.close()
                return .failure(Refusal("it left the bus while it was identified"))
            }
        }
        let gid = ProcessFacts.gid(pid: processID) ?? uid
        return .success(PeerCredentials(uid: uid, gid: gid, pid: processID, pidfd: pidfd))
    }
}
