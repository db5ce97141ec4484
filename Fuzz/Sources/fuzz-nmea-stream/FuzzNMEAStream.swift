// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import GNSS

/// Bytes, as from a receiver, through the framer, the parser and the fix assembler, and every fix
/// through the writers. The oracle: the same bytes fed in small pieces give the same fixes and
/// the same counts as fed whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEAStream(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    var whole = FixDecoder()
    var wholeRecords: [String] = []
    whole.decode(UnsafeRawBufferPointer(bytes)) { wholeRecords.append(records(of: $0)) }
    whole.finish { wholeRecords.append(records(of: $0)) }

    var pieces = FixDecoder()
    var pieceRecords: [String] = []
    var offset = 0
    for size in chunkSizes(for: bytes) {
        let end = min(offset + size, count)
        pieces.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[offset..<end]))) {
            pieceRecords.append(records(of: $0))
        }
        offset = end
    }
    pieces.finish { pieceRecords.append(records(of: $0)) }

    if wholeRecords != pieceRecords {
        fuzzFailure("fed in pieces, \(pieceRecords.count) fixes; fed whole, \(wholeRecords.count)")
    }
    if whole.statistics != pieces.statistics {
        fuzzFailure("fed in pieces, the counts differ: \(pieces.statistics) against \(whole.statistics)")
    }
    return 0
}

/// Every way a fix is written out.
func records(of fix: Fix) -> String {
    FixFormat.jsonRecord(fix) + FixFormat.csvRow(fix) + FixFormat.gpsdTPV(fix) + FixFormat.gpsdSKY(fix)
}
