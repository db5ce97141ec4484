// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import TestSupport
import Testing

@testable import NMEA

/// Random typed sentences, every optional field sometimes empty.
final class SentenceGenerator {
    var random: SeededGenerator

    init(random: SeededGenerator) { self.random = random }

    func maybe<T>(_ value: @autoclosure () -> T) -> T? {
        Bool.random(using: &random) ? value() : nil
    }

    func decimal(_ range: ClosedRange<Int64>, scale: UInt8) -> NMEADecimal {
        NMEADecimal(mantissa: Int64.random(in: range, using: &random), scale: scale)
    }

    func time() -> NMEATime {
        let digits = UInt8.random(in: 0...3, using: &random)
        var nanos: UInt32 = 0
        var unit: UInt32 = 100_000_000
        for _ in 0..<digits {
            nanos += UInt32.random(in: 0...9, using: &random) * unit
            unit /= 10
        }
        return NMEATime(
            hour: UInt8.random(in: 0...23, using: &random), minute: UInt8.random(in: 0...59, using: &random),
            second: UInt8.random(in: 0...59, using: &random), nanoseconds: nanos, fractionDigits: digits)
    }

    func coordinate(latitude: Bool) -> NMEACoordinate {
        let degrees = Double.random(in: latitude ? -89.9...89.9 : -179.9...179.9, using: &random)
        return NMEACoordinate(
            degrees: degrees, isLatitude: latitude, minuteDecimals: UInt8.random(in: 1...7, using: &random))
    }

    func letter(_ choices: String) -> NMEALetter {
        NMEALetter(rawValue: choices.utf8.randomElement(using: &random)!)
    }

    func talker() -> Talker {
        [Talker.gps, .glonass, .galileo, .beidou, .gnss, .qzss].randomElement(using: &random)!
    }

