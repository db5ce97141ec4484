// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// gpsd's rules for what each sentence type brings to a fix (`driver_nmea0183.c`): which
/// sentence may set or keep the fix mode, when a position counts, how a void RMC or a GGA
/// repeated with the same time is read, and the per-talker bookkeeping those rules need.
///
/// Each rule fills a ``Step`` from one sentence; the assembler merges it. The rules keep only
/// what gpsd keeps between sentences (the last GGA and GSA talkers, the GSA used count); what
/// they read of the fix being built is passed in.
struct GPSDSentenceRules: Sendable {
    private var lastGGATalker: Talker?
    private var lastGGATime: NMEATime??
    /// A GGA repeated with the same time: gpsd takes it as no fix, and GSA may not change it.
    private var latchMode = false
    private var lastGSATalker: Talker?
    private var seenNonGPSGSA = false
    /// Satellites used, as the GSA sentences of the last group list them.
    private(set) var gsaUsedCount = 0

    /// Any sentence but a GSA ends a group of GSAs.
    mutating func noteSentence(_ tag: NMEASentenceType?) {
        if tag != .gsa { lastGSATalker = nil }
    }

    mutating func gga(_ gga: GGA, _ step: inout Step, _ dates: inout DateResolver) {
        step.tag = .gga
        step.kindKey = Self.kindKey(.gga, gga.talker)
        let lastLastTalker = lastGGATalker
        lastGGATalker = gga.talker
        var status: FixStatus?
        switch gga.quality {
        case 0?:
            status = .unknown
            // A receiver without a fix may send an empty time: its date is no longer trusted.
            if gga.time == nil { dates.forgetDate() }
        case 1?: status = .gps
        case 2?: status = .dgps
        case 3?: status = .pps
        case 4?: status = .rtkFixed
        case 5?: status = .rtkFloat
        case 6?: status = .deadReckoning
        case 7?: status = .manual
        case 8?: status = .simulated
        default: status = nil
        }
        if let status {
            step.new.status = status
            step.mask.insert(.status)
        }
        if let lastLastTalker, lastLastTalker != gga.talker {
            latchMode = false
        } else {
            latchMode = lastGGATime.map { $0 == gga.time } ?? false
        }
        if latchMode {
            step.new.status = .unknown
            step.new.mode = .noFix
            step.mask.formUnion([.mode, .status])
        } else {
            lastGGATime = .some(gga.time)
        }
        let satellites = gga.satellitesUsed ?? 0
        if let time = gga.time {
            dates.advance(to: time)
            step.stamp(time)
            if dates.hasDate { step.mask.insert(.time) }
        }
        if let latitude = gga.latitude?.degrees, let longitude = gga.longitude?.degrees {
            step.new.mode = .twoDimensional
            step.new.latitude = latitude
            step.new.longitude = longitude
            step.mask.insert(.latLon)
            step.new.geoidSeparation = gga.geoidSeparation?.doubleValue
            if let altitude = gga.altitude {
                step.new.altitudeMSL = altitude.doubleValue
                step.mask.insert(.altitude)
                if satellites >= 4 { step.new.mode = .threeDimensional }
            }
            if satellites < 3 { step.new.mode = .noFix }
        } else {
            step.new.mode = .noFix
        }
        step.mask.insert(.mode)
        if let hdop = gga.hdop?.doubleValue, hdop < 99 {
            step.dop.hdop = hdop
            step.mask.insert(.dop)
        }
        if let age = gga.dgpsAge?.doubleValue, let station = gga.dgpsStation, age > 0.09 || station > 0 {
            step.new.dgpsAge = age
            step.new.dgpsStation = station
        }
        step.new.satellitesUsed = gga.satellitesUsed
    }

