// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// A set of sentence types in one word.
struct TagSet: Sendable {
    private var bits: UInt32 = 0

    func contains(_ tag: NMEASentenceType) -> Bool { bits & 1 << tag.rawValue != 0 }

    mutating func insert(_ tag: NMEASentenceType) { bits |= 1 << tag.rawValue }
}

/// What one sentence contributes, in gpsd's terms: new values and which of them to merge.
struct Step {
    var new = Contribution()
    var mask: Mask = []
    var tag: NMEASentenceType?
    /// What kind of sentence this is for epoch detection: type, talker and, for GSV and GSA,
    /// the part; `nil` for sentences that never delimit epochs.
    var kindKey: UInt32?
    /// The time of day the sentence is stamped with, when it counts for epoch detection.
    var stamp: NMEATime?
    var gsxMore = false
    /// The DOPs the sentence gives, set once the epoch it belongs to is known.
    var dop = ReportedDOP()
    /// Whether the sentence can carry fix data (a text or an unknown sentence cannot).
    var bringsData = true

    /// Stamps the sentence with its time of day for epoch detection.
    mutating func stamp(_ time: NMEATime) {
        stamp = time
        new.timeOfDay = time
    }
}

/// The fix values a sentence can bring.
struct Contribution {
    var time: UTCTimestamp?
    var timeOfDay: NMEATime?
    var mode: FixMode = .notSeen
    var status: FixStatus = .unknown
    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    var geoidSeparation: Double?
    var speed: Double?
    var course: Double?
    var magneticVariation: Double?
    var heading: Double?
    var dgpsAge: Double?
    var dgpsStation: Int?
    var satellitesUsed: Int?

    /// Whether it brings a value that is merged whatever the mask says.
    var setsUnmaskedValues: Bool {
        timeOfDay != nil || geoidSeparation != nil || heading != nil || dgpsAge != nil || dgpsStation != nil
            || satellitesUsed != nil
    }
}

/// The dilutions one sentence reports (GGA and GNS: HDOP; GSA: PDOP, HDOP, VDOP).
struct ReportedDOP {
    var pdop: Double?
    var hdop: Double?
    var vdop: Double?

    func apply(to dop: inout DOP) {
        if let pdop { dop.pdop = pdop }
        if let hdop { dop.hdop = hdop }
        if let vdop { dop.vdop = vdop }
    }
}

/// Which of a step's values are merged into the fix (gpsd's report mask).
struct Mask: OptionSet {
    let rawValue: UInt32
    static let time = Mask(rawValue: 1 << 0)
    static let latLon = Mask(rawValue: 1 << 1)
    static let mode = Mask(rawValue: 1 << 2)
    static let status = Mask(rawValue: 1 << 3)
    static let altitude = Mask(rawValue: 1 << 4)
    static let speed = Mask(rawValue: 1 << 5)
    static let track = Mask(rawValue: 1 << 6)
    static let magneticVariation = Mask(rawValue: 1 << 7)
    static let dop = Mask(rawValue: 1 << 8)
    static let clear = Mask(rawValue: 1 << 9)
    /// What makes an epoch worth a fix: a time alone (a ZDA) does not.
    static let fixData: Mask = [.latLon, .mode, .status, .altitude, .speed, .track]
}
