/// Why the framer threw a sentence away.
public enum RejectionReason: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The `*hh` checksum does not match, or is not two hexadecimal digits.
    case badChecksum
    /// No `*hh` checksum, and the policy is ``ChecksumPolicy/required``.
    case missingChecksum
    /// Longer than ``NMEAFramer/Configuration/maximumLength`` before its line ended.
    case tooLong
    /// A new `$` or `!` began before the line ended, or the input ended mid-sentence.
    case truncated
    /// A control or non-ASCII byte inside a sentence (binary data mixed into the stream).
    case invalidCharacter

    public var description: String {
        switch self {
        case .badChecksum: "bad checksum"
        case .missingChecksum: "missing checksum"
        case .tooLong: "too long"
        case .truncated: "truncated"
        case .invalidCharacter: "invalid character"
        }
    }
}

/// Whether a sentence must carry a `*hh` checksum.
public enum ChecksumPolicy: String, Sendable, Hashable, CaseIterable {
    /// A missing or wrong checksum rejects the sentence (the default, as gpsd does).
    case required
    /// A missing checksum is accepted; a wrong one is still rejected.
    case lenient
}

/// What the framer has seen so far.
public struct FramerStatistics: Sendable, Hashable {
    /// Every byte given to the framer.
    public var bytes: Int = 0
    /// Sentences delivered.
    public var sentences: Int = 0
    /// Bytes outside any sentence (binary protocols, noise), line ends not included.
    public var skippedBytes: Int = 0
    private var rejections: InlineArray<5, Int> = .init(repeating: 0)

    public init() {}

    /// How many sentences were rejected for `reason`.
    public subscript(reason: RejectionReason) -> Int {
        get { rejections[reason.rawValue] }
        set { rejections[reason.rawValue] = newValue }
    }

    /// All rejected sentences.
    public var rejected: Int {
        var total = 0
        for index in 0..<5 { total += rejections[index] }
        return total
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.bytes == rhs.bytes, lhs.sentences == rhs.sentences, lhs.skippedBytes == rhs.skippedBytes
        else {
            return false
        }
        return RejectionReason.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
        hasher.combine(sentences)
        for reason in RejectionReason.allCases { hasher.combine(self[reason]) }
    }
}

/// One complete sentence found by the framer. Its buffers are valid only inside the callback that
/// receives it.
public struct FramedSentence {
    /// `$` or `!`.
    public let start: UInt8
    /// The bytes between the start character and the checksum's `*` (or the line end).
    public let body: UnsafeBufferPointer<UInt8>
    /// The whole sentence from the start character, without the line end.
    public let line: UnsafeBufferPointer<UInt8>
    /// Whether the sentence carried a (valid) checksum.
    public let hasChecksum: Bool

    init(start: UInt8, body: UnsafeBufferPointer<UInt8>, line: UnsafeBufferPointer<UInt8>, hasChecksum: Bool)
    {
        self.start = start
        self.body = body
        self.line = line
        self.hasChecksum = hasChecksum
    }

    /// Parses the sentence into a typed value.
    public func parse() throws(NMEAParseError) -> NMEASentence {
        try NMEASentence.parse(body: body, start: start)
    }
}

/// Splits a byte stream into NMEA sentences.
///
/// Bytes arrive in chunks of any size; complete sentences come out, identical however the input
/// was cut. The framer resynchronises on `$` and `!`, accepts CRLF, LF or a lone CR, skips binary
/// data between sentences, and counts every sentence it rejects by reason. It allocates once, for
/// its line buffer, and only copies a sentence that spans two chunks.
public struct NMEAFramer: Sendable {
    /// How the framer judges sentences.
    public struct Configuration: Sendable, Hashable {
        public var checksumPolicy: ChecksumPolicy
        /// The longest sentence accepted, start character to checksum. NMEA says 82, but real
        /// receivers exceed it, so the default is generous.
        public var maximumLength: Int

        public init(checksumPolicy: ChecksumPolicy = .required, maximumLength: Int = 1024) {
            precondition(maximumLength >= 8, "maximumLength must be at least 8")
            self.checksumPolicy = checksumPolicy
            self.maximumLength = maximumLength
        }
    }

    private enum State: Sendable {
        case idle
        case inSentence
        case discarding
    }

