// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// Values on the command line or in the input that once crashed the binary: each is now an error
/// that names the argument and the fix, or data like any other.
@Suite("gpsloc against extreme values, the built binary")
struct HostileValuesTests {
    @Test("An enormous --max-length is refused, not allocated")
    func enormousMaximumLength() async throws {
        let log = Fixtures.url("drive-1hz.nmea").path
        let result = try await Runner.run(["decode", log, "--max-length", "99999999999999", "--quiet"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--max-length must be from 16 to 1048576"))
    }

    @Test("A replay speed too slow to represent is refused with the range it takes")
    func tinySpeed() async throws {
        let result = try await Runner.run([
            "watch", "--source", "file:\(Fixtures.url("drive-1hz.nmea").path)?speed=1e-10", "--app",
            "com.example.x",
        ])
        #expect(result.status == 64)
        #expect(result.standardError.contains("speed must be 'max' or a factor from 0.001 to 1000000"))
    }

    @Test("Well-formed sentences dated 2263 or with 17 decimals decode without a time, not a crash")
    func extremeSentences() async throws {
        let input = [
            SentenceBuilder.sentence("GPZDA,080000.00,14,03,2263,00,00"),
            SentenceBuilder.sentence("GPGLL,00.12345678901234567,N,00453.556,E,080000.00,A,A"),
        ].joined()
        let result = try await Runner.run(
            ["decode", "-", "--format", "jsonl", "--quiet"], input: Data(input.utf8))
        #expect(result.status == 0)
        #expect(result.standardOutput.contains(#""latitude":0.002057613"#))
        #expect(!result.standardOutput.contains(#""time":"#))
    }
}
