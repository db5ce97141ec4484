// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import Locking
import NMEA

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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

    /// The updates a thread used last and their tails, the newest first, in memory of its own:
    /// side by side, as reading an update and its tail out of one array copied both, update and
    /// all, for every subscription (`BENCHMARKS.md`, round 2, twenty-first part); and not in
    /// arrays, as reading one out of an array held in an object retained and released the
    /// array each time (twenty-third part). Touched by its thread alone.
    private final class Recent {
        /// The updates, the newest first: ``count`` of them, initialized.
        private let updates = UnsafeMutablePointer<LocationUpdate>.allocate(capacity: kept)
        /// The tail of the update at the same index, allocated for it and freed with it.
        private let tails = UnsafeMutablePointer<UnsafeRawBufferPointer>.allocate(capacity: kept)
        private var count = 0
        /// Where a line is joined from a subscription's head and an update's tail: plain memory,
        /// as an array's bookkeeping to empty it and append to it cost more than copying the
        /// bytes (`BENCHMARKS.md`, round 2, twenty-second part). Grown for a longer line,
        /// never shrunk.
        private var joined = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)

        /// Where `update` is, if this thread has its tail.
        ///
        /// Compared by their bytes: an update is a value, so the same bytes are the same update,
        /// and comparing them cost a quarter of comparing the updates member by member
        /// (twenty-third part). Two updates equal with different bytes (a speed of 0 and one of
        /// −0) are merely not found here, and are then found in their app's list or written.
        func index(of update: borrowing LocationUpdate) -> Int? {
            withUnsafeBytes(of: update) { wanted in
                for index in 0..<count
                where memcmp(updates + index, wanted.baseAddress!, MemoryLayout<LocationUpdate>.size) == 0 {
                    return index
                }
                return nil
            }
        }

        /// Keeps `update` and a copy of its `tail` first, forgetting the oldest if all the
        /// room is taken.
        func insert(_ update: LocationUpdate, tail: [UInt8]) {
            if count == WireUpdateLines.kept {
                count -= 1
                (updates + count).deinitialize(count: 1)
                UnsafeMutableRawBufferPointer(mutating: tails[count]).deallocate()
            }
            (updates + 1).moveInitialize(from: updates, count: count)
            (tails + 1).moveInitialize(from: tails, count: count)
            updates.initialize(to: update)
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: tail.count, alignment: 1)
            copy.copyBytes(from: tail)
            tails.initialize(to: UnsafeRawBufferPointer(copy))
            count += 1
        }

        /// `head` and then the tail at `index` in ``joined``, grown to hold them; what they
        /// fill of it.
        func join(_ head: [UInt8], tailAt index: Int) -> UnsafeRawBufferPointer {
            let tail = tails[index]
            let count = head.count + tail.count
            if count > joined.count {
                joined.deallocate()
                joined = .allocate(byteCount: max(count, 2 * joined.count), alignment: 1)
            }
            let start = joined.baseAddress!
            head.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            if let bytes = tail.baseAddress {
                (start + head.count).copyMemory(from: bytes, byteCount: tail.count)
            }
            return UnsafeRawBufferPointer(start: start, count: count)
        }

        deinit {
            for index in 0..<count { UnsafeMutableRawBufferPointer(mutating: tails[index]).deallocate() }
            updates.deinitialize(count: count)
            updates.deallocate()
            tails.deallocate()
            joined.deallocate()
        }
    }

    private static let threadsRecent = ThreadLocal { Recent() }
    /// ``threadsRecent``, held here: reading a static property checked that it was made, at
    /// every line.
    private let recent = WireUpdateLines.threadsRecent

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
        withLine(of: update, head: Self.head(subscription: subscription)) { bytes.append(contentsOf: $0) }
    }

    /// Calls `body` with the line of `update` for the subscription whose
    /// ``head(subscription:)`` is `head`, put together in memory of the calling thread's that
    /// `body` may read until it returns: the line as a writer hands it to the socket, without
    /// an array made or kept for it.
    public func withLine<Result>(
        of update: LocationUpdate, head: [UInt8], _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        recent.withValue { recent in body(recent.join(head, tailAt: tailIndex(of: update, in: recent))) }
    }

    /// Where the tail of `update` is in `recent`: found there, or put there first.
    private func tailIndex(of update: LocationUpdate, in recent: Recent) -> Int {
        if let index = recent.index(of: update) { return index }
        let tail =
            written.withLock { written in written.lastIndex { $0.update == update }.map { written[$0].tail } }
            ?? write(update)
        recent.insert(update, tail: tail)
        return 0
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
