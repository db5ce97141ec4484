// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LocationEngine

/// The engine's SHA-256 and HMAC-SHA256 against the standards' own vectors (FIPS 180-2, RFC 4231):
/// a reducer's offsets and state-file names must not change with the library that computes them.
@Suite struct DigestTests {
    @Test func sha256MatchesTheStandardsVectors() {
        #expect(
            Digest.hex(Digest.sha256([]))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Digest.hex(Digest.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Digest.hex(Digest.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func hmacSHA256MatchesRFC4231() {
        // Test case 1: a 20-byte key of 0x0b.
        #expect(
            Digest.hex(
                Digest.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Test case 2: a key shorter than the output.
        #expect(
            Digest.hex(
                Digest.hmacSHA256(
                    key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than the hash's block, hashed first.
        #expect(
            Digest.hex(
                Digest.hmacSHA256(
                    key: [UInt8](repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // An empty message.
        #expect(
            Digest.hex(Digest.hmacSHA256(key: Array("key".utf8), message: []))
                == "5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0")
    }
}
