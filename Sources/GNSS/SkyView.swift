// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// Satellites in view, assembled from multi-part GSV series per talker and signal, with the
/// used flags of the latest group of GSA sentences.
struct SkyView: Sendable {
    private struct GroupKey: Hashable, Sendable {
        var talker: Talker
        var signal: Int?
    }

    /// The satellites of one GSV sentence, as sent.
    private typealias Part = FixedList<4, GSVSatellite>

    /// A complete series, or one being received: its parts as sent, worked out only when an
    /// epoch is reported. The arrays keep their capacity from epoch to epoch, so a steady stream
    /// allocates nothing here.
    private struct Group: Sendable {
        var key: GroupKey
        /// The system the talker names, for working out satellite numbers.
        var hint: Constellation?
        var parts: [Part] = []
        var satelliteCount = 0
        var epoch = 0
        /// Parts expected and the next part wanted, while a series is being received; 0 when none is.
        var expected = 0
        var next = 0

        init(key: GroupKey) {
            self.key = key
            hint = key.talker.constellation
        }
    }

    /// A series not refreshed for this many epochs is dropped (some receivers spread GSV over
    /// several epochs).
    static let staleEpochs = 10

    private var groups: [Group] = []
    private var pending: [Group] = []
    private var used = UsedSet()
    private var epoch = 0

    /// How many satellites the complete series hold.
    private var satelliteCount: Int { groups.reduce(0) { $0 + $1.satelliteCount } }

    mutating func advanceEpoch() {
        epoch += 1
        if groups.contains(where: { epoch - $0.epoch > SkyView.staleEpochs }) {
            groups.removeAll { epoch - $0.epoch > SkyView.staleEpochs }
        }
    }

    mutating func add(_ gsv: GSV) {
        guard let number = gsv.messageNumber, let count = gsv.messageCount, number >= 1, count >= number
        else {
            return
        }
        let key = GroupKey(talker: gsv.talker, signal: gsv.signalID)
        var index = 0
        while index < pending.count && pending[index].key != key { index += 1 }
        if index == pending.count {
            guard number == 1 else { return }
            pending.append(Group(key: key))
        }
        guard Self.add(gsv.satellites, number: number, count: count, to: &pending[index]) else { return }
        var existing = 0
        while existing < groups.count && groups[existing].key != key { existing += 1 }
        if existing == groups.count { groups.append(Group(key: key)) }
        // Swapping hands the finished parts to the group and the group's old array, with its
        // capacity, back to the next series.
        swap(&groups[existing].parts, &pending[index].parts)
        groups[existing].satelliteCount = pending[index].satelliteCount
        groups[existing].epoch = epoch
    }

    /// Adds part `number` of `count` to `series`; `true` when that completes it.
    private static func add(_ part: Part, number: Int, count: Int, to series: inout Group) -> Bool {
        if number == 1 {
            // A series has a few parts; taking them off one by one keeps the array's storage at
            // less cost than `removeAll(keepingCapacity:)`.
            while series.parts.popLast() != nil {}
            series.satelliteCount = 0
            series.expected = count
            series.next = 1
        }
        guard series.next == number, series.expected == count else {
            series.expected = 0
            series.next = 0
            return false
        }
        series.parts.append(part)
        series.satelliteCount += part.count
        series.next += 1
        guard number == count else { return false }
        series.expected = 0
        series.next = 0
        return true
    }

    mutating func noteUsed(_ gsa: GSA, startsGroup: Bool) {
        if startsGroup { used.removeAll() }
        let hint =
            gsa.systemID.flatMap { Constellation(systemID: UInt8(clamping: $0)) } ?? gsa.talker.constellation
        used.insert(gsa.satellites, hint: hint)
    }

    /// Puts the satellites of the complete series into `list`, each marked used or not; the used
    /// satellites are counted (each once, however many of its signals are listed: the receiver's
    /// own meaning in GGA, and GPX's), and those with a direction added to `geometry`. `list`
    /// keeps its storage when nothing else holds it.
    func satellites(
        into list: inout [Satellite], used usedCount: inout Int, geometry: inout Geodesy.DilutionAccumulator
    ) {
        let total = satelliteCount
        if list.count == total {
            list.withUnsafeMutableBufferPointer { buffer in
                guard var next = buffer.baseAddress else { return }
                forEachSatellite(used: &usedCount, geometry: &geometry) { satellite in
                    next.pointee = satellite
                    next += 1
                }
            }
        } else {
            list = [Satellite](unsafeUninitializedCapacity: total) { buffer, initialized in
                guard var next = buffer.baseAddress else { return }
                forEachSatellite(used: &usedCount, geometry: &geometry) { satellite in
                    next.initialize(to: satellite)
                    next += 1
                }
                initialized = total
            }
        }
    }

