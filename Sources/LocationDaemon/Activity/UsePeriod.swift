// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import LocationWire
import Locking

/// One subscription's use of location, as its front-end tells the ``ActivityLedger``: a period
/// begins with the first location it delivers, counts each one after, and ends when the
/// subscription ends (``end()``), when its updates say it is refused (denied, not in use…), or
/// when its accuracy changes (a new period begins, at the new one). Every time it records is the
/// time of a delivery to the program, or of its own going: an approximate app that reads its
/// periods learns nothing its deliveries did not tell it already.
///
/// A delivery within a period costs two atomic operations: no lock, no allocation, no clock. A
/// subscription's deliveries come from one thread (its connection's loop, or the bus thread);
/// its end may come from another, and a delivery racing it is counted in the period it ended,
/// or in none: a count may be one short, never another period's.
final class UsePeriod: Sendable {
    /// What ``phase`` holds.
    private enum Phase {
        static let none: UInt8 = 0
        static let precise: UInt8 = 1
        static let approximate: UInt8 = 2
        static let ended: UInt8 = 3
    }

    private struct State {
        var begin: WireAccess?
    }

    private let ledger: ActivityLedger
    private let accessor: ActivityLedger.Accessor
    /// The open period's accuracy, or none, or ended: read without the lock by each delivery.
    private let phase = Atomic<UInt8>(Phase.none)
    /// The open period's deliveries.
    private let updates = Atomic<Int>(0)
    /// The open period's begin; changed under the lock, with ``phase``.
    private let state = Mutex(State())

    init(ledger: ActivityLedger, accessor: ActivityLedger.Accessor) {
        self.ledger = ledger
        self.accessor = accessor
    }

    deinit { end() }

    /// A location was delivered to the program, precise or approximate.
    func delivered(precise: Bool) {
        let wanted = precise ? Phase.precise : Phase.approximate
        if phase.load(ordering: .acquiring) == wanted {
            updates.wrappingAdd(1, ordering: .relaxed)
            return
        }
        state.withLock { state in
            let now = phase.load(ordering: .relaxed)
            guard now != Phase.ended else { return }
            if now == wanted {
                updates.wrappingAdd(1, ordering: .relaxed)
                return
            }
            if let begin = state.begin { ledger.end(begin, updates: updates.load(ordering: .relaxed)) }
            state.begin = ledger.begin(accessor, precise: precise)
            updates.store(1, ordering: .relaxed)
            phase.store(wanted, ordering: .releasing)
        }
    }

    /// An update the front-end delivers (or would): a location continues the period, a refusal
    /// ends it; anything else (no fix now, standing still, a precise fix's status) changes nothing.
    func saw(_ update: LocationUpdate) {
        if update.location != nil {
            delivered(precise: !update.flags.accuracyLimited)
        } else if Self.refuses(update.flags) {
            pause()
        }
    }

    /// Ends the period open now, if any; the next delivery begins another.
    func pause() { close(ending: false) }

    /// The subscription is over: the period open now ends, and none begins after.
    func end() { close(ending: true) }

    private func close(ending: Bool) {
        let now = phase.load(ordering: .acquiring)
        if now == Phase.ended || (now == Phase.none && !ending) { return }
        state.withLock { state in
            guard phase.load(ordering: .relaxed) != Phase.ended else { return }
            phase.store(ending ? Phase.ended : Phase.none, ordering: .releasing)
            guard let begin = state.begin else { return }
            ledger.end(begin, updates: updates.load(ordering: .relaxed))
            state.begin = nil
        }
    }

    /// Whether updates with these flags and no location mean the program is refused now.
    static func refuses(_ flags: AuthorizationFlags) -> Bool {
        flags.authorizationDenied || flags.authorizationDeniedGlobally || flags.authorizationRestricted
            || flags.insufficientlyInUse || flags.serviceSessionRequired
            || flags.authorizationRequestInProgress
    }
}
