// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// The decoder's benchmarks: run `swift package benchmark` in Benchmarks/.
//
// Every benchmark works on a simulated log held in memory (NMEA 4.10, GPS, GLONASS, Galileo and
// BeiDou at 1 Hz: RMC, VTG, GGA, four GSA, GSV per constellation and signal, GLL, GST, ZDA), so
// the figures are the decoder's alone, without I/O.
import Benchmark
import GNSS
import GNSSSimulation
import NMEA

/// The simulated log, and what it holds.
struct Corpus {
    let bytes: [UInt8]
    let sentences: Int
    let epochs: Int

    init(epochs: Int) {
        var simulator = RouteSimulator(seed: 1, rate: 1)
        bytes = simulator.log(epochs: epochs)
        sentences = Corpus.count(bytes)
        self.epochs = epochs
    }

    /// Every sentence, parsed.
    func parsed() -> [NMEASentence] {
        var framer = NMEAFramer()
        var result: [NMEASentence] = []
        bytes.withUnsafeBytes { raw in
            framer.append(raw) { framed in
                if let sentence = try? framed.parse() { result.append(sentence) }
            }
        }
        return result
    }
}

/// Frames and parses every sentence of `bytes`, reading one value of each so that none is
/// optimised away.
@inline(never)
func parseAll(_ bytes: UnsafeRawBufferPointer, into framer: inout NMEAFramer) -> Int {
    var satellites = 0
    framer.append(bytes) { framed in
        guard let sentence = try? framed.parse() else { return }
        switch sentence {
        case .gsv(let gsv): satellites += gsv.satellites.count
        case .gsa(let gsa): satellites += gsa.satellites.count
        default: satellites += 1
        }
    }
    return satellites
}

let benchmarks: @Sendable () -> Void = {
    let corpus = Corpus(epochs: 2_000)
    let sentences = corpus.parsed()
    let timing: [BenchmarkMetric] = [.wallClock, .throughput, .instructions, .mallocCountTotal]

    // One iteration: the whole log, framed and parsed; throughput is in logs per second
    // (multiply by the bytes and sentences the description gives).
    Benchmark(
        "Parse: \(corpus.bytes.count) bytes, \(corpus.sentences) sentences",
        configuration: .init(metrics: timing, maxDuration: .seconds(3))
    ) { benchmark in
        var framer = NMEAFramer()
        corpus.bytes.withUnsafeBytes { raw in
            benchmark.startMeasurement()
            blackHole(parseAll(raw, into: &framer))
        }
    }

    // One iteration: the same log decoded into fixes (framing, parsing, epochs, satellites).
    Benchmark(
        "Decode to fixes: \(corpus.bytes.count) bytes, \(corpus.epochs) epochs",
        configuration: .init(metrics: timing, maxDuration: .seconds(3))
    ) { benchmark in
        var decoder = FixDecoder()
        var fixes = 0
        corpus.bytes.withUnsafeBytes { raw in
            benchmark.startMeasurement()
            decoder.decode(raw) { _ in fixes += 1 }
        }
        decoder.finish { _ in fixes += 1 }
        blackHole(fixes)
    }

    // Scaled per epoch: the assembler alone, fed sentences parsed beforehand.
    Benchmark(
        "Fix assembly per epoch",
        configuration: .init(metrics: timing, scalingFactor: .kilo, maxDuration: .seconds(3))
    ) { benchmark in
        var assembler = FixAssembler()
        var fixes = 0
        let perEpoch = sentences.count / corpus.epochs
        var index = 0
        for _ in benchmark.scaledIterations {
            for _ in 0..<perEpoch {
                assembler.add(sentences[index]) { _ in fixes += 1 }
                index = (index + 1) % sentences.count
            }
        }
        blackHole(fixes)
    }

    // Scaled per sentence, in steady state: the framer and parser already warm, the same log
    // parsed again and again. The malloc count is per sentence; it must be zero.
    let steady = Array(corpus.bytes.prefix(64 * 1024))
    let steadySentences = Corpus.count(steady)
    Benchmark(
        "Mallocs: \(steadySentences) sentences parsed in steady state",
        configuration: .init(metrics: [.mallocCountTotal, .wallClock], warmupIterations: 3)
    ) { benchmark in
        var framer = NMEAFramer()
        steady.withUnsafeBytes { raw in
            blackHole(parseAll(raw, into: &framer))
            benchmark.startMeasurement()
            blackHole(parseAll(raw, into: &framer))
        }
    }
}

extension Corpus {
    static func count(_ bytes: [UInt8]) -> Int {
        var framer = NMEAFramer()
        var count = 0
        bytes.withUnsafeBytes { framer.append($0) { _ in count += 1 } }
        return count
    }
}
