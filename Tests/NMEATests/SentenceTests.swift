// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA
import TestSupport
import Testing

/// Parses a sentence literal, failing the test if it is not the expected case.
func parse(_ text: String) throws -> NMEASentence {
    try NMEASentence.parse(text)
}

@Suite("Typed sentences from real receivers")
struct SentenceTests {
    @Test func rmcNMEA23WithMode() throws {
        guard
            case .rmc(let rmc) = try parse(
                "$GPRMC,030719.000,A,3747.0873,S,17518.8938,E,0.69,181.39,311214,,,A*7D")
        else { Issue.record("not RMC"); return }
        #expect(rmc.talker == .gps)
        #expect(rmc.time == NMEATime(hour: 3, minute: 7, second: 19, nanoseconds: 0, fractionDigits: 3))
        #expect(rmc.status == .valid)
        #expect(abs(rmc.latitude!.degrees! - -37.784788333) < 1e-9)
        #expect(abs(rmc.longitude!.degrees! - 175.314896667) < 1e-9)
        #expect(rmc.speedKnots == NMEADecimal(mantissa: 69, scale: 2))
        #expect(rmc.courseTrue == NMEADecimal(mantissa: 18139, scale: 2))
        #expect(rmc.date == NMEADate(day: 31, month: 12, yearOfCentury: 14))
        #expect(rmc.magneticVariation == nil)
        #expect(rmc.mode == .autonomous)
        #expect(rmc.navigationStatus == nil)
    }

    @Test func rmcNMEA41WithNavigationStatus() throws {
        guard
            case .rmc(let rmc) = try parse(
                "$GNRMC,000705.00,A,4404.12938,N,12118.84590,W,2.430,,090624,,,A,V*06")
        else { Issue.record("not RMC"); return }
        #expect(rmc.talker == .gnss)
        #expect(rmc.courseTrue == nil)
        #expect(rmc.navigationStatus == "V")
        #expect(abs(rmc.longitude!.degrees! - -121.314098333) < 1e-9)
    }

    @Test func rmcNMEA20WithMagneticVariationAndNoMode() throws {
        guard
            case .rmc(let rmc) = try parse(
                "$GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E*6D")
        else { Issue.record("not RMC"); return }
        #expect(rmc.time == NMEATime(hour: 22, minute: 53, second: 8))
        #expect(rmc.magneticVariation == NMEADecimal(mantissa: 241, scale: 1))
        #expect(rmc.magneticVariationDirection == "E")
        #expect(rmc.mode == nil)
        #expect(rmc.date?.pivotedYear == 2001)
    }

    @Test func rmcUnknownStatusLetterIsKeptAsData() throws {
        // Yacht Devices gateways send status C; the rest of the sentence is still data.
        guard
            case .rmc(let rmc) = try parse(
                "$GPRMC,120000,C,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E*62")
        else { Issue.record("not RMC"); return }
        #expect(rmc.status == "C")
        #expect(rmc.speedKnots == NMEADecimal(mantissa: 5, scale: 1))
    }

    @Test func ggaWithGeoidSeparation() throws {
        guard
            case .gga(let gga) = try parse(
                "$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D")
        else { Issue.record("not GGA"); return }
        #expect(gga.quality == 1)
        #expect(gga.satellitesUsed == 8)
        #expect(gga.hdop == NMEADecimal(mantissa: 11, scale: 1))
        #expect(gga.altitude == NMEADecimal(mantissa: 599, scale: 1))
        #expect(gga.geoidSeparation == NMEADecimal(mantissa: 237, scale: 1))
        #expect(gga.dgpsAge == nil)
        #expect(gga.dgpsStation == 0)
    }

    @Test func ggaWithoutFixHasEmptyFields() throws {
        guard case .gga(let gga) = try parse("$GPGGA,,,,,,0,,,,M,,M,,*66") else {
            Issue.record("not GGA"); return
        }
        #expect(gga.time == nil)
        #expect(gga.latitude == nil)
        #expect(gga.quality == 0)
        #expect(gga.altitudeUnit == "M")
    }

