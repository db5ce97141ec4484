// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import GNSS

/// Bytes, as from a receiver, through the framer, the parser and the fix assembler, and every fix
/// through the writers. The oracle: the same bytes fed in small pieces give the same fixes and
/// the same counts as fed whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEAStream(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    checkDripFeed(
        UnsafeBufferPointer(start: data, count: count), make: { FixDecoder() }, counts: \.statistics,
        describe: records(of:))
    return 0
}

/// Every way a fix is written out.
func records(of fix: Fix) -> String {
    var track = TrackWriter(format: .gpx, creator: "fuzz")
    var gpx: [UInt8] = []
    track.add(fix, into: &gpx)
    return FixFormat.jsonRecord(fix) + FixFormat.csvRow(fix) + FixFormat.gpsdTPV(fix) + FixFormat.gpsdSKY(fix)
        + String(decoding: gpx, as: UTF8.self)
}