    func rmc(
        _ rmc: RMC, _ step: inout Step, _ dates: inout DateResolver, current: ErrorModel.State,
        lastFixMode: FixMode
    ) {
        step.tag = .rmc
        step.kindKey = Self.kindKey(.rmc, rmc.talker)
        switch rmc.status {
        case "A"?, "D"?:
            if let time = rmc.time, let rmcDate = rmc.date {
                let civil = CivilDate(
                    year: rmcDate.pivotedYear, month: Int(rmcDate.month), day: Int(rmcDate.day))
                dates.advance(to: time)
                dates.setDate(civil)
                step.mask.insert(.time)
                step.stamp(time)
            }
            var status = FixStatus.unknown
            if let latitude = rmc.latitude?.degrees, let longitude = rmc.longitude?.degrees {
                status = rmc.status == "D" ? .dgps : .gps
                step.new.latitude = latitude
                step.new.longitude = longitude
                step.mask.insert(.latLon)
                if lastFixMode <= .twoDimensional {
                    step.new.mode = .twoDimensional
                    step.mask.insert(.mode)
                } else if lastFixMode == .threeDimensional {
                    step.new.mode = .threeDimensional
                    step.mask.insert(.mode)
                }
            } else {
                step.new.mode = .noFix
                step.mask.insert(.mode)
            }
            if let speed = rmc.speedKnots {
                step.new.speed = speed.doubleValue * 1852 / 3600
                step.mask.insert(.speed)
            }
            if let course = rmc.courseTrue {
                step.new.course = course.doubleValue
                step.mask.insert(.track)
            }
            if let variation = rmc.magneticVariation?.doubleValue,
                let direction = rmc.magneticVariationDirection
            {
                let signed: Double? =
                    switch direction {
                    case "E": variation
                    case "W": -variation
                    default: nil
                    }
                if let signed, abs(signed) > 0.09 {
                    step.new.magneticVariation = signed
                    step.mask.insert(.magneticVariation)
                }
            }
            if let mode = rmc.mode { status = FixStatus(faaMode: mode) }
            if gsaUsedCount > 3 {
                step.new.mode = .threeDimensional
                step.mask.insert(.mode)
            } else if current.hasAltitude {
                step.new.mode = .threeDimensional
                step.mask.insert(.mode)
            }
            step.new.status = status
            step.mask.insert(.status)
        default:
            step.new.mode = .noFix
            if rmc.time == nil || rmc.date == nil { dates.forgetDate() }
            // A new time of day starts a new epoch, so the no-fix state belongs to the second the
            // receiver stamped, not to the valid fix before it. Neither its time nor its date
            // moves the running clock: after a restart they come from an unset real-time clock
            // (23:59:48 of a day in 2006) and would roll the date over.
            if let time = rmc.time { step.stamp(time) }
            step.mask.formUnion([.status, .mode])
        }
    }

    func gll(
        _ gll: GLL, _ step: inout Step, _ dates: inout DateResolver, current: ErrorModel.State,
        oldFix: ErrorModel.State
    ) {
        step.tag = .gll
        step.kindKey = Self.kindKey(.gll, gll.talker)
        if let time = gll.time {
            dates.advance(to: time)
            step.stamp(time)
            if dates.hasDate { step.mask.insert(.time) }
        }
        if gll.status == "A", gll.mode != "N", let latitude = gll.latitude?.degrees,
            let longitude = gll.longitude?.degrees
        {
            step.new.latitude = latitude
            step.new.longitude = longitude
            step.mask.insert(.latLon)
            if current.hasAltitude {
                step.new.mode = .threeDimensional
            } else if gsaUsedCount > 3 {
                step.new.mode = .threeDimensional
            } else if current.mode < .twoDimensional
                || !oldFix.hasAltitude
            {
                step.new.mode = .twoDimensional
            }
            step.new.status = gll.mode.map(FixStatus.init(faaMode:)) ?? .gps
        } else {
            step.new.status = .unknown
            step.new.mode = .noFix
        }
        step.mask.formUnion([.status, .mode])
    }

    func gns(_ gns: GNS, _ step: inout Step, _ dates: inout DateResolver) {
        step.tag = .gns
        step.kindKey = Self.kindKey(.gns, gns.talker)
        if let time = gns.time {
            dates.advance(to: time)
            step.stamp(time)
            if dates.hasDate { step.mask.insert(.time) }
        }
        let firstMode = gns.modes.first
        guard let firstMode, firstMode != "N" else {
            step.new.mode = .noFix
            step.mask.insert(.mode)
            return
        }
        if gns.navigationStatus == "U" || gns.navigationStatus == "V" { return }
        let satellites = gns.satellitesUsed ?? 0
        if let latitude = gns.latitude?.degrees, let longitude = gns.longitude?.degrees {
            step.new.latitude = latitude
            step.new.longitude = longitude
            step.mask.insert(.latLon)
            step.new.mode = .twoDimensional
            if let altitude = gns.altitude {
                step.new.altitudeMSL = altitude.doubleValue
                step.mask.insert(.altitude)
                if satellites > 3 { step.new.mode = .threeDimensional }
                step.new.geoidSeparation = gns.geoidSeparation?.doubleValue
            }
        } else {
            step.new.mode = .noFix
        }
        if let hdop = gns.hdop?.doubleValue {
            step.dop.hdop = hdop
            step.mask.insert(.dop)
        }
        step.new.status = FixStatus(faaMode: firstMode)
        step.mask.formUnion([.mode, .status])
        if let age = gns.dgpsAge?.doubleValue, let station = gns.dgpsStation {
            step.new.dgpsAge = age
            step.new.dgpsStation = station
        }
        step.new.satellitesUsed = gns.satellitesUsed
    }

