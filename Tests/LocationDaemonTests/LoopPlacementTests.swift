// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
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
        // Without the engines' share, the loops are counted by their connections alone.
        let placement = LoopPlacement(group: group, spreadAbove: 2, engineShare: 0)
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

    @Test("past the bound, the receivers' loop counts the engines' work for every connection")
    func enginesShare() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let placement = LoopPlacement(group: group, spreadAbove: 100)
        var releases: [@Sendable () -> Void] = []
        for _ in 0..<1000 { releases.append(placement.place().release) }
        // 0.2 of a connection's writing for each: 400 + 0.2 × 1000 = 600.
        #expect(placement.connections == [400, 600])
        // The first loop's connections close: it holds the next ones until it is as busy again.
        for release in releases.prefix(100) { release() }
        #expect(placement.connections == [300, 600])
        var next: [Int] = []
        for _ in 0..<10 {
            let loop = placement.place().loop
            next.append(loops.firstIndex { $0 === loop } ?? -1)
        }
        #expect(next == Array(repeating: 0, count: 10))
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

    @Test(
        "each loop's processors: one of its own for each but the first, which has the rest",
        arguments: [
            (2, [0, 1], [[0], [1]]),
            (4, [0, 1, 2, 3, 4, 5, 6, 7], [[0, 4, 5, 6, 7], [1], [2], [3]]),
            (2, [2, 5, 9], [[2, 9], [5]]),
            (2, [3], nil),
            (1, [0, 1], nil),
            (3, [0, 1], nil),
        ] as [(Int, [Int], [[Int]]?)])
    func processorSets(loops: Int, usable: [Int], expected: [[Int]]?) {
        #expect(LoopPlacement.processorSets(loops: loops, usable: usable) == expected)
    }

    @Test("the loops are free until they spread, then each is confined to its processors")
    func confinedOnceSpread() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        let usable = usableProcessorIDs()
        let placement = LoopPlacement(group: group, spreadAbove: 1, usable: usable)
        func affinities() async throws -> [[Int]] {
            var sets: [[Int]] = []
            for loop in loops { sets.append(try await loop.submit { usableProcessorIDs() }.get()) }
            return sets
        }
        _ = placement.place()
        #expect(try await affinities() == [usable, usable], "one loop holds every connection: both free")
        _ = placement.place()
        if usable.count >= 2 {
            #expect(try await affinities() == [[usable[0]] + usable.dropFirst(2), [usable[1]]])
        } else {
            #expect(placement.processors == nil)
            #expect(try await affinities() == [usable, usable], "one processor: nothing to confine to")
        }
        try await group.shutdownGracefully()
    }
}
