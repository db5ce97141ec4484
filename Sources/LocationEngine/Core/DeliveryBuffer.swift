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
    /// The oldest element waiting, held in the buffer itself: a subscriber that keeps up has one
    /// waiting at a time, and an element kept here is written and read where the buffer is (in
    /// a mailbox, beside its lock) instead of in an array's storage, one more place in memory for
    /// each subscriber at each update (`BENCHMARKS.md`, round 2, fifteenth part).
    private var first: Element?
    /// Whether ``first`` is `nil`, kept apart: asking the optional itself copied the element
    /// out of it, a few hundred bytes for a location, at each post and each take (`BENCHMARKS.md`,
    /// round 2, twenty-third part).
    package private(set) var isEmpty = true
    /// The elements after ``first``, from `head` on, oldest first; none while `first` is `nil`.
    private var rest: [Element] = []
    private var head = 0
    /// How many wait in ``rest``: counted here, so that taking the only element waiting does not
    /// read the array's storage to learn that nothing follows it.
    private var waitingInRest = 0
    /// Replaceable elements waiting.
    package private(set) var replaceable = 0
    /// Replaceable elements dropped since the buffer was made.
    package private(set) var dropped = 0

    package init(capacity: Int) {
        precondition(capacity > 0, "a subscriber's buffer holds at least one location")
        self.capacity = capacity
    }

    package var count: Int { (isEmpty ? 0 : 1) + waitingInRest }
    /// Whether a replaceable element can be added without dropping one.
    package var hasRoom: Bool { replaceable < capacity }

    /// Adds `element`; returns whether an older location was dropped to make room.
    @discardableResult
    package mutating func append(_ element: Element) -> Bool {
        guard !isEmpty, let oldest = first else {
            // Nothing waits, and there is always room for one location.
            if element.isReplaceable { replaceable += 1 }
            first = element
            isEmpty = false
            return false
        }
        var droppedOne = false
        if element.isReplaceable {
            if replaceable >= capacity {
                if oldest.isReplaceable {
                    // The oldest location is the first element: nothing before it to merge with.
                    first = takeFromRest()
                    isEmpty = first == nil
                    droppedOne = true
                } else if let index = rest[head...].firstIndex(where: \.isReplaceable) {
                    rest.remove(at: index)
                    waitingInRest -= 1
                    droppedOne = true
                    // Its neighbours may now say the same thing twice.
                    let previous = index > head ? rest[index - 1] : oldest
                    if index < rest.count, !rest[index].isReplaceable, !previous.isReplaceable,
                        rest[index].repeats(previous)
                    {
                        rest.remove(at: index)
                        waitingInRest -= 1
                    }
                }
                if droppedOne {
                    replaceable -= 1
                    dropped += 1
                }
            }
            replaceable += 1
        }
        if isEmpty {
            first = element
            isEmpty = false
        } else {
            rest.append(element)
            waitingInRest += 1
        }
        return droppedOne
    }

    /// Takes the oldest element.
    package mutating func popFirst() -> Element? {
        guard !isEmpty, let element = first.take() else { return nil }
        if element.isReplaceable { replaceable -= 1 }
        // Nothing follows the only element waiting, the rule for a subscriber that keeps up:
        // the rest is not looked at (a call that returned `nil` through memory cost as much as
        // the rest of taking the element, `BENCHMARKS.md`, round 2, twenty-third part).
        if waitingInRest > 0 { first = takeFromRest() } else { isEmpty = true }
        return element
    }

    /// The oldest element of ``rest``, taken out of it; `nil` when it is empty.
    private mutating func takeFromRest() -> Element? {
        guard waitingInRest > 0 else { return nil }
        let element = rest[head]
        head += 1
        waitingInRest -= 1
        if waitingInRest == 0 {
            rest.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > rest.count {
            rest.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Forgets everything waiting; returns it, oldest first.
    @discardableResult
    package mutating func removeAll() -> [Element] {
        var waiting: [Element] = []
        if let first { waiting = [first] + rest[head...] }
        first = nil
        isEmpty = true
        rest = []
        head = 0
        waitingInRest = 0
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
