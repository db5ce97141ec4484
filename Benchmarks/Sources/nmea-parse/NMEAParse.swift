// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import HarnessInput
import NMEA

// Our side of `tools/compare-peers`' parse race: frames an NMEA log, checks every checksum,
// parses every sentence into its typed value, reads a field of each so that nothing can be
// optimised away, and prints the counts in the same shape as the other parsers' harnesses.
//
//     nmea-parse [FILE]      (standard input without FILE)

/// What the harness counts. It receives each sentence as its typed value through
/// `NMEASentenceVisitor`, the parser's copy-free interface.
struct Tally: NMEASentenceVisitor {
    /// As many as `typed` holds: a list of another length does not compile.
    static let names: InlineArray<15, String> = [
        "RMC", "GGA", "GSA", "GSV", "VTG", "GLL", "GNS", "GST", "ZDA", "GBS", "HDT", "TXT", "DTM",
        "proprietary",
        "unknown",
    ]
    /// Inline, so that a count goes up without the check an array's shared storage needs.
    var typed = InlineArray<15, Int>(repeating: 0)
    var unparsable = 0
    var satellites = 0
    var latitudes = 0.0
    /// A field of each other type, summed.
    var others = 0.0

    mutating func add(_ framed: FramedSentence) {
        do {
            try framed.parse(into: &self)
        } catch {
            unparsable += 1
        }
    }

    mutating func visit(_ s: RMC) {
        typed[0] += 1
        latitudes += s.latitude?.degrees ?? 0
    }
    mutating func visit(_ s: GGA) {
        typed[1] += 1
        latitudes += s.latitude?.degrees ?? 0
    }
    mutating func visit(_ s: GSA) {
        typed[2] += 1
        satellites += s.satellites.count
    }
    mutating func visit(_ s: GSV) {
        typed[3] += 1
        satellites += s.satellites.count
    }
    mutating func visit(_ s: VTG) {
        typed[4] += 1
        others += s.speedKnots?.doubleValue ?? 0
    }
    mutating func visit(_ s: GLL) {
        typed[5] += 1
        latitudes += s.latitude?.degrees ?? 0
    }
    mutating func visit(_ s: GNS) {
        typed[6] += 1
        others += s.latitude?.degrees ?? 0
    }
    mutating func visit(_ s: GST) {
        typed[7] += 1
        others += s.rms?.doubleValue ?? 0
    }
    mutating func visit(_ s: ZDA) {
        typed[8] += 1
        others += Double(s.year ?? 0)
    }
    mutating func visit(_ s: GBS) {
        typed[9] += 1
        others += s.latitudeError?.doubleValue ?? 0
    }
    mutating func visit(_ s: HDT) {
        typed[10] += 1
        others += s.heading?.doubleValue ?? 0
    }
    mutating func visit(_ s: TXT) {
        typed[11] += 1
        others += Double(s.text.utf8.count)
    }
    mutating func visit(_ s: DTM) {
        typed[12] += 1
        others += Double(s.datum.utf8.count)
    }

    mutating func visit(_ sentence: NMEASentence) {
        switch sentence {
        case .proprietary: typed[13] += 1
        case .unknown: typed[14] += 1
        default: break
        }
    }
}

@main
enum NMEAParse {
    static func main() {
        var framer = NMEAFramer()
        var tally = Tally()
        forEachInputChunk(program: "nmea-parse") { chunk in framer.append(chunk) { tally.add($0) } }
        framer.finish { tally.add($0) }
        let statistics = framer.statistics
        var line = "nmea-parse sentences=\(statistics.sentences - tally.unparsable)"
        line += " rejected=\(statistics.rejected + tally.unparsable) satellites=\(tally.satellites)"
        line += " latitude-sum=\(threeDecimals(tally.latitudes)) other-sum=\(threeDecimals(tally.others))"
        for index in Tally.names.indices where tally.typed[index] > 0 {
            line += " \(Tally.names[index])=\(tally.typed[index])"
        }
        print(line)
    }

    /// `value` with three decimals.
    static func threeDecimals(_ value: Double) -> String {
        NMEADecimal(mantissa: Int64((value * 1000).rounded()), scale: 3).description
    }
}
