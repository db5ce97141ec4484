// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The updates of one input, each with the subscribers it goes to, in the order they are told.
/// At one fix every precise subscriber is told the same location with the same flags, or with
/// `stationary` set, or a status; every reduced one the same output: a few updates for any
/// number of subscribers.
struct DeliveryGroups {
    /// What tells the updates of one input apart, and what each is made from. Every location told
    /// at one input is either the input's precise one (``UpdateSubscriber/pipeline(_:gate:)``) or
    /// the reducer's one output (``UpdateSubscriber/reduced(_:gate:)``): which of the two, with
    /// what the subscriber is told, is the whole update.
    private struct Key: Equatable {
        var reduced: Bool
        var told: Told
    }

    // Side by side rather than as one array of tuples: reading a tuple's key out of an array
    // copied the whole tuple for every subscriber.
    private var keys: [Key] = []
    private var members: [[LocationCore.ID]] = []
    /// The group the last subscriber joined, its members held here rather than in ``members``
    /// while the next subscribers join it too (at a fix, most join the group of the one before):
    /// appending to an array in an array checked both for other owners, for every subscriber
    /// (`BENCHMARKS.md`, round 2, twenty-third part). Its place in ``members`` holds an empty
    /// array meanwhile. −1 when there is none.
    private var current = -1
    private var currentMembers: [LocationCore.ID] = []

    /// Subscriber `id` is told `told`, one of `remaining` subscribers still to be told (this one
    /// included): its group's room for them is made once. `reduced`: it is told the reducer's
    /// output, not the input's precise location.
    mutating func add(_ id: LocationCore.ID, _ told: Told, reduced: Bool, of remaining: Int) {
        let key = Key(reduced: reduced, told: told)
        if current >= 0, keys[current] == key {
            currentMembers.append(id)
            return
        }
        if current >= 0 { swap(&members[current], &currentMembers) }
        // A few more groups are looked at, so that subscribers told one thing in turn with
        // another still share.
        var index = keys.count - 1
        while index >= 0, index >= keys.count - 4 {
            if keys[index] == key {
                current = index
                swap(&members[index], &currentMembers)
                currentMembers.append(id)
                return
            }
            index -= 1
        }
        keys.append(key)
        members.append([])
        current = keys.count - 1
        // The empty array the last group's place held, or none yet.
        assert(currentMembers.isEmpty, "a group's members left outside the groups")
        currentMembers.reserveCapacity(remaining)
        currentMembers.append(id)
    }

    /// One action for each group, which holds the group's subscribers and its update, made with
    /// `precise` (the input's location) or `reduced` (the reducer's output) for those told a
    /// location; then no group, the arrays' storage kept for the next input.
    mutating func flush(into actions: inout [LocationCore.Action], precise: Location?, reduced: Location?) {
        if current >= 0 { swap(&members[current], &currentMembers) }
        for index in keys.indices {
            let key = keys[index]
            let location = key.reduced ? reduced : precise
            assert(!key.told.located || location != nil, "a location told without one")
            actions.append(.deliver(to: members[index], key.told.update(location)))
        }
        keys.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        current = -1
    }
}
