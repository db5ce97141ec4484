// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The mailboxes of an engine's update subscriptions, in ascending order of their numbers, the
/// order the core names them in. Found by a search from where the last one was found rather
/// than by hashing each number: at a fix the core names the subscribers of each group in
/// ascending order, and hashing a number was a tenth of the engine's work per subscriber.
struct UpdateMailboxes {
    private var entries: [(id: LocationCore.ID, mailbox: Mailbox<LocationUpdate>)] = []

    var all: [Mailbox<LocationUpdate>] { entries.map(\.mailbox) }
    var count: Int { entries.count }

    /// Numbers only grow, so a new subscription goes last; in order all the same if not.
    mutating func insert(_ mailbox: Mailbox<LocationUpdate>, for id: LocationCore.ID) {
        let index = position(of: id, from: 0)
        if index < entries.count, entries[index].id == id {
            entries[index].mailbox = mailbox
        } else {
            entries.insert((id, mailbox), at: index)
        }
    }

    mutating func remove(_ id: LocationCore.ID) {
        let index = position(of: id, from: 0)
        if index < entries.count, entries[index].id == id { entries.remove(at: index) }
    }

    subscript(id: LocationCore.ID) -> Mailbox<LocationUpdate>? {
        let index = position(of: id, from: 0)
        return index < entries.count && entries[index].id == id ? entries[index].mailbox : nil
    }

    /// Calls `body` with the mailbox of each of `ids` (ascending) that has one.
    func forEach(of ids: [LocationCore.ID], _ body: (Mailbox<LocationUpdate>) -> Void) {
        var start = 0
        for id in ids {
            let index = position(of: id, from: start)
            guard index < entries.count else { return }
            // The next number is greater: it is looked for from the entry after a match.
            if entries[index].id == id {
                body(entries[index].mailbox)
                start = index + 1
            } else {
                start = index
            }
        }
    }

    /// The first index at or after `start` whose number is not below `id`: the next entry
    /// itself when the numbers follow one another, else a binary search.
    private func position(of id: LocationCore.ID, from start: Int) -> Int {
        if start < entries.count, entries[start].id >= id { return start }
        var (low, high) = (start, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
