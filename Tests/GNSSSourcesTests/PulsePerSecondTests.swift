// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking
import TestSupport
import Testing

@testable import GNSSSources

/// The pulse per second on a serial port's DCD line: what happens on a port without one, and
/// that a watcher waiting for an edge that never comes still stops.
@Suite("Pulse per second on DCD")
struct PulsePerSecondTests {
    final class Said: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test(
        "a pseudo-terminal reports no modem lines: no watcher is started for it, and one that is says so and ends"
    )
    func pseudoTerminalHasNoPulses() async throws {
        let terminal = try PseudoTerminal()
        let port = open(terminal.slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
        try #require(port >= 0)
        defer { close(port) }
        let said = Said()
        let watcher = try #require(
            PulsePerSecond.Watcher(port: port, device: terminal.slavePath) { said.add($0) })
        #expect(await waitUntil(within: 5) { !said.all.isEmpty && !watcher.isWatching })
        #expect(said.all.count == 1)
        #expect(
            said.all.first?.contains("no pulse per second: the port does not report changes of its DCD line")
                == true,
            "\(said.all)")
    }

    /// A UART of this machine whose driver waits for modem-line changes, if there is one.
    static var uart: Int32? {
        let port = open("/dev/ttyS0", O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard port >= 0 else { return nil }
        guard PulsePerSecond.Watcher.reportsModemLines(port) else {
            close(port)
            return nil
        }
        return port
    }

    @Test(
        "a UART's watcher waits for an edge, and stopping it ends the wait",
        .enabled(if: uart != nil, "no serial port here reports its modem lines (/dev/ttyS0)"))
    func waitingWatcherStops() async throws {
        let port = try #require(Self.uart)
        defer { close(port) }
        let said = Said()
        let watcher = try #require(PulsePerSecond.Watcher(port: port, device: "/dev/ttyS0") { said.add($0) })
        #expect(await waitUntil(within: 2) { watcher.isWatching })
        try await Task.sleep(for: .milliseconds(300))
        #expect(watcher.isWatching, "waiting for DCD: \(said.all)")
        watcher.stop()
        #expect(await waitUntil(within: 3) { !watcher.isWatching }, "the wait ended")
        #expect(said.all.isEmpty, "\(said.all)")
    }
}
