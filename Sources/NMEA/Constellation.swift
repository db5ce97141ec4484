// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// A satellite navigation system.
public enum Constellation: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case gps = 1
    case glonass = 2
    case galileo = 3
    case beidou = 4
    case qzss = 5
    case navic = 6
    case sbas = 7

    /// The constellation of an NMEA 4.10 GNSS System ID (GSA field 18, GBS field 9): 1 GPS,
    /// 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC.
    public init?(systemID: UInt8) {
        guard (1...6).contains(systemID) else { return nil }
        self.init(rawValue: systemID)
    }

    public var description: String {
        switch self {
        case .gps: "GPS"
        case .glonass: "GLONASS"
        case .galileo: "Galileo"
        case .beidou: "BeiDou"
        case .qzss: "QZSS"
        case .navic: "NavIC"
        case .sbas: "SBAS"
        }
    }
}
