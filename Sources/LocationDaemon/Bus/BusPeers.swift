// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CSDBus
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The programs calling one of gpslocd's D-Bus services (GeoClue2, the activity indicator), each known by the bus daemon's word about its
/// connection and never by anything it says of itself; on the bus thread.
final class BusPeers: Sendable {
    private let daemon: Daemon
    /// Each connection that called, by its unique name, until it leaves the bus.
    private let peers = Mutex<[String: PeerIdentity]>([:])
    /// Which pid opened each connection on the bus, for the proof a bus without pidfds needs.
    private let opened = BusPIDs()

    init(daemon: Daemon) {
        self.daemon = daemon
    }

    /// The verified identity of the connection `sender`: its credentials from the bus daemon,
    /// its process pinned, and identified as a socket's peer is; kept until it leaves.
    func identity(of sender: String, on bus: OpaquePointer?) -> Result<PeerIdentity, BusRefusal> {
        if let known = peers.withLock({ $0[sender] }) { return .success(known) }
        guard let bus else { return .failure(BusRefusal("the bus is gone")) }
        func ask() -> BusPeerCredentials? {
            var said = BusPeerCredentials(uid: 0, pid: 0, pidfd: -1)
            return ocl_peer_credentials(bus, sender, &said.uid, &said.pid, &said.pidfd) >= 0 ? said : nil
        }
        guard let said = ask() else {
            return .failure(BusRefusal("the bus daemon does not say which process \(sender) is"))
        }
        let credentials: PeerCredentials
        let pinned = said.pinned(
            askAgain: ask, openedBy: { self.opened.connections(openedBy: $0, on: bus) },
            busAddress: said.pidfd >= 0 ? nil : BusConnectionProof.busAddress(of: sd_bus_get_fd(bus)))
        switch pinned {
        case .success(let pinned): credentials = pinned
        case .failure(let reason): return .failure(BusRefusal("\(sender): \(reason)"))
        }
        let pidfd = credentials.pidfd
        let pid = credentials.pid
        guard let identity = PeerIdentity.identify(credentials, registry: daemon.registry) else {
            try? pidfd?.close()
            return .failure(BusRefusal("pid \(pid) exited while it was identified"))
        }
        daemon.logNotes(of: identity)
        let kept = peers.withLock { peers -> PeerIdentity? in
            if let earlier = peers[sender] { return earlier }
            peers[sender] = identity
            return nil
        }
        if let kept {
            try? pidfd?.close()
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
struct BusRefusal: Error {
    var text: String
    init(_ text: String) { self.text = text }
}
