// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
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
///
/// Once the loops spread, each is confined to a processor of its own (``processorSets``): the
/// receivers' loop wakes the others at every epoch as it hands them their clients' updates, and
/// Linux puts a thread woken so on the waker's processor while the other one idles, so that
/// unconfined, the second loop began its clients only once the first had ended the epoch's work
/// (`BENCHMARKS.md`, round 2, sixteenth part). A daemon with a few clients keeps one loop and is
/// not confined at all.
final class LoopPlacement: Sendable {
    private let loops: [any EventLoop]
    private let spreadAbove: Int
    /// What the receivers' loop does at an epoch for each connection of the daemon besides
    /// writing to its own: the engines' work, serial on that loop, which turns the fix into each
    /// subscriber's update, as a share of one client's writing (0.2, the loops confined to their
    /// processors: `BENCHMARKS.md`, round 2, sixteenth part). Past `spreadAbove` that loop counts
    /// as holding this share of all connections more than its own, so that with a thousand
    /// clients every loop ends the epoch's writes at about the same time.
    private let engineShare: Double
    /// The connections each loop holds, by the loop's place in `loops`, and whether the loops
    /// have been confined to their processors.
    private let state: Mutex<(held: [Int], confined: Bool)>
    /// The processors each loop is confined to once they spread; `nil` where they stay free.
    let processors: [[Int]]?

    /// `group`'s loops, the first of which reads the receivers; `usable`, the processors the
    /// daemon may run on.
    init(
        group: any EventLoopGroup, spreadAbove: Int, engineShare: Double = 0.2,
        usable: [Int] = usableProcessorIDs()
    ) {
        loops = Array(group.makeIterator())
        self.spreadAbove = spreadAbove
        self.engineShare = engineShare
        processors = Self.processorSets(loops: loops.count, usable: usable)
        state = Mutex((Array(repeating: 0, count: loops.count), false))
    }

    /// Each loop's processors: every loop but the first has one of its own, and the first has
    /// the rest, which a daemon given more processors than it has loops leaves it free to move
    /// among. `nil` with one loop, or with fewer processors than loops, where the loops stay
    /// free.
    static func processorSets(loops: Int, usable: [Int]) -> [[Int]]? {
        guard loops > 1, usable.count >= loops else { return nil }
        return [[usable[0]] + usable[loops...]] + usable[1..<loops].map { [$0] }
    }

    /// The loop for a new connection, and what to call once when that connection has closed.
    func place() -> (loop: any EventLoop, release: @Sendable () -> Void) {
        let (index, confine) = state.withLock { state in
            let chosen = leastBusy(state.held)
            state.held[chosen] += 1
            let confine = chosen != 0 && !state.confined && processors != nil
            if confine { state.confined = true }
            return (chosen, confine)
        }
        if confine, let processors {
            for (loop, set) in zip(loops, processors) { loop.execute { pinCurrentThread(to: set) } }
        }
        return (loops[index], { self.state.withLock { $0.held[index] -= 1 } })
    }

    /// Where a new connection goes when the loops hold `counts`: the first loop up to
    /// `spreadAbove`, then the loop with the least to do at an epoch.
    private func leastBusy(_ counts: [Int]) -> Int {
        guard counts[0] >= spreadAbove else { return 0 }
        let engines = engineShare * Double(counts.reduce(0, +))
        func load(_ index: Int) -> Double { Double(counts[index]) + (index == 0 ? engines : 0) }
        var chosen = 0
        for index in counts.indices where load(index) < load(chosen) { chosen = index }
        return chosen
    }

    /// How many connections each loop holds now.
    var connections: [Int] { state.withLock { $0.held } }
}
