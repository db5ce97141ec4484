/// The comma-separated fields of one sentence body (`GPGGA,123519,…` without `$` and `*hh`),
/// located once without copying. Field 0 is the address.
@usableFromInline
struct Fields {
    static let capacity = 64
    let body: UnsafeBufferPointer<UInt8>
    private var starts: InlineArray<64, UInt16>
    private var ends: InlineArray<64, UInt16>
    /// How many fields the sentence has (may exceed `capacity`; later ones are not addressable).
    private(set) var count: Int

    init(_ body: UnsafeBufferPointer<UInt8>) {
        self.body = body
        starts = .init(repeating: 0)
        ends = .init(repeating: 0)
        count = 0
        var start = 0
        var index = 0
        let length = body.count
        while index <= length {
            if index == length || body[index] == UInt8(ascii: ",") {
                if count < Fields.capacity {
                    starts[count] = UInt16(truncatingIfNeeded: start)
                    ends[count] = UInt16(truncatingIfNeeded: index)
                }
                count += 1
                start = index + 1
            }
            index += 1
        }
    }

    /// Field `index`, or an empty field when the sentence is shorter.
    subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
        guard index < count && index < Fields.capacity else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        let start = Int(starts[index])
        return UnsafeBufferPointer(rebasing: body[start..<Int(ends[index])])
    }

    func isEmpty(_ index: Int) -> Bool { self[index].isEmpty }
    func decimal(_ index: Int) -> NMEADecimal? { NMEADecimal.parse(self[index]) }
    func time(_ index: Int) -> NMEATime? { NMEATime.parse(self[index]) }

    /// An unsigned integer field; `nil` when empty, signed, fractional or too large.
    func integer(_ index: Int) -> Int? {
        let field = self[index]
        guard !field.isEmpty, field.count <= 9 else { return nil }
        var value = 0
        for byte in field {
            let digit = byte &- 48
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// A whole number that may carry decimals or a sign (`"45.0"`, `"-3"`), truncated toward zero.
    func wholeNumber(_ index: Int) -> Int? {
        guard let decimal = decimal(index), abs(decimal.integerPart) <= Int64(Int32.max) else { return nil }
        return Int(decimal.integerPart)
    }

    /// The first byte of a field as a letter, `nil` when the field is empty.
    func letter(_ index: Int) -> NMEALetter? {
        let field = self[index]
        return field.isEmpty ? nil : NMEALetter(rawValue: field[0])
    }

    func coordinate(_ valueIndex: Int) -> NMEACoordinate? {
        guard let value = decimal(valueIndex), let hemisphere = letter(valueIndex + 1) else { return nil }
        return NMEACoordinate(value: value, hemisphere: hemisphere.rawValue)
    }

    func string(_ index: Int) -> String {
        String(decoding: self[index], as: UTF8.self)
    }
}

/// Builds a sentence field by field and closes it with `*hh\r\n`.
public struct NMEAWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]
    private var start: Int

    /// Starts a sentence `$<talker><type>` (or `!…` for encapsulated ones) at the end of `buffer`.
    public init(
        appendingTo buffer: [UInt8] = [], start: UInt8 = UInt8(ascii: "$"), talker: Talker, type: String
    ) {
        bytes = buffer
        self.start = bytes.count
        bytes.append(start)
        talker.appendASCII(to: &bytes)
        bytes.append(contentsOf: type.utf8)
    }

    public mutating func field(_ value: NMEADecimal?) {
        bytes.append(UInt8(ascii: ","))
        value?.appendASCII(to: &bytes)
    }

    public mutating func field(_ value: NMEALetter?) {
        bytes.append(UInt8(ascii: ","))
        if let value { bytes.append(value.rawValue) }
    }

    public mutating func field(_ value: NMEATime?) {
        bytes.append(UInt8(ascii: ","))
        value?.appendASCII(to: &bytes)
    }

    /// An integer field, zero-padded to `width` digits.
    public mutating func field(_ value: Int?, width: Int = 1) {
        bytes.append(UInt8(ascii: ","))
        guard let value else { return }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: InlineArray<20, UInt8> = .init(repeating: 48)
        var magnitude = value.magnitude
        var count = 0
        repeat {
            digits[count] = UInt8(truncatingIfNeeded: magnitude % 10) + 48
            magnitude /= 10
            count += 1
        } while magnitude > 0
        count = max(count, min(width, 20))
        for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
    }

    public mutating func field(_ value: String?) {
        bytes.append(UInt8(ascii: ","))
        if let value { bytes.append(contentsOf: value.utf8) }
    }

    /// A latitude (`ddmm.mmmm`) or longitude (`dddmm.mmmm`) with its hemisphere letter, the
    /// degrees zero-padded as receivers send them.
    public mutating func field(_ coordinate: NMEACoordinate?) {
        bytes.append(UInt8(ascii: ","))
        if let coordinate {
            let isLongitude =
                coordinate.hemisphere == UInt8(ascii: "E") || coordinate.hemisphere == UInt8(ascii: "W")
            var digits: [UInt8] = []
            coordinate.value.appendASCII(to: &digits)
            let negative = digits.first == UInt8(ascii: "-")
            if negative { digits.removeFirst() }
            let integerDigits = digits.firstIndex(of: UInt8(ascii: ".")) ?? digits.count
            let width = isLongitude ? 5 : 4
            if negative { bytes.append(UInt8(ascii: "-")) }
            if integerDigits < width {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - integerDigits))
            }
            bytes.append(contentsOf: digits)
        }
        field(coordinate.map { NMEALetter(rawValue: $0.hemisphere) })
    }

    /// Appends `*hh\r\n` and returns the finished buffer.
    public consuming func finish() -> [UInt8] {
        var checksum: UInt8 = 0
        for index in (start + 1)..<bytes.count { checksum ^= bytes[index] }
        bytes.append(UInt8(ascii: "*"))
        bytes.append(hexDigit(checksum >> 4))
        bytes.append(hexDigit(checksum & 0xF))
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

@inline(__always)
func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? nibble + 48 : nibble + 55 }

@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 48
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 55
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 87
    default: nil
    }
}
