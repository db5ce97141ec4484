// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Locking
import NIOCore

/// Which event loop a new connection joins. The first loop, which reads the receivers, takes
/// every connection until it holds `spreadAbove` of them; past that each new one goes to the loop
/// with the least to do at an epoch, where the first loop also turns each fix into every
/// subscriber's update.
///
/// Every loop that has a client is woken at every epoch. With a few clients that wake-up is most
/// of what a second loop would do (an update cost 1.28× gpsd's CPU with two loops against 1.13×
/// with one, 60 clients, `BENCHMARKS.md`), so they stay on the receivers' loop. With many, one
/// loop writes the last of them a whole epoch's sends after the first, on one processor while
/// the others idle.
final class LoopPlacement: Sendable {
    private let loops: [any EventLoop]
    private let spreadAbove: Int
    /// What the receivers' loop does at an epoch for each connection of the daemon besides
    /// writing to its own: the engines' work, serial on that loop, which turns the fix into each
    /// subscriber's update, as a share of one client's writing (0.4: `BENCHMARKS.md`, round 2,
    /// fifteenth part). Past `spreadAbove` that loop counts as holding this share of all
    /// connections more than its own, so that with a thousand clients every loop ends the
    /// epoch's writes at about the same time, rather than the receivers' loop last.
    private let engineShare: Double
    /// The connections each loop holds, by the loop's place in `loops`.
    private let counts: Mutex<[Int]>

    /// `group`'s loops, the first of which reads the receivers.
    init(group: any EventLoopGroup, spreadAbove: Int, engineShare: Double = 0.4) {
        loops = Array(group.makeIterator())
        self.spreadAbove = spreadAbove
        self.engineShare = engineShare
        counts = Mutex(Array(repeating: 0, count: loops.count))
    }

    /// The loop for a new connection, and what to call once when that connection has closed.
    func place() -> (loop: any EventLoop, release: @Sendable () -> Void) {
        let index = counts.withLock { counts in
            var chosen = 0
            if counts[0] >= spreadAbove {
                let engines = engineShare * Double(counts.reduce(0, +))
                func load(_ index: Int) -> Double { Double(counts[index]) + (index == 0 ? engines : 0) }
                for index in counts.indices where load(index) < load(chosen) { chosen = index }
            }
            counts[chosen] += 1
            return chosen
        }
        return (loops[index], { self.counts.withLock { $0[index] -= 1 } })
    }

    /// How many connections each loop holds now.
    var connections: [Int] { counts.withLock { $0 } }
}
