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
/// A delivery within a period costs a lock and an addition: no allocation, no clock.
final class UsePeriod: Sendable {
    private struct State {
        var begin: WireAccess?
        var precise = false
        var updates = 0
        var ended = false
    }

    private let ledger: ActivityLedger
    private let accessor: ActivityLedger.Accessor
    private let state = Mutex(State())

    init(ledger: ActivityLedger, accessor: ActivityLedger.Accessor) {
        self.ledger = ledger
        self.accessor = accessor
    }

    deinit { end() }

    /// A location was delivered to the program, precise or approximate.
    func delivered(precise: Bool) {
        state.withLock { state in
            if state.begin != nil && state.precise == precise {
                state.updates += 1
                return
            }
            guard !state.ended else { return }
            if let begin = state.begin { ledger.end(begin, updates: state.updates) }
            state.begin = ledger.begin(accessor, precise: precise)
            state.precise = precise
            state.updates = 1
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
    func pause() {
        state.withLock { state in
            guard let begin = state.begin else { return }
            ledger.end(begin, updates: state.updates)
            state.begin = nil
            state.updates = 0
        }
    }

    /// The subscription is over: the period open now ends, and none begins after.
    func end() {
        state.withLock { state in
            state.ended = true
            guard let begin = state.begin else { return }
            ledger.end(begin, updates: state.updates)
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
