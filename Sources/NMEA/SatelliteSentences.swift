// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// `$GNGSA,A,3,13,12,22,19,08,21,,,,,,,1.05,0.64,0.83,4*0B` — DOP and satellites used; NMEA 4.10
/// adds the GNSS system ID. Up to 24 satellite fields are read (some receivers send more than 12).
public struct GSA: TypedSentence {
    public static let sentenceType = NMEASentenceType.gsa
    public var talker: Talker
    /// `A` automatic, `M` manual.
    public var selectionMode: NMEALetter?
    /// 1 no fix, 2 2D, 3 3D.
    public var fixType: Int?
    /// The satellite IDs used in the solution, in order, without the empty slots.
    public var satellites: FixedList<24, UInt16>
    /// How many satellite fields were on the wire (12 in the standard; some receivers send
    /// fewer or more).
    public var satelliteSlots: Int
    public var pdop: NMEADecimal?
    public var hdop: NMEADecimal?
    public var vdop: NMEADecimal?
    /// NMEA 4.10 GNSS system ID (see ``Constellation/init(systemID:)``).
    public var systemID: Int?

    public init(
        talker: Talker = .gps, selectionMode: NMEALetter? = nil, fixType: Int? = nil,
        satellites: [UInt16] = [],
        satelliteSlots: Int = 12, pdop: NMEADecimal? = nil, hdop: NMEADecimal? = nil,
        vdop: NMEADecimal? = nil,
        systemID: Int? = nil
    ) {
        self.talker = talker
        self.selectionMode = selectionMode
        self.fixType = fixType
        self.satellites = FixedList(filler: 0)
        for id in satellites { self.satellites.append(id) }
        self.satelliteSlots = max(satelliteSlots, self.satellites.count)
        self.pdop = pdop
        self.hdop = hdop
        self.vdop = vdop
        self.systemID = systemID
    }

    /// The value a sentence is read into by ``readStandardLayout(_:into:)``: copied from memory
    /// written once, which is faster than building it in place field by field.
    @usableFromInline static let blank = GSA()

    init(talker: Talker, fields: borrowing Fields) {
        self.init(talker: talker, selectionMode: fields.letter(1), fixType: fields.integer(2))
        let last = fields.count - 1
        let dopStart: Int
        if last == 18 {
            systemID = fields.integer(18)
            dopStart = 15
        } else {
            dopStart = max(3, last - 2)
        }
        satelliteSlots = dopStart - 3
        if dopStart > 3 {
            for index in 3..<dopStart {
                if let id = fields.integer(index), id > 0, id <= Int(UInt16.max) {
                    satellites.append(UInt16(id))
                }
            }
        }
        pdop = fields.decimal(dopStart)
        hdop = fields.decimal(dopStart + 1)
        vdop = fields.decimal(dopStart + 2)
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(selectionMode)
        writer.field(fixType)
        for slot in 0..<max(satelliteSlots, satellites.count) {
            writer.field(slot < satellites.count ? Int(satellites[slot]) : nil, width: 2)
        }
        writer.field(pdop)
        writer.field(hdop)
        writer.field(vdop)
        if let systemID {
            writer.field(systemID)
        }
    }
}

/// One satellite of a GSV sentence.
public struct GSVSatellite: Sendable, Hashable, BitwiseCopyable {
    /// The satellite ID as sent (PRN, or the NMEA number for the talker's system).
    public var id: UInt16
    /// Degrees above the horizon.
    public var elevation: Int16?
    /// Degrees from true north.
    public var azimuth: Int16?
    /// Carrier-to-noise density, dB-Hz; `nil` when not tracked.
    public var snr: Int16?

    @inlinable
    public init(id: UInt16, elevation: Int16? = nil, azimuth: Int16? = nil, snr: Int16? = nil) {
        self.id = id
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
    }
}

/// `$GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00*74` — satellites in view,
/// up to four per sentence, in a numbered series; NMEA 4.10 adds the signal ID after them.
public struct GSV: TypedSentence {
    public static let sentenceType = NMEASentenceType.gsv
    public var talker: Talker
    public var messageCount: Int?
    public var messageNumber: Int?
    public var satellitesInView: Int?
    public var satellites: FixedList<4, GSVSatellite>
    /// NMEA 4.10 signal ID (hexadecimal digit on the wire).
    public var signalID: Int?

    public init(
        talker: Talker = .gps, messageCount: Int? = nil, messageNumber: Int? = nil,
        satellitesInView: Int? = nil,
        satellites: [GSVSatellite] = [], signalID: Int? = nil
    ) {
        self.talker = talker
        self.messageCount = messageCount
        self.messageNumber = messageNumber
        self.satellitesInView = satellitesInView
        self.satellites = FixedList(filler: GSVSatellite(id: 0))
        for satellite in satellites { self.satellites.append(satellite) }
        self.signalID = signalID
    }

    /// The value a sentence is read into (see ``GSA/blank``).
    @usableFromInline static let blank = GSV()

    init(talker: Talker, fields: borrowing Fields) {
        self.talker = talker
        messageCount = fields.integer(1)
        messageNumber = fields.integer(2)
        satellitesInView = fields.integer(3)
        satellites = FixedList(filler: GSVSatellite(id: 0))
        signalID = nil
        let last = fields.count - 1
        var blockEnd = last
        if last >= 4 && (last - 3) % 4 == 1 {
            let field = fields[last]
            if field.count == 1, let value = hexValue(field[0]) { signalID = Int(value) }
            blockEnd = last - 1
        }
        var index = 4
        while index <= blockEnd {
            if let id = fields.integer(index), id > 0, id <= Int(UInt16.max) {
                satellites.append(
                    GSVSatellite(
                        id: UInt16(id), elevation: fields.smallWholeNumber(index + 1),
                        azimuth: fields.smallWholeNumber(index + 2), snr: fields.smallWholeNumber(index + 3)))
            }
            index += 4
            if satellites.isFull { break }
        }
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(messageCount)
        writer.field(messageNumber)
        writer.field(satellitesInView, width: 2)
        for satellite in satellites {
            writer.field(Int(satellite.id), width: 2)
            writer.field(satellite.elevation.map(Int.init), width: 2)
            writer.field(satellite.azimuth.map(Int.init), width: 3)
            writer.field(satellite.snr.map(Int.init), width: 2)
        }
        if let signalID {
            writer.field(String(signalID, radix: 16, uppercase: true))
        }
    }
}