    mutating func gsa(_ gsa: GSA, _ step: inout Step, _ sky: inout SkyView) {
        step.tag = .gsa
        step.kindKey = Self.kindKey(.gsa, gsa.talker, extra: UInt32(truncatingIfNeeded: gsa.systemID ?? 0))
        let lastLastTalker = lastGSATalker
        let fieldCount = 3 + gsa.satelliteSlots + 3 + (gsa.systemID != nil ? 1 : 0)
        if fieldCount >= 18 && !latchMode {
            step.new.mode = gsa.fixType.flatMap { FixMode(rawValue: $0) } ?? .notSeen
            step.mask.insert(.mode)
            if fieldCount <= 19 {
                if let pdop = gsa.pdop?.doubleValue, pdop < 99 {
                    step.dop.pdop = pdop
                    step.mask.insert(.dop)
                }
                if let hdop = gsa.hdop?.doubleValue, hdop < 99 {
                    step.dop.hdop = hdop
                    step.mask.insert(.dop)
                }
                if let vdop = gsa.vdop?.doubleValue, vdop < 99 {
                    step.dop.vdop = vdop
                    step.mask.insert(.dop)
                }
            }
            if lastGSATalker == nil || (gsa.talker == lastGSATalker && gsa.talker != .gnss) {
                gsaUsedCount = 0
            }
            lastGSATalker = gsa.talker
            if gsa.talker != .gps { seenNonGPSGSA = true }
            gsaUsedCount += gsa.satellites.count
        }
        sky.noteUsed(gsa, startsGroup: lastLastTalker == nil)
        if seenNonGPSGSA && gsa.talker == .gps {
            step.mask = []
        } else if lastLastTalker != .gnss && gsa.talker == .gnss && !step.mask.isEmpty {
            step.mask = [.mode]
        }
    }

    func gsv(_ gsv: GSV, _ step: inout Step, _ sky: inout SkyView) {
        step.tag = .gsv
        step.kindKey = Self.gsvKindKey(gsv)
        step.gsxMore = Self.hasMoreParts(gsv)
        sky.add(gsv)
    }

    static func gsvKindKey(_ gsv: GSV) -> UInt32 {
        kindKey(
            .gsv, gsv.talker,
            extra: UInt32(truncatingIfNeeded: gsv.messageNumber ?? 0) << 8
                | UInt32(truncatingIfNeeded: gsv.signalID ?? 0))
    }

    /// Whether more parts of the series follow this one.
    static func hasMoreParts(_ gsv: GSV) -> Bool {
        guard let number = gsv.messageNumber, let count = gsv.messageCount else { return false }
        return number < count
    }

    func vtg(_ vtg: VTG, _ step: inout Step) {
        step.tag = .vtg
        step.kindKey = Self.kindKey(.vtg, vtg.talker)
        guard let course = vtg.courseTrue, let speed = vtg.speedKnots else { return }
        if vtg.mode == "E" || vtg.mode == "N" { return }
        step.new.course = course.doubleValue
        step.new.speed = speed.doubleValue * 1852 / 3600
        step.mask.formUnion([.track, .speed])
    }

    func zda(_ zda: ZDA, _ step: inout Step, _ dates: inout DateResolver) {
        step.tag = .zda
        step.kindKey = Self.kindKey(.zda, zda.talker)
        guard let time = zda.time else { return }
        dates.advance(to: time)
        guard let year = zda.year, let month = zda.month, let day = zda.day else { return }
        let civil = CivilDate(year: year, month: month, day: day)
        guard year >= 1970, civil.isValid else { return }
        dates.setDate(civil)
        step.mask.insert(.time)
        step.stamp(time)
    }