    /// Calls `body` with each satellite of the complete series; counts the used ones and adds
    /// those with a direction to `geometry`.
    @inline(__always)
    private func forEachSatellite(
        used usedCount: inout Int, geometry: inout Geodesy.DilutionAccumulator,
        _ body: (Satellite) -> Void
    ) {
        let used = self.used
        // The used satellites counted so far: a satellite whose signals are listed several times
        // (L1 and L5, E1 and E5a…) is one satellite used, and one direction in the geometry. On the
        // stack, a bit per usual number, for this runs once per epoch of a decode.
        var counted = CountedSatellites()
        for group in groups {
            let signal = group.key.signal
            let hint = group.hint
            group.parts.withUnsafeBufferPointer { parts in
                for part in parts.indices {
                    for slot in 0..<parts[part].count {
                        let view = parts[part][slot]
                        let (constellation, svid) = normalize(id: Int(view.id), hint: hint)
                        let isUsed = used.contains(constellation, svid)
                        if isUsed && counted.insert(constellation, svid) {
                            usedCount += 1
                            if let azimuth = view.azimuth, let elevation = view.elevation {
                                geometry.add(azimuthDegrees: Int(azimuth), elevationDegrees: Int(elevation))
                            }
                        }
                        body(
                            Satellite(
                                constellation: constellation, svid: svid, nmeaID: Int(view.id),
                                signal: signal,
                                elevation: view.elevation.map(Double.init),
                                azimuth: view.azimuth.map(Double.init),
                                snr: view.snr.map(Double.init), used: isUsed))
                    }
                }
            }
        }
    }
}

/// Satellites by system and number: a bit per satellite for the usual numbers, a list for the
/// rest.
private struct UsedSet: Sendable {
    static let wordsPerSystem = 4
    private var bits = [UInt64](repeating: 0, count: 8 * UsedSet.wordsPerSystem)
    private var others: [UInt64] = []
    private var isEmpty = true

    static func key(_ constellation: Constellation?, _ svid: Int) -> UInt64 {
        UInt64(constellation?.rawValue ?? 0) << 32 | UInt64(UInt32(truncatingIfNeeded: svid))
    }

    /// The word of `svid`'s bit, when it has one.
    @inline(__always)
    static func word(_ constellation: Constellation?, _ svid: Int) -> Int? {
        guard svid >= 0 && svid < 64 * wordsPerSystem else { return nil }
        return Int(constellation?.rawValue ?? 0) &* wordsPerSystem &+ svid &>> 6
    }

    mutating func removeAll() {
        guard !isEmpty else { return }
        for index in bits.indices { bits[index] = 0 }
        others.removeAll(keepingCapacity: true)
        isEmpty = true
    }

    /// Inserts the satellites of a GSA, their numbers worked out with `hint`.
    mutating func insert(_ ids: FixedList<24, UInt16>, hint: Constellation?) {
        isEmpty = false
        var unusual = false
        bits.withUnsafeMutableBufferPointer { bits in
            for id in ids {
                let (constellation, svid) = normalize(id: Int(id), hint: hint)
                if let word = Self.word(constellation, svid) {
                    bits[word] |= 1 &<< UInt64(svid & 63)
                } else {
                    unusual = true
                }
            }
        }
        guard unusual else { return }
        for id in ids {
            let (constellation, svid) = normalize(id: Int(id), hint: hint)
            if Self.word(constellation, svid) == nil { others.append(Self.key(constellation, svid)) }
        }
    }

    @inline(__always)
    func contains(_ constellation: Constellation?, _ svid: Int) -> Bool {
        if let word = Self.word(constellation, svid) { return bits[word] & 1 &<< UInt64(svid & 63) != 0 }
        return others.contains(Self.key(constellation, svid))
    }
}

/// Satellites counted once each while an epoch's sky is worked out: the bits of ``UsedSet`` on the
/// stack, and a list for unusual numbers (empty, so unallocated, almost always).
private struct CountedSatellites {
    private var bits = InlineArray<32, UInt64>(repeating: 0)
    private var others: [UInt64] = []

    /// Counts a satellite; `false` when it was counted already.
    @inline(__always)
    mutating func insert(_ constellation: Constellation?, _ svid: Int) -> Bool {
        if let word = UsedSet.word(constellation, svid) {
            let bit: UInt64 = 1 &<< UInt64(svid & 63)
            guard bits[word] & bit == 0 else { return false }
            bits[word] |= bit
            return true
        }
        let key = UsedSet.key(constellation, svid)
        guard !others.contains(key) else { return false }
        others.append(key)
        return true
    }
}

/// The system and in-system number of a satellite ID, from the talker's system when it has one,
/// otherwise from the NMEA ID ranges (1–32 GPS, 33–64 and 120–158 SBAS, 65–96 GLONASS, 193–202
/// QZSS, 201–237 and 401–437 BeiDou, 301–336 Galileo).
@inline(__always)
func normalize(id: Int, hint: Constellation?) -> (Constellation?, Int) {
    switch hint {
    case .glonass?: return (.glonass, id > 64 && id <= 96 ? id - 64 : id)
    case .galileo?: return (.galileo, id > 300 ? id - 300 : id)
    case .beidou?: return (.beidou, id > 400 ? id - 400 : (id > 200 ? id - 200 : id))
    case .qzss?: return (.qzss, id > 192 ? id - 192 : id)
    case .navic?: return (.navic, id)
    case .sbas?: return (.sbas, id)
    case .gps?, nil:
        switch id {
        case 1...32: return (.gps, id)
        case 33...64: return (.sbas, id + 87)
        case 65...96: return (.glonass, id - 64)
        case 120...158: return (.sbas, id)
        case 193...202: return (.qzss, id - 192)
        case 201...237: return (.beidou, id - 200)
        case 301...336: return (.galileo, id - 300)
        case 401...437: return (.beidou, id - 400)
        default: return (hint, id)
        }
    }
}
