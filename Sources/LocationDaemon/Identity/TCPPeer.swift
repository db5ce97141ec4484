// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import DescriptorIO
import FoundationEssentials
import LocationEngine
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A TCP client traced to the process that owns its end of the connection, as `ss -p` traces it:
/// the kernel's table of sockets (`/proc/net/tcp` or `tcp6`) gives the client end's owner uid and
/// inode, and the processes of that uid holding a descriptor of that inode are its owners. The
/// owner is then pinned with a pidfd and checked to hold the socket still, so that what is read of
/// it afterwards is that process's. A client the table does not show (another host, another
/// network namespace) is a network client.
public enum TCPPeer {
    /// One end of a connection: its address (4 or 16 bytes, network order) and port.
    public struct Endpoint: Sendable, Hashable {
        public var address: [UInt8]
        public var port: UInt16

        public init(address: [UInt8], port: UInt16) {
            self.address = address
            self.port = port
        }

        /// Whether the address is a loopback one (127.0.0.0/8, ::1, or ::ffff:127.x.x.x).
        public var isLoopback: Bool {
            let bytes = AddressBlock.unmapped(address)
            return bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
        }

        /// The endpoint as IPv4, when its address is IPv4 mapped into IPv6 (or IPv4 already).
        var asIPv4: Endpoint? {
            let bytes = AddressBlock.unmapped(address)
            return bytes.count == 4 ? Endpoint(address: bytes, port: port) : nil
        }

        /// As the kernel's table writes it: each 32-bit word in host order, in hex, then the port.
        var tableText: String {
            var text = ""
            for word in stride(from: 0, to: address.count, by: 4) {
                let value =
                    UInt32(address[word]) | UInt32(address[word + 1]) << 8 | UInt32(address[word + 2]) << 16
                    | UInt32(address[word + 3]) << 24
                text += Self.hex(UInt64(value), width: 8)
            }
            return text + ":" + Self.hex(UInt64(port), width: 4)
        }

        private static func hex(_ value: UInt64, width: Int) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
    }

    /// Why a client was not traced to a process.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var description: String
        /// The client is on another host or in another network namespace: nobody to ask.
        public var isNetworkClient = false
        /// What the log says it once for: each reason once, each network address once.
        public var logKey: String

