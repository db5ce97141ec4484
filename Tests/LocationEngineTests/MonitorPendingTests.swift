// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import LocationEngine

@Suite("Monitors: events waiting for a subscriber")
struct MonitorPendingTests {
    @Test(
        "A condition that changed more often than the bound keeps its latest changes, in order; others keep all"
    )
    func bound() throws {
        let limit = MonitorCore.pendingLimit
        var pending: [MonitorEvent] = []
        for index in 0..<(limit + 10) {
            pending.append(
                MonitorEvent(
                    identifier: "gate", state: index.isMultiple(of: 2) ? .satisfied : .unsatisfied,
                    date: Date(timeIntervalSince1970: Double(index)), generation: 1))
            if index == 3 || index == 40 {
                pending.append(
                    MonitorEvent(
                        identifier: "depot", state: .satisfied,
                        date: Date(timeIntervalSince1970: Double(index)),
                        generation: 1))
            }
        }
        MonitorCore.trim(&pending)
        let gate = pending.filter { $0.identifier == "gate" }.map(\.date.timeIntervalSince1970)
        #expect(gate == (10..<(limit + 10)).map(Double.init))
        #expect(pending.filter { $0.identifier == "depot" }.map(\.date.timeIntervalSince1970) == [3, 40])
        // The order across conditions is kept: depot's change at 40 sits between gate's 40 and 41.
        let index = try #require(
            pending.firstIndex { $0.identifier == "depot" && $0.date.timeIntervalSince1970 == 40 })
        #expect(pending[index - 1].date.timeIntervalSince1970 == 40)
    }
}
