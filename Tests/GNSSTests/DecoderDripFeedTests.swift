// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import TestSupport
import Testing

@Suite("The fix decoder, drip-fed")
struct DecoderDripFeedTests {
    @Test("Bytes cut anywhere give the same fixes as whole, faults and all")
    func faultyLog() async throws {
        let bytes = try Fixtures.bytes("drive-faults.nmea")
        let fixes = await verifyDripFeed(bytes, seeds: 1..<4, make: { FixDecoder() }, into: [Fix]()) {
            $0.append($1)
        }
        #expect(fixes.count == 240)
    }
}
