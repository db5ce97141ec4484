// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import Locking
import NMEA

/// An app's update lines, each update's JSON written once for all the app's subscriptions.
///
/// The subscriptions of one app are told the same update at each fix (all but those that differ
/// by their profile, their accuracy or a pause), and its line differs between them only by the
/// subscription's number: `{"event":"update","subscription":N,` then the update's members.
/// Those members are written for the first subscription that needs them and kept, with the
/// update, for the next; a handful of the latest updates are kept, so that subscriptions told
/// different updates (precise and reduced) each find theirs. A line is byte for byte
/// ``WireEvent/update(subscription:_:)``'s.
///
/// Each thread that writes lines keeps the few it used last as well, whichever app they were
/// for (the members depend on the update alone): with many subscriptions served from several
/// processors, the app's list and its lock would otherwise be fetched from one processor by
/// the other for every subscription (`BENCHMARKS.md`, round 2, fifteenth part).
@_spi(FrontEnd) public final class WireUpdateLines: Sendable {
    private struct Written {
        var update: LocationUpdate
        /// The line after the subscription's number: `,"flags":[…],…}` and the newline.
        var tail: [UInt8]
    }

    /// The latest updates written, the newest last.
    private let written = Mutex<[Written]>([])
    private static let kept = 4
    private static let start = Array(#"{"event":"update","subscription":"#.utf8)

    /// The updates a thread used last and their tails, the newest first: side by side, as
    /// reading an update and its tail out of one array copied both, update and all, for every
    /// subscription (`BENCHMARKS.md`, round 2, twenty-first part).
    private final class Recent {
        /// Touched by its thread alone, one access at a time: unchecked, as the run-time check
        /// of each access cost more than the rest of finding the line (`BENCHMARKS.md`, round
        /// 2, eighteenth part).
        @exclusivity(unchecked) var updates: [LocationUpdate] = []
        @exclusivity(unchecked) var tails: [[UInt8]] = []
    }

    private static let recent = ThreadLocal { Recent() }

    public init() {}

    /// The start of subscription `subscription`'s update lines, up to its number: the same for
    /// each of its updates, made once when it is subscribed.
    public static func head(subscription: Int) -> [UInt8] {
        var head = start
        // As the JSON writer writes an integer.
        NMEADecimal(subscription).appendASCII(to: &head)
        return head
    }

    /// Appends the line of `update` for subscription `subscription` to `bytes`.
    public func append(_ update: LocationUpdate, subscription: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.head(subscription: subscription))
        bytes.append(contentsOf: tail(of: update))
    }

    /// What follows a subscription's ``head(subscription:)`` in the line of `update`: the same
    /// for every subscription told it, so that a writer may write the two side by side without
    /// joining them in an array.
    public func tail(of update: LocationUpdate) -> [UInt8] {
        let recent = Self.recent.value
        if let index = recent.updates.firstIndex(of: update) { return recent.tails[index] }
        let tail =
            written.withLock { written in written.lastIndex { $0.update == update }.map { written[$0].tail } }
            ?? write(update)
        if recent.updates.count == Self.kept {
            recent.updates.removeLast()
            recent.tails.removeLast()
        }
        recent.updates.insert(update, at: 0)
        recent.tails.insert(tail, at: 0)
        return tail
    }

    private func write(_ update: LocationUpdate) -> [UInt8] {
        // The line for subscription 0, less its head and the number: one allocation per update.
        var tail = WireEvent.update(subscription: 0, update.wire).encoded()
        tail.removeFirst(Self.start.count + 1)
        written.withLock { written in
            if written.count == Self.kept { written.removeFirst() }
            written.append(Written(update: update, tail: tail))
        }
        return tail
    }
}
