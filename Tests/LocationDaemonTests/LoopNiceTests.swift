// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// The event loops' nice value (`--nice`), as the kernel tells it of the daemon's threads: the
/// loops read the receivers and write the clients' updates ahead of the clients they wake, as
/// gpsd runs at nice -10.
@Suite("gpslocd's event loops run at their nice value")
struct LoopNiceTests {
    /// The nice values of the daemon's event loops and of its other threads.
    static func nice(of daemon: DaemonHarness) throws -> (loops: [Int], others: [Int]) {
        let pid = try #require(daemon.process?.processIdentifier)
        let all = try ProcessThreads.niceValues(of: pid)
        let loops = all.filter { $0.name.hasPrefix("NIO-ELT") }
        return (loops.map(\.nice), all.filter { !$0.name.hasPrefix("NIO-ELT") }.map(\.nice))
    }

    @Test("run by root: every loop at --nice, and no other thread")
    func root() async throws {
        let daemon = try DaemonHarness(sources: [], extra: ["--nice", "-7"])
        try await daemon.start()
        let (loops, others) = try Self.nice(of: daemon)
        #expect(!loops.isEmpty && loops.allSatisfy { $0 == -7 }, "loops \(loops)")
        #expect(!others.contains(-7), "others \(others)")
        #expect(!daemon.log.contains("cannot run the event loops"), "\(daemon.log)")
        await daemon.stop()
    }

    @Test("run as the unit's user with CAP_SYS_NICE: the loops at -10 by default")
    func allowed() async throws {
        let service = try await Account.ensure("ocl-gpslocd", groups: ["ocl-gnss"])
        let daemon = try DaemonHarness(
            sources: [], account: service, groups: ["ocl-gnss"],
            capabilities: DaemonHarness.unitCapabilities + ["sys_nice"])
        try await daemon.start()
        let (loops, _) = try Self.nice(of: daemon)
        #expect(!loops.isEmpty && loops.allSatisfy { $0 == -10 }, "loops \(loops)")
        #expect(!daemon.log.contains("cannot run the event loops"), "\(daemon.log)")
        await daemon.stop()
    }

    @Test("not allowed: the daemon serves all the same, and the log says how to allow it")
    func refused() async throws {
        let service = try await Account.ensure("ocl-gpslocd", groups: ["ocl-gnss"])
        let daemon = try DaemonHarness(sources: [], account: service, groups: ["ocl-gnss"])
        try await daemon.start()
        let (loops, _) = try Self.nice(of: daemon)
        #expect(!loops.contains(-10), "loops \(loops)")
        #expect(
            daemon.log.contains("cannot run the event loops at nice -10 (Permission denied)")
                && daemon.log.contains("LimitNICE=-10") && daemon.log.contains("--nice 0"),
            "\(daemon.log)")
        let client = try daemon.client(as: nil)
        await client.hello()
        #expect(client.identity != nil, "\(client.output)")
        await client.stop()
        await daemon.stop()
    }
}
