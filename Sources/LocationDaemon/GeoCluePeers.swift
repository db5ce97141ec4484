// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import CSDBus
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The programs calling gpslocd's GeoClue2 objects, each known by the bus daemon's word about its
/// connection and never by anything it says of itself; on the bus thread.
final class GeoCluePeers: Sendable {
    private let daemon: Daemon
    /// Each connection that called, by its unique name, until it leaves the bus.
    private let peers = Mutex<[String: PeerIdentity]>([:])

    init(daemon: Daemon) {
        self.daemon = daemon
    }

    /// The verified identity of the connection `sender`: its credentials from the bus daemon,
    /// its process pinned, and identified as a socket's peer is; kept until it leaves.
    func identity(of sender: String, on bus: OpaquePointer?) -> Result<PeerIdentity, GeoClueRefusal> {
        if let known = peers.withLock({ $0[sender] }) { return .success(known) }
        guard let bus else { return .failure(GeoClueRefusal("the bus is gone")) }
        var uid: UInt32 = 0
        var pid: UInt32 = 0
        var passed: Int32 = -1
        let asked = ocl_peer_credentials(bus, sender, &uid, &pid, &passed)
        guard asked >= 0, let processID = Int32(exactly: pid), processID > 0 else {
            return .failure(GeoClueRefusal("the bus daemon does not say which process \(sender) is"))
        }
        let pidfd: FileDescriptor
        if passed >= 0 {
            pidfd = FileDescriptor(rawValue: passed)
        } else {
            let raw = pidfd_open(processID, 0)
            guard raw >= 0 else {
                return .failure(GeoClueRefusal("pid \(pid) could not be pinned (\(Errno(rawValue: errno)))"))
            }
            pidfd = FileDescriptor(rawValue: raw)
            // Pinned now. The bus still naming the same process for the connection means the
            // process pinned is the one that connected (a pid is reused only once its process is
            // gone, and then the bus would have let the connection go with it).
            var again: (uid: UInt32, pid: UInt32, fd: Int32) = (0, 0, -1)
            let checked = ocl_peer_credentials(bus, sender, &again.uid, &again.pid, &again.fd)
            if again.fd >= 0 { close(again.fd) }
            guard checked >= 0, again.pid == pid, again.uid == uid else {
                try? pidfd.close()
                return .failure(GeoClueRefusal("\(sender) left the bus while it was identified"))
            }
        }
        let gid = ProcessFacts.read("/proc/\(pid)/status").flatMap(TCPPeer.gid(statusFile:)) ?? uid
        let credentials = PeerCredentials(uid: uid, gid: gid, pid: processID, pidfd: pidfd)
        guard let identity = PeerIdentity.identify(credentials, registry: daemon.registry) else {
            try? pidfd.close()
            return .failure(GeoClueRefusal("pid \(pid) exited while it was identified"))
        }
        daemon.logNotes(of: identity)
        let kept = peers.withLock { peers -> PeerIdentity? in
            if let earlier = peers[sender] { return earlier }
            peers[sender] = identity
            return nil
        }
        if let kept {
            try? pidfd.close()
            return .success(kept)
        }
        return .success(identity)
    }

    /// The connection left: its identity is forgotten, its pidfd closed.
    @discardableResult
    func forget(_ sender: String) -> PeerIdentity? {
        let identity = peers.withLock { $0.removeValue(forKey: sender) }
        try? identity?.credentials.pidfd?.close()
        return identity
    }

    /// The bus was lost: every connection with it.
    func forgetAll() {
        let all = peers.withLock { peers in
            defer { peers = [:] }
            return Array(peers.values)
        }
        for identity in all { try? identity.credentials.pidfd?.close() }
    }
}

/// Why a caller was refused, in the words its error reply carries.
struct GeoClueRefusal: Error {
    var text: String
    init(_ text: String) { self.text = text }
}
