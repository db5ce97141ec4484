// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS

/// An element a subscriber is sent, as far as its buffer needs to know.
@_spi(FrontEnd) public protocol Deliverable: Sendable {
    /// A newer element of the same kind makes this one worthless (a location): when the
    /// subscriber falls behind, the oldest such element is dropped. Everything else is a
    /// transition (authorization, availability, stationary) and is never dropped.
    var isReplaceable: Bool { get }
    /// Whether this transition says the same as `other`, so that one after the other says
    /// nothing new (they become neighbours when the location between them is dropped).
    func repeats(_ other: Self) -> Bool
}

/// The back-pressure policy of one subscriber, as a value: a bounded number of locations, the
/// newest winning, and every transition kept.
///
/// - At most ``capacity`` replaceable elements wait; one more drops the oldest of them, and the
///   drop is counted in ``dropped``.
/// - Transitions are never dropped. They come only on change, and a transition that merely
///   repeats its neighbour once the location between them is dropped is merged into it, so they
///   stay bounded by the number of distinct states however long the subscriber sleeps.
package struct DeliveryBuffer<Element: Deliverable>: Sendable {
    package let capacity: Int
    private var elements: [Element] = []
    private var head = 0
    /// Replaceable elements waiting.
    package private(set) var replaceable = 0
    /// Replaceable elements dropped since the buffer was made.
    package private(set) var dropped = 0

    package init(capacity: Int) {
        precondition(capacity > 0, "a subscriber's buffer holds at least one location")
        self.capacity = capacity
    }

    package var count: Int { elements.count - head }
    package var isEmpty: Bool { count == 0 }
    /// Whether a replaceable element can be added without dropping one.
    package var hasRoom: Bool { replaceable < capacity }

    /// Adds `element`; returns whether an older location was dropped to make room.
    @discardableResult
    package mutating func append(_ element: Element) -> Bool {
        var droppedOne = false
        if element.isReplaceable {
            if replaceable >= capacity, let index = elements[head...].firstIndex(where: \.isReplaceable) {
                elements.remove(at: index)
                replaceable -= 1
                dropped += 1
                droppedOne = true
                // Its neighbours may now say the same thing twice.
                if index > head, index < elements.count,
                    !elements[index].isReplaceable, !elements[index - 1].isReplaceable,
                    elements[index].repeats(elements[index - 1])
                {
                    elements.remove(at: index)
                }
            }
            replaceable += 1
        }
        elements.append(element)
        return droppedOne
    }

    /// Takes the oldest element.
    package mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if element.isReplaceable { replaceable -= 1 }
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Forgets everything waiting; returns it, oldest first.
    @discardableResult
    package mutating func removeAll() -> [Element] {
        let waiting = Array(elements[head...])
        elements = []
        head = 0
        replaceable = 0
        return waiting
    }
}

@_spi(FrontEnd) extension LocationUpdate: Deliverable {
    /// A location is replaceable by a newer one; a stationary update is a transition.
    public var isReplaceable: Bool { location != nil && !isStationary }

    public func repeats(_ other: LocationUpdate) -> Bool {
        location == nil && other.location == nil && isStationary == other.isStationary
            && Status(flags: flags, unavailable: locationUnavailable)
                == Status(flags: other.flags, unavailable: other.locationUnavailable)
    }
}

@_spi(FrontEnd) extension AuthorizationFlags: Deliverable {
    public var isReplaceable: Bool { false }
    public func repeats(_ other: AuthorizationFlags) -> Bool { false }
}

@_spi(FrontEnd) extension Fix: Deliverable {
    /// A fix is replaced by a newer one when its subscriber falls behind, as a location is.
    public var isReplaceable: Bool { true }
    public func repeats(_ other: Fix) -> Bool { false }
}
