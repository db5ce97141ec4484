// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA
import TestSupport
import Testing

/// The sentence catalogue: every type it lists is read, named and written back through it.
@Suite("Sentence catalogue")
struct CatalogueTests {
    /// A real sentence of every type in the catalogue.
    static let samples: [NMEASentenceType: String] = [
        .rmc: "GNRMC,000705.00,A,4404.12938,N,12118.84590,W,2.430,,090624,,,A,V",
        .gga: "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        .gsa: "GNGSA,A,3,05,07,13,14,15,17,19,24,30,,,,1.37,0.71,1.17,1",
        .gsv: "GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00",
        .vtg: "GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A",
        .gll: "GPGLL,4916.45,N,12311.12,W,225444,A,A",
        .gns: "GNGNS,112257.00,3844.24011,N,00908.43828,W,AN,03,10.5,,,,",
        .gst: "GPGST,024603.00,3.2,6.6,4.7,47.3,5.8,5.6,22.0",
        .zda: "GPZDA,201530.00,04,07,2002,00,00",
        .gbs: "GPGBS,125027,23.43,M,13.91,M,34.01,M",
        .hdt: "HEHDT,274.07,T",
        .txt: "GPTXT,01,01,02,ANTSTATUS=OK",
        .dtm: "GPDTM,W84,,0.0,N,0.0,E,0.0,W84",
        .ths: "GNTHS,77.52,A",
        .pgrme: "PGRME,15.0,M,45.0,M,25.0,M",
        .pgrmz: "PGRMZ,246,f,3",
    ]

    @Test("Every type of the catalogue has a sample here, is read as itself and written back the same")
    func everyType() throws {
        #expect(Set(Self.samples.keys) == Set(NMEASentenceType.allCases))
        for type in NMEASentenceType.allCases {
            let text = try #require(Self.samples[type])
            let sentence = try NMEASentence.parse(SentenceBuilder.sentence(text, lineEnd: ""))
            #expect(sentence.sentenceType == type, "\(text)")
            #expect(sentence.type == type.name)
            let again = try NMEASentence.parse(String(decoding: sentence.encoded(), as: UTF8.self))
            #expect(again == sentence, "\(text)")
        }
    }

    @Test("Garmin's errors and altitude are read as typed values")
    func garmin() throws {
        guard
            case .pgrme(let pgrme) = try NMEASentence.parse(
                SentenceBuilder.sentence("PGRME,15.0,M,45.0,M,25.0,M"))
        else {
            Issue.record("not a PGRME")
            return
        }
        #expect(pgrme.horizontalError == NMEADecimal(mantissa: 150, scale: 1))
        #expect(pgrme.sphericalError?.doubleValue == 25)
        #expect(pgrme.talker == .proprietary)
        guard case .pgrmz(let pgrmz) = try NMEASentence.parse(SentenceBuilder.sentence("PGRMZ,246,f,3"))
        else {
            Issue.record("not a PGRMZ")
            return
        }
        #expect(abs((pgrmz.altitudeMetres ?? 0) - 74.9808) < 1e-9)
        #expect(pgrmz.dimension == 3)
        // Other proprietary sentences keep their raw fields.
        guard
            case .proprietary(let other) = try NMEASentence.parse(
                SentenceBuilder.sentence("PGRMT,GPS 15L,P,P,R,R,P,C,23,R"))
        else {
            Issue.record("not kept raw")
            return
        }
        #expect(other.manufacturer == "GRM" && other.fields.count == 9)
    }
}
