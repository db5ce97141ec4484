// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NMEA
import TestSupport
import Testing

/// Records what each method of a visitor receives.
private struct Recorder: NMEASentenceVisitor {
    /// The sentences received, with the method that received them ("GSV", …, or "any").
    var received: [(method: String, sentence: NMEASentence)] = []

    mutating func visit(_ sentence: NMEASentence) { received.append(("any", sentence)) }
    mutating func visit(_ s: RMC) { received.append(("RMC", .rmc(s))) }
    mutating func visit(_ s: GGA) { received.append(("GGA", .gga(s))) }
    mutating func visit(_ s: GSA) { received.append(("GSA", .gsa(s))) }
    mutating func visit(_ s: GSV) { received.append(("GSV", .gsv(s))) }
    mutating func visit(_ s: VTG) { received.append(("VTG", .vtg(s))) }
    mutating func visit(_ s: GLL) { received.append(("GLL", .gll(s))) }
    mutating func visit(_ s: GNS) { received.append(("GNS", .gns(s))) }
    mutating func visit(_ s: GST) { received.append(("GST", .gst(s))) }
    mutating func visit(_ s: ZDA) { received.append(("ZDA", .zda(s))) }
    mutating func visit(_ s: GBS) { received.append(("GBS", .gbs(s))) }
    mutating func visit(_ s: HDT) { received.append(("HDT", .hdt(s))) }
    mutating func visit(_ s: TXT) { received.append(("TXT", .txt(s))) }
    mutating func visit(_ s: DTM) { received.append(("DTM", .dtm(s))) }
    mutating func visit(_ s: THS) { received.append(("THS", .ths(s))) }
    mutating func visit(_ s: PGRME) { received.append(("PGRME", .pgrme(s))) }
    mutating func visit(_ s: PGRMZ) { received.append(("PGRMZ", .pgrmz(s))) }
}

/// Implements nothing but the fallback.
private struct FallbackOnly: NMEASentenceVisitor {
    var received: [NMEASentence] = []
    mutating func visit(_ sentence: NMEASentence) { received.append(sentence) }
}

@Suite("Visiting typed sentences")
struct VisitorTests {
    /// Every sentence of a log, as the framer delivers it.
    private func framedSentences(_ bytes: [UInt8], _ body: (FramedSentence) -> Void) {
        var framer = NMEAFramer()
        bytes.withUnsafeBytes { framer.append($0, body) }
        framer.finish(body)
    }

    @Test func eachTypeReachesItsOwnMethodWithTheValueTheEnumHolds() async throws {
        var logs = [
            Fixtures.url("drive-1hz.nmea"), Fixtures.url("drive-10hz.nmea"),
            Fixtures.url("drive-faults.nmea"),
        ]
        logs += try Fixtures.gpsdLogs()
        var typedSeen = Set<String>()
        var compared = 0
        var yielder = Yielder()
        for log in logs {
            await yielder.giveWay()
            framedSentences(Array(try Data(contentsOf: log))) { framed in
                var recorder = Recorder()
                var fallback = FallbackOnly()
                let expected: NMEASentence
                do {
                    expected = try framed.parse()
                } catch {
                    #expect(throws: NMEAParseError.malformedAddress) { try framed.parse(into: &recorder) }
                    #expect(recorder.received.isEmpty)
                    return
                }
                do {
                    try framed.parse(into: &recorder)
                    try framed.parse(into: &fallback)
                } catch {
                    Issue.record(
                        "\(log.lastPathComponent): the enum parsed a sentence the visitor could not: \(error)"
                    )
                }
                guard recorder.received.count == 1, fallback.received.count == 1 else {
                    Issue.record(
                        "\(log.lastPathComponent): \(recorder.received.count) visits for one sentence")
                    return
                }
                let (method, sentence) = recorder.received[0]
                #expect(sentence == expected)
                #expect(fallback.received[0] == expected)
                switch expected {
                case .proprietary, .unknown: #expect(method == "any")
                default: #expect(method == expected.type)
                }
                typedSeen.insert(method)
                compared += 1
            }
        }
        #expect(compared > 10_000)
        // The project's own fixtures alone hold RMC, GGA, GSA, GSV, VTG, GLL, GST and ZDA.
        #expect(typedSeen.isSuperset(of: ["RMC", "GGA", "GSA", "GSV", "VTG", "GLL", "GST", "ZDA", "any"]))
    }

    @Test func bodiesParseLikeTheEnum() throws {
        let bodies = [
            "GPHDT,274.07,T", "GPTXT,01,01,02,ANTSTATUS=OK", "GPDTM,W84,,0.0,N,0.0,E,0.0,W84",
            "GPGBS,235458.00,1.4,1.3,3.1,03,,-21.4,3.8,1,0",
            "GNGNS,112257.00,3844.24011,N,00908.43828,W,AN,"
                + "03,10.5,,,,",
            "PGRME,15.0,M,45.0,M,25.0,M", "WIMWV,57.5,R,13.0,N,A", "1X", "GPGGA!,1",
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            try bytes.withUnsafeBufferPointer { buffer in
                var recorder = Recorder()
                let expected = try? NMEASentence.parse(body: buffer)
                if let expected {
                    try NMEASentence.parse(body: buffer, into: &recorder)
                    #expect(recorder.received.map(\.sentence) == [expected], "\(body)")
                    let method: String =
                        switch expected {
                        case .proprietary, .unknown: "any"
                        default: expected.type
                        }
                    #expect(recorder.received.map(\.method) == [method], "\(body)")
                } else {
                    #expect(throws: NMEAParseError.self) {
                        try NMEASentence.parse(body: buffer, into: &recorder)
                    }
                    #expect(recorder.received.isEmpty)
                }
            }
        }
    }
}
