// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Builds test sentences with correct checksums.
public enum SentenceBuilder {
    /// The XOR checksum of the bytes between `$` and `*`.
    public static func checksum(_ body: String) -> UInt8 {
        body.utf8.reduce(0, ^)
    }

    /// `$` + body + `*hh` + line end.
    public static func sentence(_ body: String, lineEnd: String = "\r\n") -> String {
        let sum = checksum(body)
        let hex = String(sum, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex) + lineEnd
    }

    /// Splits `bytes` into chunks of the given sizes, repeating the sizes as needed.
    public static func chunks(_ bytes: [UInt8], sizes: [Int]) -> [[UInt8]] {
        precondition(!sizes.isEmpty && sizes.allSatisfy { $0 > 0 })
        var result: [[UInt8]] = []
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let size = min(sizes[index % sizes.count], bytes.count - offset)
            result.append(Array(bytes[offset..<(offset + size)]))
            offset += size
            index += 1
        }
        return result
    }

    /// Random chunk sizes from 1 to `maximum`, from a seeded generator.
    public static func randomSizes(count: Int, maximum: Int, seed: UInt64) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(maximum)) + 1
        }
    }
}
