// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NIOPosix
import Testing

@testable import LocationDaemon

/// Which event loop each connection joins: the receivers' loop alone up to a number of them,
/// then the loop with the fewest; a connection's close gives its place back.
@Suite("The daemon's event loops: where connections go")
struct LoopPlacementTests {
    @Test("the first loop takes every connection up to the bound, then the fewest-held loop each")
    func spreads() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        let loops = Array(group.makeIterator())
        let placement = LoopPlacement(group: group, spreadAbove: 2)
        var releases: [@Sendable () -> Void] = []
        func place() -> Int {
            let (loop, release) = placement.place()
            releases.append(release)
            return loops.firstIndex { $0 === loop } ?? -1
        }
        #expect([place(), place()] == [0, 0])
        #expect(placement.connections == [2, 0, 0])
        #expect([place(), place(), place(), place()] == [1, 2, 1, 2])
        #expect(placement.connections == [2, 2, 2])
        #expect(place() == 0, "all hold as many: the first")

        // The first connections close: the first loop takes the next ones again.
        releases[0]()
        releases[1]()
        #expect(placement.connections == [1, 2, 2])
        #expect(place() == 0)
        #expect(placement.connections == [2, 2, 2])
        try await group.shutdownGracefully()
    }

    @Test("one loop takes every connection, however many")
    func single() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let placement = LoopPlacement(group: group, spreadAbove: 2)
        for _ in 0..<10 { _ = placement.place() }
        #expect(placement.connections == [10])
        try await group.shutdownGracefully()
    }
}
