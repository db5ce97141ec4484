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
    checkDripFeed(
        UnsafeBufferPointer(start: data, count: count), make: { GPSDDecoder() }, counts: \.statistics,
        describe: text(of:))
    return 0
}

func text(of output: GPSDDecoder.Output) -> String {
    switch output {
    case .fix(let fix):
        FixFormat.jsonRecord(fix) + FixFormat.csvRow(fix) + FixFormat.gpsdTPV(fix) + FixFormat.gpsdSKY(fix)
    case .notice(let notice): "notice: " + notice
    }
}
