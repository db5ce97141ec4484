// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import TestSupport
import Testing

@_spi(FrontEnd) @testable import LocationEngine

/// An engine's update mailboxes found by number, against a dictionary, through random
/// subscriptions and cancellations and deliveries to random ascending sets of numbers.
@Suite("An engine's update mailboxes")
struct UpdateMailboxesTests {
    @Test("each number finds its mailbox, and a delivery reaches exactly the mailboxes named")
    func againstADictionary() {
        var random = SeededGenerator(seed: 41)
        var mailboxes = UpdateMailboxes()
        var model: [LocationCore.ID: Mailbox<LocationUpdate>] = [:]
        var next = 0
        for _ in 0..<3_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                // Mostly new numbers, now and then an old one out of order.
                let id =
                    Bool.random(using: &random) || next == 0 ? next : Int.random(in: 0..<next, using: &random)
                next = max(next, id + 1)
                let mailbox = Mailbox<LocationUpdate>(capacity: 1)
                mailboxes.insert(mailbox, for: id)
                model[id] = mailbox
            case 4..<6:
                let id = Int.random(in: 0...next, using: &random)
                mailboxes.remove(id)
                model[id] = nil
            default:
                let named = (0...next).filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
                var reached: [ObjectIdentifier] = []
                mailboxes.forEach(of: named) { reached.append(ObjectIdentifier($0)) }
                #expect(reached == named.compactMap { model[$0].map(ObjectIdentifier.init) })
            }
            let id = Int.random(in: 0...next, using: &random)
            #expect(mailboxes[id].map(ObjectIdentifier.init) == model[id].map(ObjectIdentifier.init))
            #expect(mailboxes.count == model.count)
        }
    }
}
