import NMEA

/// Satellites in view, assembled from multi-part GSV series per talker and signal, with the
/// used flags of the latest group of GSA sentences.
struct SkyView: Sendable {
    private struct GroupKey: Hashable, Sendable {
        var talker: Talker
        var signal: Int?
    }

    private struct Group: Sendable {
        var key: GroupKey
        var satellites: [Satellite]
        var epoch: Int
    }

    private struct Pending: Sendable {
        var key: GroupKey
        var expected: Int
        var next: Int
        var satellites: [Satellite]
    }

    private struct UsedKey: Hashable, Sendable {
        var constellation: Constellation?
        var svid: Int
    }

    /// A series not refreshed for this many epochs is dropped (some receivers spread GSV over
    /// several epochs).
    static let staleEpochs = 10

    private var groups: [Group] = []
    private var pending: [Pending] = []
    private var used: [UsedKey] = []
    private var epoch = 0

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
        let hint = gsv.talker.constellation
        var index = pending.firstIndex { $0.key == key }
        if number == 1 {
            let fresh = Pending(key: key, expected: count, next: 1, satellites: [])
            if let index { pending[index] = fresh } else { pending.append(fresh) }
            index = index ?? pending.count - 1
        }
        guard let index, pending[index].next == number, pending[index].expected == count else {
            if let index { pending.remove(at: index) }
            return
        }
        for satellite in gsv.satellites {
            let (constellation, svid) = normalize(id: Int(satellite.id), hint: hint)
            pending[index].satellites.append(
                Satellite(
                    constellation: constellation, svid: svid, nmeaID: Int(satellite.id), signal: gsv.signalID,
                    elevation: satellite.elevation.map(Double.init),
                    azimuth: satellite.azimuth.map(Double.init),
                    snr: satellite.snr.map(Double.init)))
        }
        pending[index].next += 1
        if number == count {
            let done = pending.remove(at: index)
            let group = Group(key: key, satellites: done.satellites, epoch: epoch)
            if let existing = groups.firstIndex(where: { $0.key == key }) {
                groups[existing] = group
            } else {
                groups.append(group)
            }
        }
    }

    mutating func noteUsed(_ gsa: GSA, startsGroup: Bool) {
        if startsGroup { used.removeAll(keepingCapacity: true) }
        let hint =
            gsa.systemID.flatMap { Constellation(systemID: UInt8(clamping: $0)) } ?? gsa.talker.constellation
        for id in gsa.satellites {
            let (constellation, svid) = normalize(id: Int(id), hint: hint)
            used.append(UsedKey(constellation: constellation, svid: svid))
        }
    }

    func satellites() -> [Satellite] {
        var result: [Satellite] = []
        for group in groups {
            for var satellite in group.satellites {
                satellite.used = used.contains(
                    UsedKey(constellation: satellite.constellation, svid: satellite.svid))
                result.append(satellite)
            }
        }
        return result
    }
}

/// The system and in-system number of a satellite ID, from the talker's system when it has one,
/// otherwise from the NMEA ID ranges (1–32 GPS, 33–64 and 120–158 SBAS, 65–96 GLONASS, 193–202
/// QZSS, 201–237 and 401–437 BeiDou, 301–336 Galileo).
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