    @Test func ggaNegativeAltitudeAndHighPrecision() throws {
        guard
            case .gga(let gga) = try parse(
                "$GPGGA,094736,5251.0094,N,00518.8172,E,1,12,0.60,-4,M,46.8,M,,*4B")
        else { Issue.record("not GGA"); return }
        #expect(gga.altitude == NMEADecimal(-4))
        #expect(gga.altitude?.doubleValue == -4)
    }

    @Test func gsaNMEA410WithSystemID() throws {
        guard case .gsa(let gsa) = try parse("$GNGSA,A,3,21,44,35,,,,,,,,,,11.97,10.16,6.34,4*08")
        else { Issue.record("not GSA"); return }
        #expect(gsa.selectionMode == "A")
        #expect(gsa.fixType == 3)
        #expect(Array(gsa.satellites) == [21, 44, 35])
        #expect(gsa.satelliteSlots == 12)
        #expect(gsa.pdop == NMEADecimal(mantissa: 1197, scale: 2))
        #expect(gsa.vdop == NMEADecimal(mantissa: 634, scale: 2))
        #expect(gsa.systemID == 4)
    }

    @Test func gsaWithTwentyFourSlots() throws {
        guard case .gsa(let gsa) = try parse("$GPGSA,A,3,27,23,13,07,25,,,,,,,,,,,,,,,,,,,,07.9,06.0,05.2*0A")
        else { Issue.record("not GSA"); return }
        #expect(Array(gsa.satellites) == [27, 23, 13, 7, 25])
        #expect(gsa.satelliteSlots == 24)
        #expect(gsa.hdop == NMEADecimal(mantissa: 60, scale: 1))
        #expect(gsa.systemID == nil)
    }

    @Test func gsaTooShortKeepsWhatItHas() throws {
        guard case .gsa(let gsa) = try parse("$GPGSA,A,1,,,,*32") else { Issue.record("not GSA"); return }
        #expect(gsa.fixType == 1)
        #expect(gsa.satellites.isEmpty)
    }

    @Test func gsvNMEA410WithSignalID() throws {
        guard
            case .gsv(let gsv) = try parse("$GAGSV,3,1,09,02,00,179,,04,09,321,,07,11,134,11,11,10,227,,7*7F")
        else { Issue.record("not GSV"); return }
        #expect(gsv.talker == .galileo)
        #expect(gsv.talker.constellation == .galileo)
        #expect(gsv.messageCount == 3)
        #expect(gsv.messageNumber == 1)
        #expect(gsv.satellitesInView == 9)
        #expect(gsv.satellites.count == 4)
        #expect(gsv.satellites[2] == GSVSatellite(id: 7, elevation: 11, azimuth: 134, snr: 11))
        #expect(gsv.satellites[0].snr == nil)
        #expect(gsv.signalID == 7)
    }

    @Test func gsvShortLastPartAndMissingAngles() throws {
        guard case .gsv(let gsv) = try parse("$GPGSV,2,2,06,24,42,269,35,28,40,055,47*79") else {
            Issue.record("not GSV")
            return
        }
        #expect(gsv.satellites.count == 2)
        #expect(gsv.signalID == nil)
        guard
            case .gsv(let noAngles) = try parse("$GPGSV,2,1,06,13,,,39,15,74,248,44,17,24,106,35,19,,,33*74")
        else { Issue.record("not GSV"); return }
        #expect(noAngles.satellites[0] == GSVSatellite(id: 13, elevation: nil, azimuth: nil, snr: 39))
    }

    @Test func vtgCurrentAndLegacyLayouts() throws {
        guard case .vtg(let vtg) = try parse("$GPVTG,230.5,T,229.1,M,5.6,N,10.4,K,A*19") else {
            Issue.record("not VTG")
            return
        }
        #expect(vtg.courseTrue == NMEADecimal(mantissa: 2305, scale: 1))
        #expect(vtg.courseMagnetic == NMEADecimal(mantissa: 2291, scale: 1))
        #expect(vtg.speedKnots == NMEADecimal(mantissa: 56, scale: 1))
        #expect(vtg.speedKilometresPerHour == NMEADecimal(mantissa: 104, scale: 1))
        #expect(vtg.mode == .autonomous)
        guard case .vtg(let legacy) = try parse("$GPVTG,054.7,034.4,005.5,010.2") else {
            Issue.record("not VTG")
            return
        }
        #expect(legacy.courseMagnetic == NMEADecimal(mantissa: 344, scale: 1))
        #expect(legacy.speedKnots == NMEADecimal(mantissa: 55, scale: 1))
    }

