// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// A fuzzer's input read as a stream of choices, for the structure-aware fuzzers: each call takes
/// the next bytes, and an input that has run out answers with zeros, so every input describes
/// one complete, deterministic test case and a small mutation makes a small change to it.
public struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether every byte has been used.
    public var isExhausted: Bool { position >= bytes.count }

    /// The next byte, or 0 when the input has run out.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0..<bound` (`bound` at most 65,536).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0 && bound <= 1 << 16)
        if bound <= 256 { return Int(byte()) % bound }
        return (Int(byte()) << 8 | Int(byte())) % bound
    }

    /// One of `choices`.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }

    /// True about one time in `n`.
    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }
}

/// Ends the run as a crash that libFuzzer records, with what went wrong: an oracle failed.
public func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz oracle: \(message)")
}

/// The sizes to cut an input into for the drip-feed oracle: derived from the input itself, so a
/// crash reproduces from its file alone; from 1 byte to a few hundred.
public func chunkSizes(for bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
    var seed: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes.prefix(64) { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
    var sizes: [Int] = []
    var total = 0
    while total < bytes.count {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let size = seed >> 62 == 0 ? Int((seed >> 33) % 300) + 1 : Int(seed >> 59) + 1
        sizes.append(size)
        total += size
    }
    return sizes
}
