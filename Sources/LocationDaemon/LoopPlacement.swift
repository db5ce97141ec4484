// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Locking
import NIOCore

/// Which event loop a new connection joins. The first loop, which reads the receivers, takes
/// every connection until it holds `spreadAbove` of them; past that each new one goes to the loop
/// holding the fewest.
///
/// Every loop that has a client is woken at every epoch. With a few clients that wake-up is most
/// of what a second loop would do (an update cost 1.28× gpsd's CPU with two loops against 1.13×
/// with one, 60 clients, `BENCHMARKS.md`), so they stay on the receivers' loop. With many, one
/// loop writes the last of them a whole epoch's sends after the first, on one processor while
/// the others idle.
final class LoopPlacement: Sendable {
    private let loops: [any EventLoop]
    private let spreadAbove: Int
    /// The connections each loop holds, by the loop's place in `loops`.
    private let counts: Mutex<[Int]>

    /// `group`'s loops, the first of which reads the receivers.
    init(group: any EventLoopGroup, spreadAbove: Int) {
        loops = Array(group.makeIterator())
        self.spreadAbove = spreadAbove
        counts = Mutex(Array(repeating: 0, count: loops.count))
    }

    /// The loop for a new connection, and what to call once when that connection has closed.
    func place() -> (loop: any EventLoop, release: @Sendable () -> Void) {
        let index = counts.withLock { counts in
            var chosen = 0
            if counts[0] >= spreadAbove {
                for index in counts.indices where counts[index] < counts[chosen] { chosen = index }
            }
            counts[chosen] += 1
            return chosen
        }
        return (loops[index], { self.counts.withLock { $0[index] -= 1 } })
    }

    /// How many connections each loop holds now.
    var connections: [Int] { counts.withLock { $0 } }
}