    func sentence() -> NMEASentence {
        switch Int.random(in: 0..<9, using: &random) {
        case 0:
            let navigation = maybe(letter("SCUV"))
            return .rmc(
                RMC(
                    talker: talker(), time: maybe(time()), status: maybe(letter("AV")),
                    latitude: maybe(coordinate(latitude: true)),
                    longitude: maybe(coordinate(latitude: false)),
                    speedKnots: maybe(decimal(0...99999, scale: 3)),
                    courseTrue: maybe(decimal(0...35999, scale: 2)),
                    date: maybe(
                        NMEADate(day: 17, month: 4, yearOfCentury: UInt8.random(in: 0...99, using: &random))),
                    magneticVariation: maybe(decimal(0...200, scale: 1)),
                    magneticVariationDirection: maybe(letter("EW")),
                    mode: navigation != nil ? letter("ADEN") : maybe(letter("ADEN")),
                    navigationStatus: navigation))
        case 1:
            return .gga(
                GGA(
                    talker: talker(), time: maybe(time()), latitude: maybe(coordinate(latitude: true)),
                    longitude: maybe(coordinate(latitude: false)),
                    quality: maybe(Int.random(in: 0...8, using: &random)),
                    satellitesUsed: maybe(Int.random(in: 0...40, using: &random)),
                    hdop: maybe(decimal(0...999, scale: 2)),
                    altitude: maybe(decimal(-4000...900_000, scale: 1)), altitudeUnit: maybe("M"),
                    geoidSeparation: maybe(decimal(-1000...1000, scale: 1)), geoidSeparationUnit: maybe("M"),
                    dgpsAge: maybe(decimal(0...999, scale: 1)),
                    dgpsStation: maybe(Int.random(in: 0...1023, using: &random))))
        case 2:
            let count = Int.random(in: 0...12, using: &random)
            return .gsa(
                GSA(
                    talker: talker(), selectionMode: maybe(letter("AM")),
                    fixType: maybe(Int.random(in: 1...3, using: &random)),
                    satellites: (0..<count).map { _ in UInt16.random(in: 1...437, using: &random) },
                    pdop: maybe(decimal(0...9999, scale: 2)), hdop: maybe(decimal(0...9999, scale: 2)),
                    vdop: maybe(decimal(0...9999, scale: 2)),
                    systemID: maybe(Int.random(in: 1...6, using: &random))))
        case 3:
            let count = Int.random(in: 1...4, using: &random)
            let satellites = (0..<count).map { _ in
                GSVSatellite(
                    id: UInt16.random(in: 1...437, using: &random),
                    elevation: maybe(Int16.random(in: 0...90, using: &random)),
                    azimuth: maybe(Int16.random(in: 0...359, using: &random)),
                    snr: maybe(Int16.random(in: 0...99, using: &random)))
            }
            return .gsv(
                GSV(
                    talker: talker(), messageCount: 3, messageNumber: Int.random(in: 1...3, using: &random),
                    satellitesInView: Int.random(in: 0...12, using: &random), satellites: satellites,
                    signalID: maybe(Int.random(in: 1...15, using: &random))))
        case 4:
            return .vtg(
                VTG(
                    talker: talker(), courseTrue: maybe(decimal(0...3599, scale: 1)),
                    courseMagnetic: maybe(decimal(0...3599, scale: 1)),
                    speedKnots: maybe(decimal(0...9999, scale: 2)),
                    speedKilometresPerHour: maybe(decimal(0...9999, scale: 2)),
                    mode: maybe(letter("ADEN"))))
        case 5:
            return .gll(
                GLL(
                    talker: talker(), latitude: maybe(coordinate(latitude: true)),
                    longitude: maybe(coordinate(latitude: false)),
                    time: maybe(time()), status: maybe(letter("AV")), mode: maybe(letter("ADN"))))
        case 6:
            return .gns(
                GNS(
                    talker: talker(), time: maybe(time()), latitude: maybe(coordinate(latitude: true)),
                    longitude: maybe(coordinate(latitude: false)),
                    modes: (0..<Int.random(in: 1...6, using: &random)).map { _ in letter("ADNRF") },
                    satellitesUsed: maybe(Int.random(in: 0...60, using: &random)),
                    hdop: maybe(decimal(0...999, scale: 1)),
                    altitude: maybe(decimal(-1000...99999, scale: 1)),
                    geoidSeparation: maybe(decimal(-999...999, scale: 1)),
                    navigationStatus: maybe(letter("SCUV"))))
        case 7:
            return .zda(
                ZDA(
                    talker: talker(), time: maybe(time()), day: maybe(Int.random(in: 1...28, using: &random)),
                    month: maybe(Int.random(in: 1...12, using: &random)),
                    year: maybe(Int.random(in: 1980...2099, using: &random)),
                    zoneHours: maybe(Int.random(in: -13...13, using: &random)),
                    zoneMinutes: maybe(Int.random(in: 0...59, using: &random))))
        default:
            return .gst(
                GST(
                    talker: talker(), time: maybe(time()), rms: maybe(decimal(0...9999, scale: 3)),
                    semiMajor: maybe(decimal(0...9999, scale: 3)),
                    semiMinor: maybe(decimal(0...9999, scale: 3)),
                    orientation: maybe(decimal(0...1799, scale: 1)),
                    latitudeError: maybe(decimal(0...9999, scale: 3)),
                    longitudeError: maybe(decimal(0...9999, scale: 3)),
                    altitudeError: maybe(decimal(0...9999, scale: 3))))
        }
    }
}

@Suite("Round trips")
struct PropertyTests {
    @Test(arguments: 1...5)
    func parseEncodeParseIsTheIdentity(seed: UInt64) async throws {
        let generator = SentenceGenerator(random: SeededGenerator(seed: seed))
        var yielder = Yielder()
        for _ in 0..<2000 {
            await yielder.giveWay()
            let sentence = generator.sentence()
            let bytes = sentence.encoded()
            // The encoding frames with a valid checksum and parses back to the same value.
            var framer = NMEAFramer()
            var framed: [Result<NMEASentence, NMEAParseError>] = []
            framer.append(contentsOf: bytes) { sentence in
                framed.append(Result { () throws(NMEAParseError) in try sentence.parse() })
            }
            let parsed = try framed.map { try $0.get() }
            #expect(parsed == [sentence], "\(String(decoding: bytes, as: UTF8.self))")
            // And encoding the parsed value again gives the same bytes.
            #expect(parsed.first?.encoded() == bytes)
        }
    }

    @Test func realSentencesEncodeToTheSameValue() throws {
        let lines = [
            "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D",
            "$GNRMC,000705.00,A,4404.12938,N,12118.84590,W,2.430,,090624,,,A,V*06",
            "$GNGSA,A,3,21,44,35,,,,,,,,,,11.97,10.16,6.34,4*08",
            "$GAGSV,3,1,09,02,00,179,,04,09,321,,07,11,134,11,11,10,227,,7*7F",
            "$PGRME,15.0,M,45.0,M,25.0,M*1C",
            "$WIMWV,57.5,R,13.0,N,A*26",
        ]
        for line in lines {
            let sentence = try NMEASentence.parse(line)
            let again = try NMEASentence.parse(String(decoding: sentence.encoded(), as: UTF8.self))
            #expect(again == sentence, "\(line)")
        }
    }