    public let configuration: Configuration
    public private(set) var statistics = FramerStatistics()
    private var state = State.idle
    /// The part of the current sentence that arrived in earlier chunks.
    private var pending: [UInt8] = []
    private var length = 0
    private var checksum: UInt8 = 0
    private var checksumBeforeStar: UInt8 = 0
    /// Offset of the last `*` within the current sentence, or -1.
    private var starOffset = -1

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        pending.reserveCapacity(configuration.maximumLength + 1)
    }

    /// Feeds `chunk` and calls `body` for each complete sentence in it.
    public mutating func append(
        _ chunk: UnsafeRawBufferPointer, _ body: (FramedSentence) throws -> Void
    ) rethrows {
        let bytes = chunk.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        statistics.bytes += count
        var index = 0
        // Where the current sentence starts in this chunk (0 when it began in an earlier one).
        var segmentStart = 0
        while index < count {
            let byte = bytes[index]
            switch state {
            case .idle:
                if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") {
                    begin(at: index, segmentStart: &segmentStart)
                } else if byte != 13 && byte != 10 {
                    statistics.skippedBytes += 1
                }
            case .discarding:
                if byte == 13 || byte == 10 {
                    state = .idle
                } else if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") {
                    begin(at: index, segmentStart: &segmentStart)
                }
            case .inSentence:
                if byte == 13 || byte == 10 {
                    state = .idle
                    if pending.isEmpty {
                        try deliver(UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]), body)
                    } else {
                        pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
                        try pending.withUnsafeBufferPointer { try deliver($0, body) }
                        pending.removeAll(keepingCapacity: true)
                    }
                } else if byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") {
                    // `$$GPGGA` is a doubled start, not a truncated sentence.
                    if length > 1 { statistics[.truncated] += 1 }
                    pending.removeAll(keepingCapacity: true)
                    begin(at: index, segmentStart: &segmentStart)
                } else if byte < 0x20 || byte >= 0x7F {
                    statistics[.invalidCharacter] += 1
                    pending.removeAll(keepingCapacity: true)
                    state = .idle
                } else if length >= configuration.maximumLength {
                    statistics[.tooLong] += 1
                    pending.removeAll(keepingCapacity: true)
                    state = .discarding
                } else {
                    if byte == UInt8(ascii: "*") {
                        starOffset = length
                        checksumBeforeStar = checksum
                    }
                    checksum ^= byte
                    length += 1
                }
            }
            index += 1
        }
        if state == .inSentence {
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<count]))
        }
    }

    /// Feeds the bytes of `chunk` (an array, a string's UTF-8, …).
    public mutating func append(
        contentsOf chunk: some Sequence<UInt8>, _ body: (FramedSentence) throws -> Void
    ) rethrows {
        let array = Array(chunk)
        try array.withUnsafeBytes { try append($0, body) }
    }

    /// Ends the input: a last sentence without a line end is delivered if its checksum is valid,
    /// otherwise counted as truncated.
    public mutating func finish(_ body: (FramedSentence) throws -> Void) rethrows {
        defer {
            pending.removeAll(keepingCapacity: true)
            state = .idle
        }
        guard state == .inSentence else { return }
        let hasFullChecksum = starOffset >= 0 && length - starOffset >= 3
        guard hasFullChecksum else {
            if length > 1 { statistics[.truncated] += 1 }
            return
        }
        try pending.withUnsafeBufferPointer { try deliver($0, body) }
    }

    private mutating func begin(at index: Int, segmentStart: inout Int) {
        state = .inSentence
        segmentStart = index
        length = 1
        checksum = 0
        checksumBeforeStar = 0
        starOffset = -1
    }

    /// Checks the checksum of a complete sentence `line` (start character included) and hands it on.
    private mutating func deliver(
        _ line: UnsafeBufferPointer<UInt8>, _ body: (FramedSentence) throws -> Void
    ) rethrows {
        var end = line.count
        while end > 1 && line[end - 1] == UInt8(ascii: " ") { end -= 1 }
        let start = line[0]
        if starOffset >= 0 {
            let hexCount = end - starOffset - 1
            guard hexCount == 2, let high = hexValue(line[starOffset + 1]),
                let low = hexValue(line[starOffset + 2]),
                high << 4 | low == checksumBeforeStar
            else {
                statistics[.badChecksum] += 1
                return
            }
            statistics.sentences += 1
            let sentence = FramedSentence(
                start: start, body: UnsafeBufferPointer(rebasing: line[1..<starOffset]),
                line: UnsafeBufferPointer(rebasing: line[0..<end]), hasChecksum: true)
            try body(sentence)
        } else {
            guard configuration.checksumPolicy == .lenient else {
                statistics[.missingChecksum] += 1
                return
            }
            guard end > 1 else { return }
            statistics.sentences += 1
            let sentence = FramedSentence(
                start: start, body: UnsafeBufferPointer(rebasing: line[1..<end]),
                line: UnsafeBufferPointer(rebasing: line[0..<end]), hasChecksum: false)
            try body(sentence)
        }
    }
}
