// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// `$PGRME,15.0,M,45.0,M,25.0,M*1C` — Garmin's estimated position errors: horizontal,
/// vertical and spherical, each in metres (Garmin documents them as CEP-50-like figures).
public struct PGRME: TypedSentence {
    public static let sentenceType = NMEASentenceType.pgrme
    public var talker: Talker { .proprietary }
    /// Estimated horizontal position error, metres.
    public var horizontalError: NMEADecimal?
    /// Estimated vertical position error, metres.
    public var verticalError: NMEADecimal?
    /// Estimated position error, metres.
    public var sphericalError: NMEADecimal?

    public init(horizontalError: NMEADecimal?, verticalError: NMEADecimal?, sphericalError: NMEADecimal?) {
        self.horizontalError = horizontalError
        self.verticalError = verticalError
        self.sphericalError = sphericalError
    }

    init(fields: borrowing Fields) {
        self.init(
            horizontalError: fields.decimal(1), verticalError: fields.decimal(3),
            sphericalError: fields.decimal(5))
    }

    public func writeFields(to writer: inout NMEAWriter) {
        for value in [horizontalError, verticalError, sphericalError] {
            writer.field(value)
            writer.field(NMEALetter(rawValue: UInt8(ascii: "M")))
        }
    }
}

/// `$PGRMZ,246,f,3*1B` — Garmin's altitude, in feet (`f`) or metres (`m`), and the fix's
/// dimension (2 or 3).
public struct PGRMZ: TypedSentence {
    public static let sentenceType = NMEASentenceType.pgrmz
    public var talker: Talker { .proprietary }
    public var altitude: NMEADecimal?
    /// `f` for feet, `m` for metres.
    public var unit: NMEALetter?
    /// 2 or 3 for a 2D or 3D fix, as the receiver says.
    public var dimension: Int?

    public init(altitude: NMEADecimal?, unit: NMEALetter?, dimension: Int?) {
        self.altitude = altitude
        self.unit = unit
        self.dimension = dimension
    }

    init(fields: borrowing Fields) {
        self.init(altitude: fields.decimal(1), unit: fields.letter(2), dimension: fields.integer(3))
    }

    /// The altitude in metres; `nil` without one or with a unit other than feet or metres.
    public var altitudeMetres: Double? {
        guard let altitude else { return nil }
        switch unit?.rawValue {
        case UInt8(ascii: "f"), UInt8(ascii: "F"): return altitude.doubleValue * 0.3048
        case UInt8(ascii: "m"), UInt8(ascii: "M"): return altitude.doubleValue
        default: return nil
        }
    }

    public func writeFields(to writer: inout NMEAWriter) {
        writer.field(altitude)
        writer.field(unit)
        writer.field(dimension)
    }
}
