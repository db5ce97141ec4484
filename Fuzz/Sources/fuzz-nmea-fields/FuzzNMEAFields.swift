// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import GNSS
import NMEA

/// Well-formed sentences with extreme field values and valid checksums (``SentenceGenerator``),
/// one to sixteen of them, through the parser and the fix assembler, and every fix through the
/// writers. The oracle: no crash, and every sentence the generator wrote within the framer's
/// length limit is framed (none is rejected as malformed, which would mean the generator, not the
/// parser, was being tested).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEAFields(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var generator = SentenceGenerator(input: FuzzInput(UnsafeBufferPointer(start: data, count: count)))
    var text = ""
    var expected = 0
    for _ in 0...generator.input.below(16) {
        let sentence = generator.sentence()
        // The framer's limit counts from `$` to the checksum, the line end left out.
        if sentence.utf8.count - 2 <= NMEAFramer.Configuration().maximumLength { expected += 1 }
        text += sentence
    }

    var decoder = FixDecoder()
    var written = 0
    let emit = { (fix: Fix) in
        written += FixFormat.jsonRecord(fix).utf8.count + FixFormat.csvRow(fix).utf8.count
        written += FixFormat.gpsdTPV(fix).utf8.count + FixFormat.gpsdSKY(fix).utf8.count
    }
    decoder.decode(Array(text.utf8), emit)
    decoder.finish(emit)
    let framed = decoder.statistics.framer.sentences
    if framed != expected {
        fuzzFailure("\(expected) well-formed sentences written, \(framed) framed:\n\(text)")
    }
    _ = written
    return 0
}