    func gst(_ gst: GST, _ step: inout Step) -> NoiseStatistics {
        step.tag = .gst
        step.kindKey = Self.kindKey(.gst, gst.talker)
        var statistics = NoiseStatistics()
        statistics.rms = gst.rms?.doubleValue
        statistics.semiMajor = gst.semiMajor?.doubleValue
        statistics.semiMinor = gst.semiMinor?.doubleValue
        statistics.orientation = gst.orientation?.doubleValue
        statistics.latitude = gst.latitudeError?.doubleValue
        statistics.longitude = gst.longitudeError?.doubleValue
        statistics.altitude = gst.altitudeError?.doubleValue
        return statistics
    }

    func gbs(
        _ gbs: GBS, _ step: inout Step, _ dates: inout DateResolver, _ receiverErrors: inout ErrorEstimates?
    ) {
        step.tag = .gbs
        step.kindKey = Self.kindKey(.gbs, gbs.talker)
        guard let time = gbs.time else { return }
        let matches = dates.timeOfDay.map { $0.nanosecondsOfDay == time.nanosecondsOfDay } ?? false
        dates.advance(to: time)
        step.stamp(time)
        if dates.hasDate { step.mask.insert(.time) }
        guard matches else { return }
        var errors = receiverErrors ?? ErrorEstimates()
        if let value = gbs.latitudeError?.doubleValue { errors.latitude = value }
        if let value = gbs.longitudeError?.doubleValue { errors.longitude = value }
        if let value = gbs.altitudeError?.doubleValue { errors.vertical = value }
        errors.source = .receiverGBS
        receiverErrors = errors
    }

    /// `$PGRMZ,93,f,3` — Garmin's altitude (feet or metres) and fix dimension.
    func pgrmz(_ pgrmz: PGRMZ, _ step: inout Step) {
        step.kindKey = GPSDSentenceRules.otherKindKey(PGRMZ.type)
        guard let metres = pgrmz.altitudeMetres else { return }
        step.new.altitudeMSL = metres
        step.mask.insert(.altitude)
        if let dimension = pgrmz.dimension, (2...3).contains(dimension) {
            step.new.mode = dimension == 3 ? .threeDimensional : .twoDimensional
            step.mask.insert(.mode)
        }
    }

    /// `$PGRME,15.0,M,45.0,M,25.0,M` — Garmin's estimated position errors (CEP50, scaled to 95%).
    func pgrme(_ pgrme: PGRME, _ step: inout Step, _ receiverErrors: inout ErrorEstimates?) {
        step.kindKey = GPSDSentenceRules.otherKindKey(PGRME.type)
        let scale = 2.45 / 1.18
        var errors = receiverErrors ?? ErrorEstimates()
        if let hpe = pgrme.horizontalError?.doubleValue {
            errors.longitude = hpe / 2.0.squareRoot() * scale
            errors.latitude = errors.longitude
        }
        if let vpe = pgrme.verticalError?.doubleValue { errors.vertical = vpe * scale }
        if let epe = pgrme.sphericalError?.doubleValue { errors.spherical = epe * scale }
        errors.source = .receiverPGRME
        receiverErrors = errors
    }

    /// The kind of a sentence of type `type` from `talker`, for epoch detection; `extra` tells
    /// apart the parts of a series. The type's number takes the top four bits (1 to 14), which
    /// keeps tagged kinds apart from ``otherKindKey(_:)``'s.
    static func kindKey(_ type: NMEASentenceType, _ talker: Talker, extra: UInt32 = 0) -> UInt32 {
        (UInt32(type.rawValue) &+ 1) << 28 ^ UInt32(talker.rawValue) << 12 ^ extra
    }

    /// A kind key for sentences without a tag: FNV-1a of the type, kept apart from tagged kinds.
    static func otherKindKey(_ type: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in type.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash | 0xF000_0000
    }
}

extension FixStatus {
    /// The status an FAA mode letter implies.
    init(faaMode: NMEALetter) {
        switch faaMode.rawValue {
        case UInt8(ascii: "C"), UInt8(ascii: "N"), UInt8(ascii: "U"), 0: self = .unknown
        case UInt8(ascii: "D"), UInt8(ascii: "P"): self = .dgps
        case UInt8(ascii: "E"): self = .deadReckoning
        case UInt8(ascii: "F"): self = .rtkFloat
        case UInt8(ascii: "R"): self = .rtkFixed
        case UInt8(ascii: "M"), UInt8(ascii: "S"): self = .simulated
        default: self = .gps
        }
    }
}