    @Test func coordinatesRoundTripThroughDegrees() {
        var random = SeededGenerator(seed: 99)
        for _ in 0..<10000 {
            let latitude = Double.random(in: -90...90, using: &random)
            let longitude = Double.random(in: -180...180, using: &random)
            let lat = NMEACoordinate(degrees: latitude, isLatitude: true, minuteDecimals: 7)
            let lon = NMEACoordinate(degrees: longitude, isLatitude: false, minuteDecimals: 7)
            // 1e-7 minutes is under 2e-9 degrees.
            #expect(abs(lat.degrees! - latitude) < 1e-8)
            #expect(abs(lon.degrees! - longitude) < 1e-8)
        }
    }

    @Test func decimalsRoundTripThroughText() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<10000 {
            let value = NMEADecimal(
                mantissa: Int64.random(in: -999_999_999...999_999_999, using: &random),
                scale: UInt8.random(in: 0...9, using: &random))
            #expect(NMEADecimal(value.description) == value, "\(value)")
        }
        #expect(NMEADecimal("") == nil)
        #expect(NMEADecimal("-") == nil)
        #expect(NMEADecimal(".") == nil)
        #expect(NMEADecimal("1.2.3") == nil)
        #expect(NMEADecimal("0.5")?.description == "0.5")
        #expect(NMEADecimal("-0.25")?.doubleValue == -0.25)
        #expect(NMEADecimal("005.50") == NMEADecimal(mantissa: 550, scale: 2))
        #expect(NMEADecimal("12345678901234567890") == nil)
    }

    /// Any text of up to 22 characters, mostly digits and points, is read as a reading character
    /// by character reads it: every length the parser reads a word at a time, and either side of it.
    @Test func decimalsReadAsCharacterByCharacter() async {
        var random = SeededGenerator(seed: 11)
        let alphabet = Array("0123456789012345678901234567890123456789..-+x, /:".utf8)
        var yielder = Yielder(roundsPerLook: 16)
        for _ in 0..<50_000 {
            await yielder.giveWay()
            let length = Int.random(in: 0...22, using: &random)
            let text = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
            let parsed = text.withUnsafeBufferPointer { NMEADecimal.parse($0) }
            #expect(parsed == decimalCharacterByCharacter(text), "\(String(decoding: text, as: UTF8.self))")
        }
    }

    /// An optional sign, digits with at most one point among them, at least one digit; at most 18
    /// digits after leading zeros and at most 18 after the point.
    private func decimalCharacterByCharacter(_ text: [UInt8]) -> NMEADecimal? {
        var rest = text[...]
        var negative = false
        if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            rest = rest.dropFirst()
        }
        let parts = rest.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard parts.count <= 2, parts.allSatisfy({ $0.allSatisfy(isDigit) }) else { return nil }
        let digits = parts.joined()
        let scale = parts.count == 2 ? parts[1].count : 0
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        guard !digits.isEmpty, significant.count <= 18, scale <= 18 else { return nil }
        let mantissa = significant.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        return NMEADecimal(mantissa: negative ? -mantissa : mantissa, scale: UInt8(scale))
    }

    /// The text of a decimal, against the digits of its mantissa with the point put in by hand,
    /// over the whole range of mantissas and scales.
    @Test func decimalTextMatchesTheMantissaDigits() {
        var random = SeededGenerator(seed: 8)
        var values = [
            NMEADecimal(mantissa: .min, scale: 0), NMEADecimal(mantissa: .max, scale: 18),
            NMEADecimal(mantissa: .min, scale: 18), NMEADecimal(mantissa: 0, scale: 18),
            NMEADecimal(mantissa: -1, scale: 18), NMEADecimal(mantissa: 0, scale: 0),
        ]
        for _ in 0..<20000 {
            let bits = Int.random(in: 0...63, using: &random)
            let mantissa = Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64(bits)
            values.append(NMEADecimal(mantissa: mantissa, scale: UInt8.random(in: 0...18, using: &random)))
        }
        for value in values {
            var digits = String(value.mantissa.magnitude)
            let scale = Int(value.scale)
            if digits.count <= scale {
                digits = String(repeating: "0", count: scale + 1 - digits.count) + digits
            }
            if scale > 0 { digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale)) }
            let expected = (value.mantissa < 0 ? "-" : "") + digits
            #expect(value.description == expected)
            #expect(expected.utf8.count <= NMEADecimal.maximumASCIICount)
        }
    }

    @Test func timesRoundTrip() {
        let generator = SentenceGenerator(random: SeededGenerator(seed: 3))
        for _ in 0..<1000 {
            let time = generator.time()
            let text = time.description
            guard case .gll(let gll)? = try? NMEASentence.parse("$GPGLL,,,,," + text + ",V") else {
                Issue.record("not GLL")
                return
            }
            #expect(gll.time == time)
        }
    }

    /// Satellites laid out as NMEA prescribes (`nn,ee,aaa,ss`, or with an empty signal strength)
    /// are read straight from the bytes; with a stray sign, point or letter in a field they must
    /// read exactly as field by field.
    @Test func standardSatelliteLayoutReadsAsFieldByField() async throws {
        var random = SeededGenerator(seed: 21)
        let alphabet = Array("0123456789012345678901234567890123456789-+.x ")
        func text(_ width: Int) -> String {
            String((0..<width).map { _ in alphabet.randomElement(using: &random)! })
        }
        func whole(_ text: String) -> Int16? { NMEADecimal(text).flatMap { Int16(exactly: $0.integerPart) } }
        var yielder = Yielder()
        for _ in 0..<5000 {
            await yielder.giveWay()
            var blocks: [(id: String, elevation: String, azimuth: String, snr: String)] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                blocks.append((text(2), text(2), text(3), Bool.random(using: &random) ? text(2) : ""))
            }
            let body = blocks.map { "\($0.id),\($0.elevation),\($0.azimuth),\($0.snr)" }.joined(
                separator: ",")
            guard case .gsv(let gsv) = try NMEASentence.parse("$GPGSV,1,1,\(blocks.count),\(body)") else {
                Issue.record("not GSV")
                return
            }
            let expected = blocks.compactMap { block -> GSVSatellite? in
                guard block.id.allSatisfy(\.isWholeNumber), let id = UInt16(block.id), id > 0 else {
                    return nil
                }
                return GSVSatellite(
                    id: id, elevation: whole(block.elevation), azimuth: whole(block.azimuth),
                    snr: whole(block.snr))
            }
            #expect(Array(gsv.satellites) == expected, "\(body)")
        }
    }

    /// Bodies mostly laid out as receivers write them, a part in ten odd.
    struct LayoutFuzzer {
        var random: SeededGenerator

        /// Usually `usual`, one time in ten one of `odd`.
        mutating func pick(_ usual: String, _ odd: [String]) -> String {
            Int.random(in: 0..<10, using: &random) == 0 ? odd.randomElement(using: &random)! : usual
        }

        mutating func digits(_ count: Int) -> String {
            String((0..<count).map { _ in "0123456789".randomElement(using: &random)! })
        }

        mutating func number(in range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

        /// Makes 20,000 bodies; for each one `readStraight` takes, checks that it gives what
        /// `readByFields` gives, and that it took enough of them for that to mean something.
        mutating func compare<Sentence: Equatable>(
            _ makeBody: (inout LayoutFuzzer) -> String,
            readStraight: (UnsafeBufferPointer<UInt8>) -> Sentence?,
            readByFields: (Talker, borrowing Fields) -> Sentence
        ) async {
            var taken = 0
            var yielder = Yielder()
            for _ in 0..<20000 {
                await yielder.giveWay()
                let body = makeBody(&self)
                Array(body.utf8).withUnsafeBufferPointer { bytes in
                    guard let straight = readStraight(bytes) else { return }
                    taken += 1
                    let byFields = Fields.withFields(bytes) { readByFields(Talker(bytes[0], bytes[1]), $0) }
                    #expect(straight == byFields, "\(body)")
                }
            }
            #expect(taken > 2000, "only \(taken) bodies were read straight")
        }
    }

    /// GSV bodies laid out as receivers write them are read without splitting them into fields;
    /// whatever the bytes, that must give the same sentence as reading field by field.
    @Test func gsvReadStraightFromItsBytesReadsAsFieldByField() async {
        var fuzzer = LayoutFuzzer(random: SeededGenerator(seed: 33))
        await fuzzer.compare { f in
            var body = f.pick("GP", ["PQ", "PX", "gp", "G1", "GL"]) + f.pick("GSV", ["GSA", "GSW"])
            body += "," + f.pick(f.digits(1), [f.digits(2), "", "+1"])
            body += "," + f.pick(f.digits(1), ["x", "", f.digits(2)])
            body += "," + f.pick(f.digits(2), [f.digits(1), "", f.digits(3), "1."])
            for _ in 0..<Int(f.pick("\(f.number(in: 1...4))", ["0", "5", "6"]))! {
                let satellite = [
                    f.pick(f.digits(2), [f.digits(3), "", "-1", f.digits(1)]),
                    f.pick(f.digits(2), [f.digits(1), "", "-5"]),
                    f.pick(f.digits(3), [f.digits(2), "1.5", ""]),
                    f.pick(f.digits(2), ["", "", f.digits(3), "4x", f.digits(1)]),
                ]
                body += "," + satellite.joined(separator: f.pick(",", [";", ", "]))
            }
            return body + f.pick("", [",1", ",7", ",F", ",x", ",", ",,", ",12"])
        } readStraight: { bytes in
            var gsv = GSV.blank
            return GSV.readStandardLayout(bytes, into: &gsv) ? gsv : nil
        } readByFields: { talker, fields in
            GSV(talker: talker, fields: fields)
        }
    }

    /// GSA bodies laid out as receivers write them are read without splitting them into fields;
    /// whatever the bytes, that must give the same sentence as reading field by field.
    @Test func gsaReadStraightFromItsBytesReadsAsFieldByField() async {
        var fuzzer = LayoutFuzzer(random: SeededGenerator(seed: 34))
        await fuzzer.compare { f in
            var body = f.pick("GN", ["PQ", "PX", "gn", "G1", "GP"]) + f.pick("GSA", ["GSV", "GSB"])
            body +=
                "," + f.pick("A", ["M", "", "AA", ","]) + "," + f.pick(f.digits(1), ["", f.digits(2), "x"])
            let used = f.number(in: 0...12)
            for slot in 0..<Int(f.pick("12", ["11", "13", "14", "16", "0"]))! {
                let id = f.pick(f.digits(2), [f.digits(1), f.digits(3), f.digits(4), "00", "-3", "1.5"])
                body += "," + (slot < used ? id : "")
            }
            for _ in 0..<3 {
                body +=
                    ","
                    + f.pick(
                        "\(f.digits(1)).\(f.digits(2))", ["", f.digits(2), "99.99", "1.2.3", "-1.0", "x"])
            }
            return body + f.pick(",\(f.number(in: 1...6))", ["", ",", ",12", ",x", ",1,2"])
        } readStraight: { bytes in
            var gsa = GSA.blank
            return GSA.readStandardLayout(bytes, into: &gsa) ? gsa : nil
        } readByFields: { talker, fields in
            GSA(talker: talker, fields: fields)
        }
    }

    /// GSV's elevation, azimuth and signal strength are read as decimals are, truncated to whole
    /// numbers, and kept when they fit in 16 bits.
    @Test func satelliteViewNumbersAreReadAsDecimals() throws {
        var random = SeededGenerator(seed: 11)
        let alphabet = Array("0123456789.-+x ")
        var texts = [
            "", "-", "+", ".", "45", "045", "-3", "+7", "45.0", "45.9", "-0.5", ".5", "5.", "1.2.3", "32767",
            "32768", "-32768", "-32769", "99999999999", "12x", "0000000000000000000000045",
            "5." + String(repeating: "0", count: 18),
            "5." + String(repeating: "0", count: 19),
        ]
        for _ in 0..<3000 {
            texts.append(
                String(
                    (0..<Int.random(in: 1...7, using: &random)).map { _ in
                        alphabet.randomElement(using: &random)!
                    }))
        }
        for text in texts {
            guard case .gsv(let gsv) = try NMEASentence.parse("$GPGSV,1,1,01,05," + text + ",90," + text)
            else {
                Issue.record("not GSV")
                return
            }
            let expected = NMEADecimal(text).flatMap { Int16(exactly: $0.integerPart) }
            #expect(gsv.satellites.first?.elevation == expected, "'\(text)'")
            #expect(gsv.satellites.first?.snr == expected, "'\(text)'")
        }
    }
}
