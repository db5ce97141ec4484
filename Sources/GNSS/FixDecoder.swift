import NMEA

/// Counts of what a decoder has seen.
public struct DecodeStatistics: Sendable, Hashable {
    /// What the framer saw: bytes, sentences, rejections by reason.
    public var framer = FramerStatistics()
    /// Sentences that framed but whose address was not a talker and type.
    public var unparsable = 0
    /// Epochs assembled into fixes.
    public var fixes = 0
    /// Fixes with a 2D or 3D position.
    public var positionFixes = 0
    /// Bytes read from the source, set by sources that filter their input before framing
    /// (a log's comment lines); `nil` when every byte went to the framer.
    public var bytesRead: Int?
    /// `#` comment lines a log source removed.
    public var commentLines = 0
    private var typed: InlineArray<13, Int> = .init(repeating: 0)
    private var others: [String: Int] = [:]

    public init() {}

    mutating func count(_ sentence: NMEASentence) {
        switch sentence {
        case .rmc: typed[0] += 1
        case .gga: typed[1] += 1
        case .gsa: typed[2] += 1
        case .gsv: typed[3] += 1
        case .vtg: typed[4] += 1
        case .gll: typed[5] += 1
        case .gns: typed[6] += 1
        case .gst: typed[7] += 1
        case .zda: typed[8] += 1
        case .gbs: typed[9] += 1
        case .hdt: typed[10] += 1
        case .txt: typed[11] += 1
        case .dtm: typed[12] += 1
        case .proprietary(let sentence): others[sentence.address, default: 0] += 1
        case .unknown(let sentence): others[sentence.type, default: 0] += 1
        }
    }

    private static let typedNames = [
        "RMC", "GGA", "GSA", "GSV", "VTG", "GLL", "GNS", "GST", "ZDA", "GBS", "HDT", "TXT", "DTM",
    ]

    /// Sentences by type (`"GGA"`, or the address of proprietary ones such as `"PGRME"`), most
    /// frequent first.
    public var sentencesByType: [(type: String, count: Int)] {
        var result: [(type: String, count: Int)] = []
        for index in 0..<13 where typed[index] > 0 { result.append((Self.typedNames[index], typed[index])) }
        for (type, count) in others { result.append((type, count)) }
        return result.sorted { $0.count != $1.count ? $0.count > $1.count : $0.type < $1.type }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.framer == rhs.framer && lhs.unparsable == rhs.unparsable && lhs.fixes == rhs.fixes
            && lhs.positionFixes == rhs.positionFixes
            && lhs.sentencesByType.elementsEqual(rhs.sentencesByType, by: ==)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(framer)
        hasher.combine(fixes)
    }
}

/// Bytes in, fixes out: an ``NMEAFramer``, the sentence parser and a ``FixAssembler`` in one
/// synchronous value.
public struct FixDecoder: Sendable {
    public private(set) var framer: NMEAFramer
    private var core: Core

    /// The sentence parser, the assembler and the counts: everything the framer feeds.
    private struct Core: Sendable {
        var assembler: FixAssembler
        var counts = DecodeStatistics()

        mutating func handle(_ framed: FramedSentence, _ emit: (Fix) -> Void) {
            do {
                let sentence = try framed.parse()
                add(sentence, emit)
            } catch {
                counts.unparsable += 1
            }
        }

        mutating func add(_ sentence: NMEASentence, _ emit: (Fix) -> Void) {
            counts.count(sentence)
            Self.assemble(&assembler, &counts, sentence, emit)
        }

        mutating func flush(_ emit: (Fix) -> Void) {
            Self.assemble(&assembler, &counts, nil, emit)
        }

        private static func assemble(
            _ assembler: inout FixAssembler, _ counts: inout DecodeStatistics, _ sentence: NMEASentence?,
            _ emit: (Fix) -> Void
        ) {
            let deliver = { (fix: Fix) in
                counts.fixes += 1
                if fix.hasPosition { counts.positionFixes += 1 }
                emit(fix)
            }
            if let sentence { assembler.add(sentence, deliver) } else { assembler.flush(deliver) }
        }
    }

    public init(
        configuration: NMEAFramer.Configuration = .init(),
        referenceDate: ReferenceDate? = FixAssembler.defaultReferenceDate
    ) {
        framer = NMEAFramer(configuration: configuration)
        core = Core(assembler: FixAssembler(referenceDate: referenceDate))
    }

    /// The assembler, e.g. to set its reference date once a log header has named one.
    public var assembler: FixAssembler {
        get { core.assembler }
        set { core.assembler = newValue }
    }

    /// Everything counted so far.
    public var statistics: DecodeStatistics {
        var result = core.counts
        result.framer = framer.statistics
        return result
    }

    /// Feeds a chunk of bytes; calls `emit` for every completed epoch.
    public mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (Fix) -> Void) {
        Self.feed(&framer, &core, chunk, emit)
    }

    private static func feed(
        _ framer: inout NMEAFramer, _ core: inout Core, _ chunk: UnsafeRawBufferPointer, _ emit: (Fix) -> Void
    ) {
        framer.append(chunk) { framed in core.handle(framed, emit) }
    }

    private static func finish(_ framer: inout NMEAFramer, _ core: inout Core, _ emit: (Fix) -> Void) {
        framer.finish { framed in core.handle(framed, emit) }
        core.flush(emit)
    }

    /// Feeds bytes from any collection.
    public mutating func decode(_ bytes: some Sequence<UInt8>, _ emit: (Fix) -> Void) {
        let array = Array(bytes)
        array.withUnsafeBytes { decode($0, emit) }
    }

    /// Feeds one parsed sentence directly, bypassing the framer.
    public mutating func decode(sentence: NMEASentence, _ emit: (Fix) -> Void) {
        core.add(sentence, emit)
    }

    /// Ends the input: the last epoch is handed out.
    public mutating func finish(_ emit: (Fix) -> Void) {
        Self.finish(&framer, &core, emit)
    }
}