        init(description: String, isNetworkClient: Bool = false, logKey: String? = nil) {
            self.description = description
            self.isNetworkClient = isNetworkClient
            self.logKey = logKey ?? "tcp " + description
        }
    }

    /// Who a TCP client is by the kernel's word, as far as the cheap lookup of its socket goes.
    public enum Traced: Sendable {
        /// A socket of this machine's: its owner's uid and its inode, to be admitted against the
        /// uid's limit before ``pin(uid:inode:client:)`` finds and pins its process.
        case socket(uid: UInt32, inode: UInt64)
        /// A client no process of this machine owns, as the app of the narrowest address block
        /// an administrator decided on that holds its address.
        case network(PeerIdentity)
    }

    /// Traces the client end `client` of a connection to `server`: to its socket's owner (by one
    /// lookup, before anything that costs more; `known` when the kernel was asked already), or,
    /// for a network client, to the block decided
    /// on in `networkDecisions` that holds its address; a refusal, saying why and what allows it,
    /// when neither is found.
    public static func trace(
        client: Endpoint, server: Endpoint, known: Owner? = nil, networkDecisions: AuthorizationStore
    ) -> Result<Traced, Refusal> {
        switch locate(client: client, server: server, known: known) {
        case .success(let (uid, inode)): return .success(.socket(uid: uid, inode: inode))
        case .failure(let refusal) where refusal.isNetworkClient:
            let snapshot = try? networkDecisions.load()
            let decided = (snapshot?.clients.keys).map(Array.init) ?? []
            let restricted = (snapshot?.restrictedClients).map(Array.init) ?? []
            if let app = NetworkClients.app(for: client.address, decided: decided + restricted) {
                return .success(.network(NetworkClients.identity(app: app, client: client)))
            }
            let single =
                AddressBlock(client.host).map { NetworkClients.prefix + $0.description } ?? "network:…"
            return .failure(
                Refusal(
                    description:
                        "\(refusal.description); a network client gets nothing unless an administrator "
                        + "allows its address: `sudo gpsloc auth grant '\(single)' always --approximate` "
                        + "(or without --approximate)",
                    isNetworkClient: true, logKey: "tcp \(client.host)"))
        case .failure(let refusal): return .failure(refusal)
        }
    }

    /// The socket whose local end is `client` and remote end `server`, in a table's text:
    /// its owner's uid and its inode.
    public static func socket(client: Endpoint, server: Endpoint, table text: String) -> (
        uid: UInt32, inode: UInt64
    )? {
        let local = client.tableText
        let remote = server.tableText
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
            guard fields.count > 9, fields[1] == local, fields[2] == remote,
                let uid = UInt32(fields[7]), let inode = UInt64(fields[9]), inode != 0
            else { continue }
            return (uid, inode)
        }
        return nil
    }

    /// The processes of `uid` holding a descriptor of each of `inodes`: one read of the
    /// descriptors of every process of `uid`, whatever number of sockets is asked for.
    static func owners(of inodes: Set<UInt64>, uid: UInt32) -> [UInt64: [Int32]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let candidates = names.compactMap(Int32.init).filter { pid in
            var info = stat()
            return stat("/proc/\(pid)", &info) == 0 && info.st_uid == uid
        }
        let targets = Dictionary(uniqueKeysWithValues: inodes.map { ("socket:[\($0)]", $0) })
        var found: [UInt64: [Int32]] = [:]
        var buffer = [CChar](repeating: 0, count: 64)
        for pid in candidates.sorted() {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            var held = Set<UInt64>()
            for descriptor in descriptors {
                let count = readlink("/proc/\(pid)/fd/\(descriptor)", &buffer, buffer.count - 1)
                guard count > 0 else { continue }
                let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if let inode = targets[target] { held.insert(inode) }
            }
            for inode in held { found[inode, default: []].append(pid) }
        }
        return found
    }

    /// Which of `pids` hold a descriptor of socket `inode`.
    private static func owners(of inode: UInt64, among pids: [Int32]) -> [Int32] {
        let target = "socket:[\(inode)]"
        var buffer = [CChar](repeating: 0, count: 64)
        return pids.filter { pid in
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return descriptors.contains { descriptor in
                let count = readlink("/proc/\(pid)/fd/\(descriptor)", &buffer, buffer.count - 1)
                guard count > 0 else { return false }
                return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    == target
            }
        }
    }

    /// What the kernel's tables of this network namespace's sockets say of a client end.
    public enum Owner: Sendable, Equatable {
        case socket(uid: UInt32, inode: UInt64)
        /// In no table: a client of another host or another network namespace.
        case absent
        /// A table could not be read whole: nothing is known.
        case unreadable(String)
    }

    /// The uid of the client end's owner, asked of the kernel's sock_diag by the socket's two ends
    /// (a lookup whose cost does not grow with the sockets open); where the kernel cannot be asked
    /// (an old kernel, a filter on netlink), from its tables of this network namespace's sockets,
    /// read whole however large: a user can grow them with sockets of their own, and a limit
    /// would let them push a client out of what is read.
    public static func owner(client: Endpoint, server: Endpoint) -> Owner {
        askKernel(client: client, server: server) ?? ownerFromTables(client: client, server: server)
    }

    /// ``owner(client:server:)`` asked of sock_diag alone: one system call, cheap enough for an
    /// event loop; `nil` when the kernel could not be asked.
    public static func askKernel(client: Endpoint, server: Endpoint) -> Owner? {
        var asked = false
        for (clientEnd, serverEnd) in diagnosticVariants(client, server) {
            var uid: UInt32 = 0
            var inode: UInt64 = 0
            let found = clientEnd.address.withUnsafeBufferPointer { source in
                serverEnd.address.withUnsafeBufferPointer { destination in
                    clinux_tcp_socket_owner(
                        clientEnd.address.count == 4 ? AF_INET : AF_INET6, source.baseAddress, clientEnd.port,
                        destination.baseAddress, serverEnd.port, &uid, &inode)
                }
            }
            if found == 1 { return .socket(uid: uid, inode: inode) }
            if found == 0 { asked = true }
        }
        return asked ? .absent : nil
    }

    /// ``owner(client:server:)`` from the kernel's tables, `/proc/net/tcp` and `tcp6`.
    static func ownerFromTables(client: Endpoint, server: Endpoint) -> Owner {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let text: String
            do {
                text = String(decoding: try fileContents(atPath: table, limit: .max), as: UTF8.self)
            } catch {
                // No IPv6 on this machine: its table is not there, and no client of it either.
                if error == .noSuchFileOrDirectory && table.hasSuffix("6") { continue }
                return .unreadable("\(table) could not be read (\(error))")
            }
            for (clientEnd, serverEnd) in variants(client, server) {
                if let found = socket(client: clientEnd, server: serverEnd, table: text) {
                    return .socket(uid: found.uid, inode: found.inode)
                }
            }
        }
        return .absent
    }

    /// The ends as sock_diag knows the socket: an IPv4 client of a dual-stack listener (its
    /// address mapped into IPv6 on the listener's side) holds an IPv4 socket, asked as one; any
    /// other as it is.
    private static func diagnosticVariants(_ client: Endpoint, _ server: Endpoint) -> [(Endpoint, Endpoint)] {
        guard client.address.count == 16, let client4 = client.asIPv4, let server4 = server.asIPv4 else {
            return [(client, server)]
        }
        return [(client4, server4), (client, server)]
    }

    /// The ends as each table may write them: as they are, and an IPv4 address as IPv6's
    /// `::ffff:a.b.c.d` (a dual-stack listener's clients).
    private static func variants(_ client: Endpoint, _ server: Endpoint) -> [(Endpoint, Endpoint)] {
        func mapped(_ end: Endpoint) -> Endpoint {
            guard end.address.count == 4 else { return end }
            return Endpoint(
                address: Array(repeating: 0, count: 10) + [0xFF, 0xFF] + end.address, port: end.port)
        }
        return [(client, server), (mapped(client), mapped(server))]
    }

    /// The client end's owner and socket (`known`, when the kernel was asked already), or why the
    /// client is not a process of this machine that can be traced. Fails closed: a client is a
    /// network client (its refusal says so) only when its end is in no table of this machine's
    /// and its address is none of this machine's; a local client that cannot be traced, for any
    /// reason, is refused with it.
    static func locate(client: Endpoint, server: Endpoint, known: Owner? = nil) -> Result<
        (uid: UInt32, inode: UInt64), Refusal
    > {
        switch known ?? owner(client: client, server: server) {
        case .socket(let uid, let inode): return .success((uid, inode))
        case .unreadable(let reason):
            return .failure(
                Refusal(description: "the connection from \(client) cannot be traced: \(reason); refused"))
        case .absent where LocalAddresses.contains(client.address):
            return .failure(
                Refusal(
                    description:
                        "the connection from \(client), an address of this machine, is in none of the kernel's tables of "
                        + "sockets gpslocd can read (a network namespace of its own?): a program of this machine that "
                        + "cannot be traced is refused, never served as a network client"))
        case .absent:
            return .failure(
                Refusal(
                    description:
                        "a network client (\(client)): not a process of this machine's that gpslocd can name",
                    isNetworkClient: true))
        }
    }

    /// The process of `uid` holding socket `inode` (the client end of `client`'s connection),
    /// pinned by a pidfd: what costs most of a trace, done for an admitted connection only, on
    /// the thread that searches `uid`'s processes (``SocketOwners``), so that a user who holds
    /// many descriptors makes only its own connections wait.
    public static func pin(uid: UInt32, inode: UInt64, client: Endpoint) async -> Result<
        PeerCredentials, Refusal
    > {
        await SocketOwners.shared.pin(uid: uid, inode: inode, client: client)
    }

    /// `pin(uid:inode:client:)` once the processes of `uid` holding `inode` are known: `pids`.
    static func pin(uid: UInt32, inode: UInt64, client: Endpoint, owners pids: [Int32]) -> Result<
        PeerCredentials, Refusal
    > {
        guard let pid = pids.first else {
            return .failure(
                Refusal(
                    description:
                        "the connection from \(client) belongs to uid \(uid), but no process of it that gpslocd can see holds "
                        + "it (another pid namespace?): refused, never served as a network client"))
        }
        guard pids.count == 1 else {
            return .failure(
                Refusal(
                    description: "the connection from \(client) is held by \(pids.count) processes at once; "
                        + "a connection shared between programs is not served"))
        }
        let raw = pidfd_open(pid, 0)
        guard raw >= 0 else {
            return .failure(
                Refusal(description: "pid \(pid) could not be pinned (\(Errno(rawValue: errno)))"))
        }
        let pidfd = FileDescriptor(rawValue: raw)
        // Pinned now: if it still holds the socket, it is the process that held it when traced.
        guard owners(of: inode, among: [pid]) == [pid] else {
            try? pidfd.close()
            return .failure(Refusal(description: "pid \(pid) let go of the connection while it was traced"))
        }
        let gid = ProcessFacts.gid(pid: pid) ?? uid
        return .success(PeerCredentials(uid: uid, gid: gid, pid: pid, pidfd: pidfd))
    }

}

extension TCPPeer.Endpoint: CustomStringConvertible {
    /// The address alone: `192.0.2.7`, `2001:db8::7` (an IPv4 address mapped into IPv6 as IPv4).
    public var host: String { AddressBlock.text(address) }

    public var description: String {
        let host = host
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
