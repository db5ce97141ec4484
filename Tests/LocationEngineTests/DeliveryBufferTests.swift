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

    /// The policy as the documentation states it, on a plain array: the oracle for the buffer,
    /// which keeps its oldest element apart from the rest.
    struct Model {
        let capacity: Int
        var items: [Item] = []
        var dropped = 0

        mutating func append(_ item: Item) -> Bool {
            var droppedOne = false
            if item.isReplaceable, items.count(where: \.isReplaceable) >= capacity,
                let index = items.firstIndex(where: \.isReplaceable)
            {
                items.remove(at: index)
                dropped += 1
                droppedOne = true
                if index > 0, index < items.count, !items[index].isReplaceable,
                    !items[index - 1].isReplaceable, items[index].repeats(items[index - 1])
                {
                    items.remove(at: index)
                }
            }
            items.append(item)
            return droppedOne
        }

        mutating func popFirst() -> Item? { items.isEmpty ? nil : items.removeFirst() }
    }

    @Test("Appends, takes and clears in any order: what the plain policy would hold, step by step")
    func againstTheModel() {
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<300 {
            let capacity = Int.random(in: 1...4, using: &generator)
            var buffer = DeliveryBuffer<Item>(capacity: capacity)
            var model = Model(capacity: capacity)
            // Few transition states, so that neighbours repeat; more appends than takes at times,
            // so that locations are dropped, and long runs, past the rest's compaction.
            let appendShare = Int.random(in: 1...9, using: &generator)
            for step in 0..<Int.random(in: 0...400, using: &generator) {
                let roll = Int.random(in: 0..<10, using: &generator)
                if roll < appendShare {
                    let item: Item =
                        Bool.random(using: &generator)
                        ? .location(step) : .transition(["a", "b"].randomElement(using: &generator)!)
                    #expect(buffer.append(item) == model.append(item))
                } else if step % 97 == 0 {
                    #expect(buffer.removeAll() == model.items)
                    model.items = []
                } else {
                    #expect(buffer.popFirst() == model.popFirst())
                }
                #expect(buffer.count == model.items.count)
                #expect(buffer.isEmpty == model.items.isEmpty)
                #expect(buffer.replaceable == model.items.count(where: \.isReplaceable))
                #expect(buffer.dropped == model.dropped)
            }
            #expect(Self.drain(&buffer) == model.items)
        }
    }
}
