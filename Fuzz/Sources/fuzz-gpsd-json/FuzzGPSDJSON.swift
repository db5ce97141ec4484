// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import GNSS
import GNSSSources

/// gpsd's JSON reports, as from a gpsd on the network, through the decoder that turns them into
/// fixes, and every fix through the writers. The oracle: fed in small pieces, the same fixes,
/// notices and counts as fed whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPSDJSON(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    var whole = GPSDDecoder()
    var wholeOutput: [String] = []
    whole.append(UnsafeRawBufferPointer(bytes)) { wholeOutput.append(text(of: $0)) }
    whole.finish { wholeOutput.append(text(of: $0)) }

    var pieces = GPSDDecoder()
    var pieceOutput: [String] = []
    var offset = 0
    for size in chunkSizes(for: bytes) {
        let end = min(offset + size, count)
        pieces.append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset..<end]))) {
            pieceOutput.append(text(of: $0))
        }
        offset = end
    }
    pieces.finish { pieceOutput.append(text(of: $0)) }

    if wholeOutput != pieceOutput {
        fuzzFailure("fed in pieces, \(pieceOutput.count) outputs; fed whole, \(wholeOutput.count)")
    }
    if whole.statistics != pieces.statistics {
        fuzzFailure("fed in pieces, the counts differ: \(pieces.statistics) against \(whole.statistics)")
    }
    return 0
}

func text(of output: GPSDDecoder.Output) -> String {
    switch output {
    case .fix(let fix):
        FixFormat.jsonRecord(fix) + FixFormat.csvRow(fix) + FixFormat.gpsdTPV(fix) + FixFormat.gpsdSKY(fix)
    case .notice(let notice): "notice: " + notice
    }
}
