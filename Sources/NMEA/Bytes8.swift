// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Byte tests eight bytes at a time in one 64-bit word (SIMD within a register).
///
/// Each test returns a word whose byte `i` has its top bit set exactly when byte `i` of the input
/// passes; no carry crosses from one byte into the next, so there are no false positives and the
/// lowest set bit marks the first byte (in memory order) that passes.
enum Bytes8 {
    static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    static let high: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    static func repeating(_ byte: UInt8) -> UInt64 { 0x0101_0101_0101_0101 &* UInt64(byte) }

    /// The eight bytes at `pointer`, the first one in the lowest byte.
    @inline(__always)
    static func load(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Bytes equal to `byte`.
    @inline(__always)
    static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let difference = word ^ repeating(byte)
        return ~(((difference & low7) &+ low7) | difference) & high
    }

    /// The index (0…7) of the first byte flagged in a non-zero test result.
    @inline(__always)
    static func firstIndex(_ flags: UInt64) -> Int { flags.trailingZeroBitCount &>> 3 }
}
