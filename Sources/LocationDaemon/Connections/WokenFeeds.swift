// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Locking
import NIOCore

/// The feeds woken for one event loop and not read yet, read there together: at an epoch each
/// app's engine, on the receivers' loop, posts to every subscriber's mailbox in turn, and each
/// mailbox wakes its feed. One call handed to the loop reads all the feeds woken until it runs,
/// in the order they were woken, where a call for each feed was SwiftNIO's task queue, its lock
/// and a task's copies for every client at every update (`BENCHMARKS.md`, round 2, eighteenth
/// part).
///
/// A feed woken on the loop's own thread goes to a list that thread alone touches; one woken from
/// another thread (an app's engine on the receivers' loop, for a client of a second loop) to a
/// list under a lock, read by a call of its own.
///
/// Each feed is read by a call of its own, made where its type is known: through a protocol
/// of the feeds, its reading would be the generic code, looking up its types' metadata at each
/// read.
final class WokenFeeds: @unchecked Sendable {
    /// A call that reads one feed, held in a structure: a bare closure in an array is held in
    /// the form of a generic value, and each one added would allocate a thunk to convert it.
    struct Read: Sendable {
        let call: @Sendable () -> Void
    }

    private let loop: any EventLoop
    /// Woken on the loop's thread since the last call for them was handed to it, the first of
    /// them first. Touched by that thread alone, one access at a time: unchecked, as the
    /// run-time check of each access cost as much as adding the feed.
    @exclusivity(unchecked) private var woken: [Read] = []
    /// Woken on other threads since the last call for them was handed to the loop.
    private let handed = Mutex<[Read]>([])
    /// The list being read, on the loop, kept for its storage: a feed woken while the others
    /// are read (a write that failed ended a session, say) goes to a list and a call of its own.
    @exclusivity(unchecked) private var reading: [Read] = []

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    /// `loop`'s: on the loop, the one its thread keeps; from elsewhere (a test's connection), one
    /// of the caller's own, which reads its feeds the same way. Kept by the thread rather than
    /// found by the loop's identity in a table of weak references: an object weakly referenced
    /// takes the slow way at every retain and release, as this one is at every update.
    static func of(_ loop: any EventLoop) -> WokenFeeds {
        guard loop.inEventLoop else { return WokenFeeds(loop: loop) }
        let slot = Slot.perThread.value
        if let feeds = slot.feeds, feeds.loop === loop { return feeds }
        let feeds = WokenFeeds(loop: loop)
        slot.feeds = feeds
        return feeds
    }

    /// A thread's loop's feeds: a loop runs on one thread, which runs no other.
    private final class Slot {
        var feeds: WokenFeeds?
        static let perThread = ThreadLocal { Slot() }
    }

    /// On the loop: `read` reads a feed in the next call, handed to the loop now if none waits.
    func add(_ read: Read) {
        woken.append(read)
        guard woken.count == 1 else { return }
        loop.execute { self.readWoken() }
    }

    /// From another thread than the loop's: ``add(_:)``'s, under a lock.
    func hand(_ read: Read) {
        let first = handed.withLock { handed in
            handed.append(read)
            return handed.count == 1
        }
        if first { loop.execute { self.readHanded() } }
    }

    private func readWoken() {
        swap(&woken, &reading)
        readAll()
    }

    private func readHanded() {
        handed.withLock { swap(&$0, &reading) }
        readAll()
    }

    private func readAll() {
        for read in reading { read.call() }
        reading.removeAll(keepingCapacity: true)
    }
}
