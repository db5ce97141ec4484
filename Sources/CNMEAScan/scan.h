// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// The NMEA framer's inner loop, sixteen bytes at a time in the processor's vector registers (SSE2
// on x86-64, NEON on ARM64) through the C compiler's portable vector types: Swift's own SIMD
// types compile their comparisons lane by lane. Header-only and `static inline`, so that Swift
// inlines it into the framer.
#ifndef CNMEASCAN_SCAN_H
#define CNMEASCAN_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t cnmea_bytes16 __attribute__((vector_size(16)));

// Whether `byte` ends a sentence's run: a control byte (line ends among them), DEL, a non-ASCII
// byte, or a start character `$` or `!`.
static inline int cnmea_ends_run(uint8_t byte) {
    return (uint8_t)(byte - 0x20) >= 0x5F || byte == '$' || byte == '!';
}

// The index of the first byte in `index..<end` of `base` that ends a sentence's run (or `end`),
// with every byte before it XORed into `*checksum`.
static inline size_t cnmea_scan_run(const uint8_t *base, size_t index, size_t end, uint8_t *checksum) {
    cnmea_bytes16 sum = {0};
    while (index + 16 <= end) {
        cnmea_bytes16 block;
        memcpy(&block, base + index, 16);
        cnmea_bytes16 stops = (cnmea_bytes16)((cnmea_bytes16)(block - 0x20) >= 0x5F) |
                              (cnmea_bytes16)(block == '$') | (cnmea_bytes16)(block == '!');
        // A flagged lane is all ones: the first one is found in the two halves as whole words.
        uint64_t halves[2];
        memcpy(halves, &stops, 16);
        if ((halves[0] | halves[1]) != 0) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            unsigned lane = halves[0] != 0 ? (unsigned)__builtin_clzll(halves[0]) / 8
                                           : 8 + (unsigned)__builtin_clzll(halves[1]) / 8;
#else
            unsigned lane = halves[0] != 0 ? (unsigned)__builtin_ctzll(halves[0]) / 8
                                           : 8 + (unsigned)__builtin_ctzll(halves[1]) / 8;
#endif
            const cnmea_bytes16 lanes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
            sum ^= block & (cnmea_bytes16)(lanes < (uint8_t)lane);
            index += lane;
            end = index;  // found: the loop below has nothing left to read
            break;
        }
        sum ^= block;
        index += 16;
    }
    uint64_t folded[2];
    memcpy(folded, &sum, 16);
    uint64_t word = folded[0] ^ folded[1];
    word ^= word >> 32;
    word ^= word >> 16;
    word ^= word >> 8;
    uint8_t value = *checksum ^ (uint8_t)word;
    // Fewer than sixteen bytes left in the chunk: one at a time.
    while (index < end && !cnmea_ends_run(base[index])) {
        value ^= base[index];
        index++;
    }
    *checksum = value;
    return index;
}

#endif
