// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import Testing

@_spi(FrontEnd) @testable import LocationEngine

/// The back-pressure policy of one subscriber, on its own.
@Suite("Delivery buffer")
struct DeliveryBufferTests {
    /// A location (replaceable) or a transition with a state.
    enum Item: Deliverable, Equatable {
        case location(Int)
        case transition(String)

        var isReplaceable: Bool { if case .location = self { true } else { false } }
        func repeats(_ other: Item) -> Bool { self == other }
    }

    static func drain(_ buffer: inout DeliveryBuffer<Item>) -> [Item] {
        var items: [Item] = []
        while let item = buffer.popFirst() { items.append(item) }
        return items
    }

    @Test("The newest locations win and every drop is counted")
    func newestWins() {
        var buffer = DeliveryBuffer<Item>(capacity: 3)
        for n in 1...10 { buffer.append(.location(n)) }
        #expect(buffer.dropped == 7)
        #expect(Self.drain(&buffer) == [.location(8), .location(9), .location(10)])
        #expect(buffer.hasRoom)
    }

    @Test("Transitions are never dropped, however far behind the consumer is")
    func transitionsKept() {
        var buffer = DeliveryBuffer<Item>(capacity: 1)
        buffer.append(.transition("denied"))
        for n in 1...5 { buffer.append(.location(n)) }
        buffer.append(.transition("stationary"))
        buffer.append(.location(6))
        #expect(buffer.dropped == 5)
        #expect(Self.drain(&buffer) == [.transition("denied"), .transition("stationary"), .location(6)])
    }

    @Test("A transition that repeats its neighbour once the location between them is dropped is merged")
    func repeatsMerged() {
        var buffer = DeliveryBuffer<Item>(capacity: 1)
        for n in 1...100 {
            buffer.append(.transition("unavailable"))
            buffer.append(.location(n))
        }
        // A flapping receiver and a consumer that never reads: the buffer stays small.
        #expect(buffer.count <= 3)
        #expect(Self.drain(&buffer) == [.transition("unavailable"), .location(100)])
    }

    @Test("Any interleaving keeps every distinct transition in order and at most `capacity` locations")
    func property() {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            let capacity = Int.random(in: 1...5, using: &generator)
            var buffer = DeliveryBuffer<Item>(capacity: capacity)
            var transitions: [String] = []
            var locations = 0
            for step in 0..<Int.random(in: 0...60, using: &generator) {
                if Bool.random(using: &generator) {
                    let name = "t\(step)"
                    transitions.append(name)
                    buffer.append(.transition(name))
                } else {
                    locations += 1
                    buffer.append(.location(locations))
                }
                #expect(buffer.replaceable <= capacity)
            }
            let drained = Self.drain(&buffer)
            let kept = drained.compactMap { if case .transition(let name) = $0 { name } else { nil } }
            #expect(kept == transitions)
            let delivered = drained.count - kept.count
            #expect(delivered + buffer.dropped == locations)
        }
    }
}
