// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLibCrypto

/// SHA-256 and HMAC-SHA256 from the system's libcrypto: all the cryptography the engine needs
/// (the reducer's offsets and cadence, and short names for long state files). The system's
/// library rather than a compiled-in one, so that the engine compiles no cryptography of its own
/// (swift-crypto's BoringSSL was most of a first build of gpsloc).
enum Digest {
    /// `bytes` in lower-case hexadecimal, two digits each.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// SHA-256 of `bytes`: 32 bytes.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "libcrypto's SHA-256 failed")
        return Array(digest.prefix(32))
    }

    /// HMAC-SHA256 of `message` under `key`: 32 bytes.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                HMAC(
                    EVP_sha256(), key.baseAddress, Int32(key.count),
                    message.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    message.count, &code, &length)
            }
        }
        precondition(result != nil && length == 32, "libcrypto's HMAC-SHA256 failed")
        return Array(code.prefix(32))
    }
}