    @Test func gllWithAndWithoutMode() throws {
        guard case .gll(let gll) = try parse("$GPGLL,5050.4122,N,00420.8265,E,105153.408,A,A*5C") else {
            Issue.record("not GLL")
            return
        }
        #expect(
            gll.time
                == NMEATime(hour: 10, minute: 51, second: 53, nanoseconds: 408_000_000, fractionDigits: 3))
        #expect(gll.status == .valid)
        #expect(gll.mode == .autonomous)
        guard case .gll(let old) = try parse("$GPGLL,4527.458,S,16709.165,E,225309,A*3E") else {
            Issue.record("not GLL")
            return
        }
        #expect(old.mode == nil)
    }

    @Test func gnsWithMultiCharacterMode() throws {
        guard
            case .gns(let gns) = try parse(
                "$GNGNS,213713.000,4111.59903,N,11156.54809,W,AANN,13,0.93,01482.5,-016.5,,*53")
        else { Issue.record("not GNS"); return }
        #expect(Array(gns.modes) == ["A", "A", "N", "N"])
        #expect(gns.satellitesUsed == 13)
        #expect(gns.altitude == NMEADecimal(mantissa: 14825, scale: 1))
        #expect(gns.geoidSeparation == NMEADecimal(mantissa: -165, scale: 1))
        // u-blox M10 sends six mode letters and a navigational status.
        guard
            case .gns(let m10) = try parse(
                "$GNGNS,103600.01,5114.51176,N,00012.29380,W,ANNNNN,05,3.5,71.7,45.7,,,V*00")
        else { Issue.record("not GNS"); return }
        #expect(m10.modes.count == 6)
        #expect(m10.navigationStatus == "V")
    }

    @Test func gstZDAGBSHDTTXTDTM() throws {
        guard case .gst(let gst) = try parse("$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A")
        else {
            Issue.record("not GST")
            return
        }
        #expect(gst.orientation == NMEADecimal(mantissa: 2736, scale: 1))
        #expect(gst.altitudeError == NMEADecimal(mantissa: 31, scale: 3))
        guard case .zda(let zda) = try parse("$GPZDA,094737,20,08,2018,-01,00*6B") else {
            Issue.record("not ZDA")
            return
        }
        #expect(zda.year == 2018 && zda.month == 8 && zda.day == 20)
        #expect(zda.zoneHours == -1)
        guard case .gbs(let gbs) = try parse("$GPGBS,125027,23.43,M,13.91,M,34.01,M*07") else {
            Issue.record("not GBS")
            return
        }
        #expect(gbs.latitudeError == NMEADecimal(mantissa: 2343, scale: 2))
        #expect(gbs.altitudeError == NMEADecimal(mantissa: 3401, scale: 2))
        guard case .hdt(let hdt) = try parse("$HEHDT,274.07,T*03") else { Issue.record("not HDT"); return }
        #expect(hdt.heading == NMEADecimal(mantissa: 27407, scale: 2))
        guard case .ths(let ths) = try parse("$GNTHS,77.52,A*1F") else { Issue.record("not THS"); return }
        #expect(ths.heading == NMEADecimal(mantissa: 7752, scale: 2) && ths.validHeading == ths.heading)
        guard case .ths(let invalid) = try parse(SentenceBuilder.sentence("GNTHS,77.52,V", lineEnd: ""))
        else {
            Issue.record("not THS")
            return
        }
        #expect(invalid.heading != nil && invalid.validHeading == nil)
        guard case .txt(let txt) = try parse("$GPTXT,01,01,02,ANTSTATUS=OK,SHORT*3B") else {
            Issue.record("not TXT")
            return
        }
        #expect(txt.text == "ANTSTATUS=OK,SHORT")
        #expect(txt.identifier == 2)
        guard case .dtm(let dtm) = try parse("$GPDTM,W84,,0.0,N,0.0,E,0.0,W84*6F") else {
            Issue.record("not DTM")
            return
        }
        #expect(dtm.datum == "W84" && dtm.referenceDatum == "W84")
    }

    @Test func proprietaryAndUnknownPassThrough() throws {
        // Garmin's $PGRME and $PGRMZ are typed (the catalogue's tests); other proprietary
        // sentences keep their raw fields.
        guard
            case .proprietary(let ublox) = try parse(
                SentenceBuilder.sentence("PUBX,00,081350.00,4717.113210,N"))
        else {
            Issue.record("not proprietary")
            return
        }
        #expect(ublox.address == "PUBX")
        #expect(ublox.manufacturer == "UBX")
        #expect(ublox.fields == ["00", "081350.00", "4717.113210", "N"])
        guard case .unknown(let wind) = try parse("$WIMWV,57.5,R,13.0,N,A*26") else {
            Issue.record("not unknown")
            return
        }
        #expect(wind.talker == Talker("WI"))
        #expect(wind.talker.constellation == nil)
        #expect(wind.type == "MWV")
        #expect(wind.fields == ["57.5", "R", "13.0", "N", "A"])
        guard case .unknown(let ais) = try parse("!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26") else {
            Issue.record("not unknown")
            return
        }
        #expect(ais.start == UInt8(ascii: "!"))
        #expect(ais.type == "VDM")
        // Quectel's PQ talker is QZSS, not a proprietary sentence.
        guard case .gsv(let quectel) = try parse("$PQGSV,1,1,01,01,50,100,40*61") else {
            Issue.record("PQGSV not GSV")
            return
        }
        #expect(quectel.talker.constellation == .qzss)
    }

    @Test func everyTalkerMapsToItsConstellation() {
        let table: [(String, Constellation?)] = [
            ("GP", .gps), ("GL", .glonass), ("GA", .galileo), ("GB", .beidou), ("BD", .beidou), ("GQ", .qzss),
            ("QZ", .qzss), ("PQ", .qzss), ("GI", .navic), ("GN", nil), ("II", nil), ("SD", nil), ("HE", nil),
        ]
        for (text, constellation) in table {
            #expect(Talker(text)?.constellation == constellation, "\(text)")
        }
    }

    @Test(arguments: [
        "$", "$G,1,2", "$GP", "$G?GGA,1", "$ÄGGA,1",
    ])
    func malformedAddressesAreErrors(_ text: String) {
        #expect(throws: NMEAParseError.malformedAddress) { try NMEASentence.parse(text) }
    }

    @Test(arguments: [
        ("$GPGGA,256199,4807.038,N,01131.324,E,1,08,0.9,545.4,M,46.9,M,,", "time out of range"),
        ("$GPGGA,123519,48x7.038,N,01131.324,E,1,08,0.9,545.4,M,46.9,M,,", "latitude not a number"),
        ("$GPGGA,123519,4807.038,N,01131.324,E,1,08,0.9,5-45.4,M,46.9,M,,", "altitude not a number"),
        ("$GPGGA,123519,4807.038,N,01131.324,E,X,08,0.9,545.4,M,46.9,M,,", "quality not a digit"),
    ])
    func anOddFieldDoesNotLoseTheRest(_ text: String, _ what: String) throws {
        guard case .gga(let gga) = try parse(text) else {
            Issue.record("not GGA: \(what)")
            return
        }
        // Exactly one field is unreadable; the others are intact.
        let readable = [
            gga.time != nil, gga.latitude != nil, gga.altitude != nil, gga.quality != nil,
            gga.longitude != nil, gga.satellitesUsed != nil, gga.hdop != nil, gga.geoidSeparation != nil,
        ]
        #expect(readable.filter { !$0 }.count == 1, "\(what)")
    }

    @Test func minutesOfSixtyOrMoreAreNotAPosition() {
        let coordinate = NMEACoordinate(
            value: NMEADecimal(mantissa: 486012, scale: 2), hemisphere: UInt8(ascii: "N"))
        #expect(coordinate.degrees == nil)
        let badHemisphere = NMEACoordinate(
            value: NMEADecimal(mantissa: 480700, scale: 2), hemisphere: UInt8(ascii: "X"))
        #expect(badHemisphere.degrees == nil)
    }
}
