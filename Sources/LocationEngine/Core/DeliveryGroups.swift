// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The updates of one input, each with the subscribers it goes to, in the order they are told.
/// At one fix every precise subscriber is told the same location with the same flags, or with
/// `stationary` set, or a status; every reduced one the same output: a few updates for any
/// number of subscribers.
struct DeliveryGroups {
    /// What tells the updates of one input apart. Every location told at one input is either
    /// the input's precise one (``UpdateSubscriber/pipeline(_:gate:)``) or the reducer's one
    /// output (``UpdateSubscriber/reduced(_:gate:)``): which of the two, with the flags and the
    /// states, is the whole update. Compared in place of the updates themselves, whose locations
    /// are most of their size (a debug build checks that it holds).
    private struct Key: Equatable {
        var reduced: Bool
        var located: Bool
        var stationary: Bool
        var unavailable: Bool
        var flags: AuthorizationFlags

        init(_ update: LocationUpdate, reduced: Bool) {
            self.reduced = reduced
            located = update.location != nil
            stationary = update.isStationary
            unavailable = update.locationUnavailable
            flags = update.flags
        }
    }

    // Side by side rather than as one array of tuples: reading a tuple's key out of an array
    // copied the whole tuple, update and all, for every subscriber.
    private var keys: [Key] = []
    private var members: [[LocationCore.ID]] = []
    private var updates: [LocationUpdate] = []

    /// `update` for subscriber `id`, one of `remaining` subscribers still to be told (this one
    /// included): its group's room for them is made once. `reduced`: the update came from the
    /// reducer's output, not from the input's precise location.
    mutating func add(_ id: LocationCore.ID, _ update: LocationUpdate, reduced: Bool, of remaining: Int) {
        let key = Key(update, reduced: reduced)
        // The group of the last subscriber is the likeliest; a few more are looked at, so
        // subscribers told one thing in turn with another still share.
        var index = keys.count - 1
        while index >= 0, index >= keys.count - 4 {
            if keys[index] == key {
                assert(updates[index] == update, "one input told two updates under one key")
                members[index].append(id)
                return
            }
            index -= 1
        }
        var ids: [LocationCore.ID] = []
        ids.reserveCapacity(remaining)
        ids.append(id)
        keys.append(key)
        members.append(ids)
        updates.append(update)
    }

    /// One action for each group, which holds the group's subscribers; then no group, the
    /// arrays' storage kept for the next input.
    mutating func flush(into actions: inout [LocationCore.Action]) {
        for index in keys.indices { actions.append(.deliver(to: members[index], updates[index])) }
        keys.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        updates.removeAll(keepingCapacity: true)
    }
}
