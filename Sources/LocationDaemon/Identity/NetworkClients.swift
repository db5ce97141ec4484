// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import LocationWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Clients of gpsd's protocol that no process of this machine owns (another host, a container
/// without this machine's network namespace): nobody vouches for them but their address, so they
/// get nothing unless an administrator allowed their address block
/// (`gpsloc auth grant network:192.0.2.0/24 always --approximate`), and are never asked about.
///
/// Their decisions are kept apart from every user's, under `decisions/network/`, as apps named
/// `network:<block>`; a client belongs to the narrowest block with a decision that holds its
/// address, and every client of one block shares that app (one reducer, one cadence).
enum NetworkClients {
    static let prefix = "network:"
    /// The uid their app is hosted under: `(uid_t)-1`, which the kernel gives no process.
    static let uid = UInt32.max

    /// The block an app named `network:…` stands for, `nil` for any other app.
    static func block(app: String) -> AddressBlock? {
        guard app.hasPrefix(prefix) else { return nil }
        return AddressBlock(String(app.dropFirst(prefix.count)))
    }

    /// `change` with its `network:` app written as its block's canonical name, refused when the
    /// name is no block or the grant is when-in-use (a network client is never in use).
    static func canonical(_ change: AuthorizationChange) throws(WireError) -> AuthorizationChange? {
        let app: String
        switch change {
        case .grant(let name, _, _, _), .deny(let name), .restrict(let name, _): app = name
        case .reset(let name?): app = name
        case .reset(nil), .services: return nil
        }
        guard app.hasPrefix(prefix) else { return nil }
        guard let block = block(app: app) else {
            throw WireError(
                "'\(app)' is not an address block; write network:192.0.2.0/24, network:192.0.2.7 or "
                    + "network:2001:db8::/32")
        }
        let name = prefix + block.description
        switch change {
        case .grant(_, let always, let approximate, let once):
            guard always, !once else {
                throw WireError(
                    "a network client is never in use, so a when-in-use grant would give it nothing; "
                        + "grant '\(name)' always")
            }
            return .grant(app: name, always: true, approximate: approximate, once: false)
        case .deny: return .deny(app: name)
        case .restrict(_, let lift): return .restrict(app: name, lift: lift)
        case .reset: return .reset(app: name)
        case .services: return nil
        }
    }

    /// The app a network client at `address` belongs to: the narrowest block an administrator
    /// decided on that holds it, `nil` when none does.
    static func app(for address: [UInt8], decided apps: some Sequence<String>) -> String? {
        var best: (app: String, prefix: Int)?
        for app in apps {
            guard let block = block(app: app), block.contains(address) else { continue }
            if best == nil || block.prefix > best!.prefix { best = (app, block.prefix) }
        }
        return best?.app
    }

    /// A network client as the daemon hosts it: no process, no user, no terminal, no prompts.
    static func identity(app: String, client: TCPPeer.Endpoint) -> PeerIdentity {
        var wire = WireIdentity(
            app: app, uid: Int(uid), pid: 0, executable: nil, unit: nil, flatpak: nil, registered: false)
        wire.proof = IdentityBasis.network(client.description).proof
        wire.sandboxed = true
        return PeerIdentity(
            credentials: PeerCredentials(uid: uid, gid: uid, pid: 0, pidfd: nil), wire: wire,
            manifest: Manifest(), groups: [], basis: .network(client.description),
            sandbox: "no process of this machine (a network client)", notes: [])
    }
}

/// A block of IPv4 or IPv6 addresses: an address and how many of its leading bits count.
struct AddressBlock: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes, network order, the bits past `prefix` cleared.
    var address: [UInt8]
    var prefix: Int

    /// `192.0.2.0/24`, `2001:db8::/32`, or one address (`192.0.2.7`: a /32).
    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let bytes = Self.parse(String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...bits).contains(value), !parts[1].hasPrefix("+") else {
                return nil
            }
            prefix = value
        } else {
            prefix = bits
        }
        address = bytes
        for index in address.indices {
            let kept = max(0, min(8, prefix - index * 8))
            address[index] &= kept == 8 ? 0xFF : ~(0xFF >> UInt8(kept))
        }
    }

    /// Whether `other` (4 or 16 bytes; an IPv4 address mapped into IPv6 counts as IPv4) is in it.
    func contains(_ other: [UInt8]) -> Bool {
        let candidate = Self.unmapped(other)
        guard candidate.count == address.count else { return false }
        for index in address.indices {
            let kept = max(0, min(8, prefix - index * 8))
            let mask: UInt8 = kept == 8 ? 0xFF : ~(0xFF >> UInt8(kept))
            if candidate[index] & mask != address[index] { return false }
        }
        return true
    }

    var description: String { "\(Self.text(address))/\(prefix)" }

    /// An address as written (`192.0.2.7`, `2001:db8::7`), an IPv4 address mapped into IPv6 as IPv4.
    static func text(_ bytes: [UInt8]) -> String {
        let address = unmapped(bytes)
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = address.count == 4 ? AF_INET : AF_INET6
        return address.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                : "?"
        }
    }

    private static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return unmapped(withUnsafeBytes(of: &v6) { Array($0) }) }
        return nil
    }

    /// `::ffff:a.b.c.d` as the IPv4 address it is; any other address as it is.
    static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == 16, bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF,
            bytes[11] == 0xFF
        else { return bytes }
        return Array(bytes[12...])
    }
}
