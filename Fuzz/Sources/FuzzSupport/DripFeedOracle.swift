// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// The drip-feed oracle: a decoder given `bytes` in pieces (sizes from ``chunkSizes(for:)``) must
/// give the same outputs, as `describe` writes them, and end with the same `counts` as one given
/// them whole. A difference ends the run as a crash, saying which.
public func checkDripFeed<Decoder: IncrementalDecoder, Counts: Equatable>(
    _ bytes: UnsafeBufferPointer<UInt8>, make: () -> Decoder, counts: (Decoder) -> Counts,
    describe: (Decoder.Output) -> String
) {
    var whole = make()
    var wholeOutputs: [String] = []
    whole.append(UnsafeRawBufferPointer(bytes)) { wholeOutputs.append(describe($0)) }
    whole.finish { wholeOutputs.append(describe($0)) }

    var pieces = make()
    var pieceOutputs: [String] = []
    var offset = 0
    for size in chunkSizes(for: bytes) {
        let end = min(offset + size, bytes.count)
        pieces.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset..<end]))) {
            pieceOutputs.append(describe($0))
        }
        offset = end
    }
    pieces.finish { pieceOutputs.append(describe($0)) }

    if wholeOutputs != pieceOutputs {
        fuzzFailure("fed in pieces, \(pieceOutputs.count) outputs; fed whole, \(wholeOutputs.count)")
    }
    if counts(whole) != counts(pieces) {
        fuzzFailure("fed in pieces, the counts differ: \(counts(pieces)) against \(counts(whole))")
    }
}
