// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CNMEAScan

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

    /// Parses the sentence and hands its typed value to `visitor`.
    @inlinable
    public func parse(into visitor: inout some NMEASentenceVisitor) throws(NMEAParseError) {
        try NMEASentence.parse(body: body, start: start, into: &visitor)
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

        /// The largest ``maximumLength`` a framer takes: far beyond any sentence, small enough
        /// that a sentence's buffer can never exhaust memory.
        public static let maximumLengthLimit = 1 << 20

        public init(checksumPolicy: ChecksumPolicy = .required, maximumLength: Int = 1024) {
            precondition(
                (8...Self.maximumLengthLimit).contains(maximumLength), "maximumLength must be 8…1048576")
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
    /// Bytes of the current sentence so far, its start character included.
    private var length = 0
    /// XOR of the current sentence's bytes after the start character so far.
    private var checksum: UInt8 = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        pending.reserveCapacity(min(configuration.maximumLength + 1, 4096))
    }

    /// Feeds `chunk` and calls `body` for each complete sentence in it.
    public mutating func append(
        _ chunk: UnsafeRawBufferPointer, _ body: (FramedSentence) -> Void
    ) {
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let count = chunk.count
        statistics.bytes += count
        var index = 0
        while index < count {
            switch state {
            case .idle:
                // Between sentences: everything up to the next start character but line ends is noise.
                while index < count && !isStart(base[index]) {
                    if !isLineEnd(base[index]) { statistics.skippedBytes += 1 }
                    index += 1
                }
                guard index < count else { return }
                begin()
                index += 1
            case .discarding:
                while index < count && !isLineEnd(base[index]) && !isStart(base[index]) { index += 1 }
                guard index < count else { return }
                if isLineEnd(base[index]) {
                    state = .idle
                    index += 1
                } else {
                    begin()
                    index += 1
                }
            case .inSentence:
                // The sentence runs to the first line end, start character or other byte that
                // cannot be in a sentence; the bytes before it are XORed on the way, sixteen at a
                // time in vector registers (CNMEAScan).
                let runStart = index
                index = Int(cnmea_scan_run(base, index, count, &checksum))
                length += index - runStart
                if length > configuration.maximumLength {
                    statistics[.tooLong] += 1
                    pending.removeAll(keepingCapacity: true)
                    state = .discarding
                    continue
                }
                guard index < count else { break }
                let byte = base[index]
                if isLineEnd(byte) {
                    state = .idle
                    if pending.isEmpty {
                        // The whole sentence, start character included, is in this chunk.
                        deliver(UnsafeBufferPointer(start: base + index - length, count: length), body)
                    } else {
                        pending.append(
                            contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                        pending.withUnsafeBufferPointer { deliver($0, body) }
                        pending.removeAll(keepingCapacity: true)
                    }
                    index += 1
                } else if isStart(byte) {
                    // `$$GPGGA` is a doubled start, not a truncated sentence.
                    if length > 1 { statistics[.truncated] += 1 }
                    pending.removeAll(keepingCapacity: true)
                    begin()
                    index += 1
                } else {
                    statistics[.invalidCharacter] += 1
                    pending.removeAll(keepingCapacity: true)
                    state = .idle
                    index += 1
                }
            }
        }
        if state == .inSentence {
            // Keep what this chunk holds of the unfinished sentence for the next one.
            let inThisChunk = length - pending.count
            pending.append(
                contentsOf: UnsafeBufferPointer(start: base + count - inThisChunk, count: inThisChunk))
        }
    }

    /// Feeds the bytes of `chunk` (an array, a string's UTF-8, …).
    public mutating func append(
        contentsOf chunk: some Sequence<UInt8>, _ body: (FramedSentence) -> Void
    ) {
        let array = Array(chunk)
        array.withUnsafeBytes { append($0, body) }
    }

    /// Ends the input: a last sentence without a line end is delivered if its checksum is valid,
    /// otherwise counted as truncated.
    public mutating func finish(_ body: (FramedSentence) -> Void) {
        defer {
            pending.removeAll(keepingCapacity: true)
            state = .idle
        }
        guard state == .inSentence else { return }
        let line = pending
        // Delivered only with at least two characters after its last `*`.
        guard let star = line.lastIndex(of: UInt8(ascii: "*")), line.count - star >= 3 else {
            if length > 1 { statistics[.truncated] += 1 }
            return
        }
        line.withUnsafeBufferPointer { deliver($0, body) }
    }

    /// A start character: the current sentence, if any, is abandoned and a new one begins.
    private mutating func begin() {
        state = .inSentence
        length = 1
        checksum = 0
        if !pending.isEmpty { pending.removeAll(keepingCapacity: true) }
    }

    /// Checks the checksum of a complete sentence `line` (start character included, line end not)
    /// whose bytes after the start character XOR to `checksum`, and hands it on.
    private mutating func deliver(
        _ line: UnsafeBufferPointer<UInt8>, _ body: (FramedSentence) -> Void
    ) {
        var end = line.count
        var sum = checksum
        while end > 1 && line[end - 1] == UInt8(ascii: " ") {
            end -= 1
            sum ^= UInt8(ascii: " ")
        }
        let start = line[0]
        if end >= 4 && line[end - 3] == UInt8(ascii: "*") {
            let high = line[end - 2]
            let low = line[end - 1]
            sum ^= UInt8(ascii: "*") ^ high ^ low
            guard let highValue = hexValue(high), let lowValue = hexValue(low),
                highValue << 4 | lowValue == sum
            else {
                statistics[.badChecksum] += 1
                return
            }
            statistics.sentences += 1
            body(
                FramedSentence(
                    start: start, body: UnsafeBufferPointer(rebasing: line[1..<(end - 3)]),
                    line: UnsafeBufferPointer(rebasing: line[0..<end]), hasChecksum: true))
            return
        }
        // No `*hh` at the end: a `*` elsewhere is a malformed checksum, none at all a missing one.
        var hasStar = false
        for index in 1..<end where line[index] == UInt8(ascii: "*") { hasStar = true }
        guard !hasStar else {
            statistics[.badChecksum] += 1
            return
        }
        guard configuration.checksumPolicy == .lenient else {
            statistics[.missingChecksum] += 1
            return
        }
        guard end > 1 else { return }
        statistics.sentences += 1
        body(
            FramedSentence(
                start: start, body: UnsafeBufferPointer(rebasing: line[1..<end]),
                line: UnsafeBufferPointer(rebasing: line[0..<end]), hasChecksum: false))
    }
}

@inline(__always)
private func isStart(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") }

@inline(__always)
private func isLineEnd(_ byte: UInt8) -> Bool { byte == 13 || byte == 10 }
