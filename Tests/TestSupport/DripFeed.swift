// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA
import Testing

/// Checks the promise of ``IncrementalDecoder``: the same bytes give the same result however they
/// are cut. `bytes` are fed to a fresh decoder whole, one byte at a time, and in random chunks of
/// 1 to `maximumChunk` bytes from each seed; each run's outputs are folded into a value with
/// `fold`, starting from `initial`, and every run must give the value the whole input gave.
/// Returns that value, for the test's own expectations.
@discardableResult
public func verifyDripFeed<Decoder: IncrementalDecoder, Value: Equatable>(
    _ bytes: [UInt8], seeds: Range<UInt64> = 1..<6, maximumChunk: Int = 97, make: () -> Decoder,
    into initial: Value, _ fold: (inout Value, Decoder.Output) -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Value {
    // A whole log a byte at a time takes seconds: the runs give way to the other tests.
    var yielder = Yielder(roundsPerLook: 256)
    func run(_ sizes: [Int]) async -> Value {
        var decoder = make()
        var value = initial
        for chunk in SentenceBuilder.chunks(bytes, sizes: sizes) {
            await yielder.giveWay()
            chunk.withUnsafeBytes { decoder.append($0) { fold(&value, $0) } }
        }
        decoder.finish { fold(&value, $0) }
        return value
    }
    let whole = await run([max(bytes.count, 1)])
    #expect(await run([1]) == whole, "fed one byte at a time", sourceLocation: sourceLocation)
    for seed in seeds {
        let sizes = SentenceBuilder.randomSizes(count: 64, maximum: maximumChunk, seed: seed)
        #expect(await run(sizes) == whole, "fed in chunks from seed \(seed)", sourceLocation: sourceLocation)
    }
    return whole
}
