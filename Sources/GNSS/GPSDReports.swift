// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// Text encodings of fixes: gpsd's `TPV`/`SKY` reports (this file), this library's JSON record
/// and CSV (`FixRecords.swift`).
public enum FixFormat {
    /// gpsd's TPV report for a fix (`{"class":"TPV",…}`), with gpsd's field names, units and
    /// number formats, so that it can be compared with gpsd's output line by line.
    public static func gpsdTPV(_ fix: Fix) -> String {
        var bytes: [UInt8] = []
        appendGPSDTPV(fix, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends gpsd's reports for a fix to `output`, one per line, as gpsd's daemon sends them:
    /// the TPV; the SKY when the fix has DOPs or satellites (without `satellites`, with the counts
    /// but not the list); the GST when the receiver sent noise statistics; the ATT when it sent a
    /// true heading. With a `device`, each report names it; `crlf` ends lines as gpsd does.
    public static func appendGPSDReports(
        _ fix: Fix, satellites: Bool = true, device: QuotedText? = nil, crlf: Bool = false,
        to output: inout [UInt8]
    ) {
        appendGPSDTPV(fix, device: device, to: &output)
        endLine(crlf, &output)
        if fix.dop.hdop != nil || fix.dop.pdop != nil || !fix.satellites.isEmpty {
            appendGPSDSKY(fix, satellites: satellites, device: device, to: &output)
            endLine(crlf, &output)
        }
        if appendGPSDGST(fix, device: device, to: &output) { endLine(crlf, &output) }
        if appendGPSDATT(fix, device: device, to: &output) { endLine(crlf, &output) }
    }

    @inline(__always)
    private static func endLine(_ crlf: Bool, _ output: inout [UInt8]) {
        if crlf { output.append(13) }
        output.append(10)
    }

    /// gpsd's DEVICE report: a receiver at `path`, reached at `activated` (without it, a receiver
    /// that is closed, as gpsd reports one).
    public static func appendGPSDDevice(path: String?, activated: UTCTimestamp?, to output: inout [UInt8]) {
        JSONObjectWriter.append(to: &output, estimate: 160) { json in
            json.add("class", constant: "DEVICE")
            json.add("path", string: path)
            guard let activated else { return }
            json.add("driver", string: "NMEA0183")
            json.add("activated", time: activated)
            json.add("flags", integer: 1)
            json.add("native", integer: 0)
        }
    }

    /// gpsd's TPV of an approximate location, as gpslocd serves a program with reduced accuracy:
    /// `class`, `device`, `mode` 2, `time`, `lat`, `lon` and `eph` (the radius it lies within), and
    /// nothing of the fix it was reduced from.
    public static func appendGPSDReducedTPV(
        latitude: Double, longitude: Double, radius: Double, time: UTCTimestamp, device: QuotedText?,
        to output: inout [UInt8]
    ) {
        JSONObjectWriter.append(to: &output, estimate: 256) { json in
            json.add("class", constant: "TPV")
            json.add("device", quoted: device)
            json.add("mode", integer: 2)
            json.add("time", time: time)
            json.add("lat", latitude, decimals: 9)
            json.add("lon", longitude, decimals: 9)
            json.add("eph", radius, decimals: 3)
        }
    }

    package static func appendGPSDTPV(_ fix: Fix, device: QuotedText? = nil, to output: inout [UInt8]) {
        JSONObjectWriter.append(to: &output, estimate: 1024) { json in
            writeGPSDTPV(fix, device: device, &json)
        }
    }

    private static func writeGPSDTPV(_ fix: Fix, device: QuotedText?, _ json: inout JSONObjectWriter) {
        json.add("class", constant: "TPV")
        json.add("device", quoted: device)
        if fix.status.rawValue >= 2 { json.add("status", integer: fix.status.rawValue) }
        json.add("mode", integer: fix.mode.rawValue)
        if let time = fix.time {
            json.add("time", time: time)
            if let ept = fix.errors.time { json.add("ept", ept, decimals: 3) }
        }
        if fix.mode >= .twoDimensional {
            json.add("lat", fix.latitude, decimals: 9)
            json.add("lon", fix.longitude, decimals: 9)
            json.add("altHAE", fix.altitudeHAE, decimals: 4)
            json.add("altMSL", fix.altitudeMSL, decimals: 4)
            json.add("alt", fix.altitudeMSL, decimals: 4)
            json.add("epx", fix.errors.longitude, decimals: 3)
            json.add("epy", fix.errors.latitude, decimals: 3)
            json.add("epv", fix.errors.vertical, decimals: 3)
            json.add("track", fix.course, decimals: 4)
        }
        json.add("magvar", fix.magneticVariation, decimals: 1)
        if fix.mode >= .twoDimensional {
            json.add("speed", fix.speed, decimals: 3)
        }
        if fix.mode == .threeDimensional {
            json.add("climb", fix.climb, decimals: 3)
        }
        if fix.mode >= .twoDimensional {
            json.add("eps", fix.errors.speed, decimals: 2)
        }
        if fix.mode == .threeDimensional {
            json.add("epc", fix.errors.climb, decimals: 2)
            json.add("geoidSep", fix.geoidSeparation, decimals: 3)
        }
        if fix.mode >= .twoDimensional {
            json.add("eph", fix.errors.horizontal, decimals: 3)
            json.add("sep", fix.errors.spherical, decimals: 3)
        }
    }

    /// gpsd's GST report of a fix whose receiver sent GST: its pseudorange noise statistics.
    package static func appendGPSDGST(_ fix: Fix, device: QuotedText?, to output: inout [UInt8]) -> Bool {
        guard let noise = fix.noise else { return false }
        JSONObjectWriter.append(to: &output, estimate: 320) { json in
            json.add("class", constant: "GST")
            json.add("device", quoted: device)
            if let time = fix.time { json.add("time", time: time) }
            json.add("rms", noise.rms, decimals: 3)
            json.add("major", noise.semiMajor, decimals: 3)
            json.add("minor", noise.semiMinor, decimals: 3)
            json.add("orient", noise.orientation, decimals: 3)
            json.add("lat", noise.latitude, decimals: 3)
            json.add("lon", noise.longitude, decimals: 3)
            json.add("alt", noise.altitude, decimals: 3)
        }
        return true
    }

    /// gpsd's PPS report: the second a pulse marked (`real_…`, the nearest whole second) and the
    /// system clock at its edge (`clock_…`).
    public static func appendGPSDPPS(clock: UTCTimestamp, device: QuotedText?, to output: inout [UInt8]) {
        let real = clock.nearestWholeSecond.secondsAndNanoseconds
        let edge = clock.secondsAndNanoseconds
        JSONObjectWriter.append(to: &output, estimate: 200) { json in
            json.add("class", constant: "PPS")
            json.add("device", quoted: device)
            json.add("real_sec", integer: Int(real.seconds))
            json.add("real_nsec", integer: 0)
            json.add("clock_sec", integer: Int(edge.seconds))
            json.add("clock_nsec", integer: Int(edge.nanoseconds))
            json.add("precision", integer: -20)
        }
    }

    /// gpsd's TOFF report of a fix from a live receiver: the receiver's time (`real_…`) and the
    /// system clock when the epoch began to arrive (`clock_…`), for a time service to compare.
    package static func appendGPSDTOFF(_ fix: Fix, device: QuotedText?, to output: inout [UInt8]) -> Bool {
        guard let time = fix.time, let arrival = fix.arrival else { return false }
        let (real, clock) = (time.secondsAndNanoseconds, arrival.secondsAndNanoseconds)
        JSONObjectWriter.append(to: &output, estimate: 200) { json in
            json.add("class", constant: "TOFF")
            json.add("device", quoted: device)
            json.add("real_sec", integer: Int(real.seconds))
            json.add("real_nsec", integer: Int(real.nanoseconds))
            json.add("clock_sec", integer: Int(clock.seconds))
            json.add("clock_nsec", integer: Int(clock.nanoseconds))
            json.add("precision", integer: -1)
        }
        return true
    }

    /// gpsd's ATT report of a fix whose receiver sent a true heading (HDT, THS).
    package static func appendGPSDATT(_ fix: Fix, device: QuotedText?, to output: inout [UInt8]) -> Bool {
        guard let heading = fix.heading else { return false }
        JSONObjectWriter.append(to: &output, estimate: 160) { json in
            json.add("class", constant: "ATT")
            json.add("device", quoted: device)
            if let time = fix.time { json.add("time", time: time) }
            json.add("heading", heading, decimals: 2)
        }
        return true
    }

    /// gpsd's SKY report: DOPs and the satellites in view.
    public static func gpsdSKY(_ fix: Fix) -> String {
        var bytes: [UInt8] = []
        appendGPSDSKY(fix, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func appendGPSDSKY(
        _ fix: Fix, satellites: Bool = true, device: QuotedText? = nil, to output: inout [UInt8]
    ) {
        JSONObjectWriter.append(to: &output, estimate: 640 + 320 * fix.satellites.count) { json in
            writeGPSDSKY(fix, satellites: satellites, device: device, &json)
        }
    }

    private static func writeGPSDSKY(
        _ fix: Fix, satellites: Bool, device: QuotedText?, _ json: inout JSONObjectWriter
    ) {
        json.add("class", constant: "SKY")
        json.add("device", quoted: device)
        if let time = fix.time { json.add("time", time: time) }
        json.add("gdop", fix.dop.gdop, decimals: 2)
        json.add("hdop", fix.dop.hdop, decimals: 2)
        json.add("pdop", fix.dop.pdop, decimals: 2)
        json.add("tdop", fix.dop.tdop, decimals: 2)
        json.add("xdop", fix.dop.xdop, decimals: 2)
        json.add("ydop", fix.dop.ydop, decimals: 2)
        json.add("vdop", fix.dop.vdop, decimals: 2)
        if !fix.satellites.isEmpty { json.add("nSat", integer: fix.satellites.count) }
        // gpsd's uSat counts the entries of its list marked used, a satellite once per signal
        // (every SKY of gpsd's regression corpus has it so), where the fix counts satellites.
        let usedEntries = fix.satellites.count { $0.used }
        if let used = usedEntries > 0 ? usedEntries : fix.satellitesUsed { json.add("uSat", integer: used) }
        if satellites && !fix.satellites.isEmpty {
            json.openArray("satellites")
            for satellite in fix.satellites { gpsdSatellite(satellite, &json) }
            json.closeArray()
        }
    }

    private static func gpsdSatellite(_ satellite: Satellite, _ json: inout JSONObjectWriter) {
        json.openObject()
        defer { json.closeObject() }
        json.add("PRN", integer: satellite.nmeaID)
        if let constellation = satellite.constellation {
            json.add("gnssid", integer: gpsdGNSSID(constellation))
        }
        json.add("svid", integer: satellite.svid)
        if let signal = satellite.signal { json.add("sigid", integer: signal) }
        json.add("az", satellite.azimuth, decimals: 1)
        json.add("el", satellite.elevation, decimals: 1)
        json.add("ss", satellite.snr, decimals: 1)
        json.add("used", bool: satellite.used)
    }

    /// u-blox GNSS identifiers, as gpsd reports them.
    private static func gpsdGNSSID(_ constellation: Constellation) -> Int {
        switch constellation {
        case .gps: 0
        case .sbas: 1
        case .galileo: 2
        case .beidou: 3
        case .qzss: 5
        case .glonass: 6
        case .navic: 7
        }
    }
}
