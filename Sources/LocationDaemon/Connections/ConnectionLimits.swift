// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How many connections each user may hold, so that no user starves the others of the daemon's
/// descriptors: each connection costs two (its socket and the pidfd that pins its process). A
/// user may hold the configured number, and never more than a quarter of the descriptors left
/// for clients once the daemon's own are counted and a reserve is set aside; root is not limited.
///
/// Network clients (gpsd's port, from another host) have no user: each address may hold
/// ``perAddress`` connections, and the clients of each granted block together as many as a user,
/// so that a host flooding the port is refused while the block's other hosts, and other blocks,
/// are served.
public final class ConnectionLimits: Sendable {
    public struct Settings: Sendable {
        /// Connections one user may hold at once.
        public var perUser: Int
        /// How long a connection may stay silent before its first request (`hello`, or gpsd's
        /// first command) before it is closed.
        public var helloTimeout: Duration

        public init(perUser: Int = 128, helloTimeout: Duration = .seconds(10)) {
            self.perUser = perUser
            self.helloTimeout = helloTimeout
        }
    }

    /// Descriptors each connection holds: its socket and its pidfd.
    static let descriptorsPerConnection = 2
    /// Descriptors kept for the daemon's own work (receivers reopened, state files, accepting a
    /// connection only to refuse it), whatever its clients hold.
    static let reserve = 64

    public let settings: Settings
    /// Connections one user may hold here: the setting, or less where descriptors are few.
    public let perUser: Int
    /// Connections all users together may hold (root's included).
    public let total: Int
    /// The connections open: by user, by network address and by granted block, and in all.
    private struct Counts {
        var byUser: [UInt32: Int] = [:]
        var byAddress: [String: Int] = [:]
        var byBlock: [String: Int] = [:]
        var all = 0
    }
    private let open = Mutex(Counts())

    /// Limits for a daemon that may open `descriptorLimit` files and has `descriptorsInUse` open.
    public init(_ settings: Settings, descriptorLimit: Int, descriptorsInUse: Int) {
        self.settings = settings
        let forClients = max(0, descriptorLimit - descriptorsInUse - Self.reserve)
        total = max(1, forClients / Self.descriptorsPerConnection)
        perUser = max(1, min(settings.perUser, total / 4))
    }

    /// Limits from this process's own limit of open files and the descriptors it holds now.
    public convenience init(_ settings: Settings) {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        let soft = getrlimit(resource, &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        let inUse = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 16
        self.init(settings, descriptorLimit: soft, descriptorsInUse: inUse)
    }

    /// What a connection is counted against.
    public enum Holder: Sendable, Hashable {
        case user(UInt32)
        /// A network client: its address, and the block whose decision serves it.
        case network(address: String, block: String)
    }

    /// A connection refused at a limit: who reached it (the user, the address or the block, for
    /// a log line said once each) and what the client is told.
    public struct Reached: Sendable {
        public var offender: String
        public var text: String
    }

    /// Connections one network address may hold at once: 16, or a user's limit where less.
    public static let networkPerAddress = 16
    public var perAddress: Int { min(Self.networkPerAddress, perUser) }

    /// Why a new connection of `holder` is refused, or `nil` when it is admitted (and counted
    /// until ``release(_:)``).
    public func admit(_ holder: Holder) -> Reached? {
        open.withLock { open in
            switch holder {
            case .user(let uid):
                if uid != 0 {
                    let held = open.byUser[uid, default: 0]
                    if held >= perUser {
                        return Reached(
                            offender: "uid \(uid)",
                            text:
                                "uid \(uid) holds \(counted(held, "connection", "connections")) already, the most one user may "
                                + "(connectionsPerUser, \(settings.perUser), or a quarter of the daemon's descriptors); "
                                + "close some and connect again")
                    }
                    if let full = full(open.all) { return full }
                }
                open.byUser[uid, default: 0] += 1
            case .network(let address, let block):
                let fromAddress = open.byAddress[address, default: 0]
                if fromAddress >= perAddress {
                    return Reached(
                        offender: "network client \(address)",
                        text:
                            "\(address) holds \(counted(fromAddress, "connection", "connections")) already, the most one network address "
                            + "may (\(perAddress)); close some and connect again")
                }
                let inBlock = open.byBlock[block, default: 0]
                if inBlock >= perUser {
                    return Reached(
                        offender: "network block \(block)",
                        text:
                            "the network clients of \(block) hold \(counted(inBlock, "connection", "connections")) already, the most "
                            + "one block may (connectionsPerUser, \(settings.perUser), or a quarter of the "
                            + "daemon's descriptors); close some and connect again")
                }
                if let full = full(open.all) { return full }
                open.byAddress[address, default: 0] += 1
                open.byBlock[block, default: 0] += 1
            }
            open.all += 1
            return nil
        }
    }

    private func full(_ all: Int) -> Reached? {
        all >= total
            ? Reached(
                offender: "the daemon",
                text:
                    "the daemon holds \(counted(all, "connection", "connections")), all its descriptors allow; try again later"
            )
            : nil
    }

    public func release(_ holder: Holder) {
        open.withLock { open in
            switch holder {
            case .user(let uid):
                guard let held = open.byUser[uid] else { return }
                open.byUser[uid] = held > 1 ? held - 1 : nil
            case .network(let address, let block):
                guard let fromAddress = open.byAddress[address], let inBlock = open.byBlock[block] else {
                    return
                }
                open.byAddress[address] = fromAddress > 1 ? fromAddress - 1 : nil
                open.byBlock[block] = inBlock > 1 ? inBlock - 1 : nil
            }
            open.all -= 1
        }
    }

    public var summary: String {
        "each user may hold \(counted(perUser, "connection", "connections")) (connectionsPerUser \(settings.perUser)), "
            + "each network address \(perAddress) and each granted block \(perUser), \(total) in all; a connection silent for \(settings.helloTimeout) before its first request is closed"
    }
}
