// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LocationDaemon

/// What each connection is counted against: a user's limit, and for network clients their
/// address's budget and their block's.
@Suite("Connection limits")
struct ConnectionLimitsTests {
    static func limits(perUser: Int = 128, descriptors: Int = 4096) -> ConnectionLimits {
        ConnectionLimits(.init(perUser: perUser), descriptorLimit: descriptors, descriptorsInUse: 20)
    }

    @Test("one address holds its budget; the block's other addresses are served until the block's is spent")
    func networkBudgets() {
        let limits = Self.limits()
        let block = "network:192.0.2.0/24"
        for _ in 0..<limits.perAddress {
            #expect(limits.admit(.network(address: "192.0.2.7", block: block)) == nil)
        }
        let refused = limits.admit(.network(address: "192.0.2.7", block: block))
        #expect(refused?.offender == "network client 192.0.2.7")
        #expect(
            refused?.text.contains("the most one network address may (16)") == true, "\(refused?.text ?? "")")
        // The block's other hosts, up to the block's budget (a user's limit).
        var admitted = limits.perAddress
        var host = 8
        while admitted < limits.perUser {
            #expect(limits.admit(.network(address: "192.0.2.\(host)", block: block)) == nil)
            admitted += 1
            if admitted % limits.perAddress == 0 { host += 1 }
        }
        let full = limits.admit(.network(address: "192.0.2.200", block: block))
        #expect(full?.offender == "network block \(block)")
        // Another block, and every user, are served still.
        #expect(limits.admit(.network(address: "198.51.100.1", block: "network:198.51.100.0/24")) == nil)
        #expect(limits.admit(.user(1000)) == nil)
        // A connection that closes gives its address and its block room again.
        limits.release(.network(address: "192.0.2.7", block: block))
        #expect(limits.admit(.network(address: "192.0.2.7", block: block)) == nil)
    }

    @Test(
        "where descriptors are few, a user's limit is a quarter of them, and so are a block's and an address's"
    )
    func fewDescriptors() {
        let limits = Self.limits(descriptors: 200)
        #expect(limits.perUser == (200 - 20 - 64) / 2 / 4)
        #expect(limits.perAddress == min(16, limits.perUser))
        for _ in 0..<limits.perUser { #expect(limits.admit(.user(1000)) == nil) }
        #expect(limits.admit(.user(1000))?.offender == "uid 1000")
        #expect(limits.admit(.user(0)) == nil, "root is not limited")
    }
}
