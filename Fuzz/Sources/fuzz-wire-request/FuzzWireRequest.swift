// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import LocationWire

/// Bytes as a client sends them to the daemon, through the daemon's line splitter and request
/// decoder, and — since a client decodes the daemon's lines with the same reader — the event
/// decoder. The oracle: a request that decodes, encoded again, decodes to the same request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireRequest(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    var splitter = LineSplitter(maximumLength: WireProtocol.maximumRequestLength)
    let lines: [[UInt8]]
    do {
        lines = try splitter.append(bytes)
    } catch {
        return 0  // a line too long: the daemon cuts the client off
    }
    for line in lines {
        _ = try? WireEvent.parse(line)
        guard let (id, request) = try? WireRequest.parse(line) else { continue }
        let encoded = request.encoded(id: id)
        guard let (againID, again) = try? WireRequest.parse(encoded.dropLast()) else {
            fuzzFailure("\(request) encoded as \(String(decoding: encoded, as: UTF8.self)) does not decode")
        }
        if againID != id || again != request {
            fuzzFailure(
                "\(request) came back as \(again) through \(String(decoding: encoded, as: UTF8.self))")
        }
    }
    return 0
}
