// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the kernel says of a Unix socket's peer: `SO_PEERCRED`, and a pidfd pinning the process
/// (`SO_PEERPIDFD`) where the kernel has one.
public enum SocketCredentials {
    /// `SO_PEERPIDFD`, which the C headers of older systems lack.
    static let peerPidfdOption: CInt = 77

    /// Why a connection's peer could not be known.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// The credentials of the peer of connected socket `descriptor`, and a pidfd pinning it where
    /// the kernel has `SO_PEERPIDFD`. Where it has, a peer it gives no pidfd for (the daemon out
    /// of descriptors, say) is refused: a client is never identified unpinned on a kernel that
    /// can pin it.
    public static func ofPeer(of descriptor: CInt) -> Result<PeerCredentials, Refusal> {
        var peer = KernelCredentials()
        var length = socklen_t(MemoryLayout<KernelCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0 else {
            return .failure(Refusal(description: "the kernel gave no credentials for it"))
        }
        var pidfd: FileDescriptor?
        if PidfdSupport.isSupported {
            var raw: CInt = -1
            var size = socklen_t(MemoryLayout<CInt>.size)
            guard getsockopt(descriptor, SOL_SOCKET, peerPidfdOption, &raw, &size) == 0, raw >= 0 else {
                return .failure(
                    Refusal(
                        description:
                            "no pidfd could pin pid \(peer.pid) (uid \(peer.uid)): \(Errno(rawValue: errno)); "
                            + "it is never identified unpinned"))
            }
            pidfd = FileDescriptor(rawValue: raw)
        }
        return .success(PeerCredentials(uid: peer.uid, gid: peer.gid, pid: peer.pid, pidfd: pidfd))
    }
}

/// `struct ucred` of `<sys/socket.h>`, which Swift sees only with `_GNU_SOURCE`: same layout.
struct KernelCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Whether this kernel gives a pidfd for a socket's peer (`SO_PEERPIDFD`, Linux 6.5), probed once
/// on a socket pair of the daemon's own: a failure for a client later is that client's, never
/// taken for a kernel without the option.
public enum PidfdSupport {
    public static let isSupported: Bool = {
        guard let pair = closeOnExecSocketPair(domain: AF_UNIX, type: SocketType.stream) else {
            return false
        }
        defer {
            close(pair.0)
            close(pair.1)
        }
        var pidfd: CInt = -1
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(pair.0, SOL_SOCKET, SocketCredentials.peerPidfdOption, &pidfd, &length) == 0 else {
            return false
        }
        close(pidfd)
        return true
    }()

    /// What the daemon says at start of how it pins its clients.
    public static var startupNote: String? {
        isSupported
            ? nil
            : "this kernel gives no SO_PEERPIDFD; clients are identified from /proc/<pid> without a pidfd "
                + "pinning the process, so a pid reused within the instant of a connection could be misread "
                + "(Linux 6.5 or later closes this)"
    }
}
