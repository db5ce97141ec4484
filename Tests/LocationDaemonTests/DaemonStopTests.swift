// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import TestSupport
import Testing

/// gpslocd stopped (SIGTERM) while its receiver is read and its clients are subscribed.
@Suite(
    "gpslocd stops while it serves",
    .enabled(if: getuid() == 0, "grants its clients as root, the daemon's administrator"))
struct DaemonStopTests {
    @Test(
        "Stopped with clients subscribed: it ends at once, and nothing reaches its event loop once it is gone"
    )
    func stopWhileServing() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        // SwiftNIO's strict mode makes a call handed to an event loop that has shut down a crash
        // rather than a line on standard error.
        let daemon = try DaemonHarness(sources: [receiver.source], environment: ["SWIFTNIO_STRICT": "1"])
        try await daemon.start()
        try await daemon.grantAlways(uid: 0, app: socatPath.path)
        var clients: [WireClient] = []
        for _ in 0..<2 {
            let client = try daemon.client(as: nil)
            await client.hello()
            client.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
            client.send(#"{"op":"updates.subscribe","subscription":1}"#)
            clients.append(client)
        }
        for client in clients { #expect(await client.wait { _ in client.locations.count >= 3 }) }
        let status = await daemon.process?.stop(within: 20)
        #expect(status == 0, "gpslocd ended with \(String(describing: status)): \(daemon.log.suffix(3000))")
        #expect(!daemon.log.contains("Cannot schedule tasks"), "\(daemon.log.suffix(3000))")
        for client in clients { await client.stop() }
        await daemon.stop()
    }
}
