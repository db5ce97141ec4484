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
        case .rmc: count(.rmc)
        case .gga: count(.gga)
        case .gsa: count(.gsa)
        case .gsv: count(.gsv)
        case .vtg: count(.vtg)
        case .gll: count(.gll)
        case .gns: count(.gns)
        case .gst: count(.gst)
        case .zda: count(.zda)
        case .gbs: count(.gbs)
        case .hdt: count(.hdt)
        case .txt: count(.txt)
        case .dtm: count(.dtm)
        case .proprietary(let sentence): others[sentence.address, default: 0] += 1
        case .unknown(let sentence): others[sentence.type, default: 0] += 1
        }
    }

    /// The standard sentence types, in the order of `typedNames`.
    enum Typed: Int {
        case rmc, gga, gsa, gsv, vtg, gll, gns, gst, zda, gbs, hdt, txt, dtm
    }

    mutating func count(_ type: Typed) { typed[type.rawValue] += 1 }

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

    /// The sentence parser, the assembler and the counts: everything the framer feeds. It visits
    /// each sentence as its typed value, so no sentence is copied into an `NMEASentence`.
    private struct Core: Sendable, NMEASentenceVisitor {
        var assembler: FixAssembler
        var counts = DecodeStatistics()
        /// Where fixes go; set only while ``FixDecoder`` is feeding this core.
        nonisolated(unsafe) var emit: ((Fix) -> Void)?

        /// Runs `body` with fixes going to `emit`.
        mutating func emitting(to emit: (Fix) -> Void, _ body: (inout Core) -> Void) {
            withoutActuallyEscaping(emit) { emit in
                self.emit = emit
                body(&self)
                self.emit = nil
            }
        }

        mutating func handle(_ framed: FramedSentence) {
            do {
                try framed.parse(into: &self)
            } catch {
                counts.unparsable += 1
            }
        }

        mutating func visit(_ sentence: NMEASentence) {
            counts.count(sentence)
            Self.assemble(&assembler, &counts, emit!) { assembler, deliver in assembler.add(sentence, deliver)
            }
        }

        mutating func visit(_ rmc: RMC) { add(rmc, .rmc) { $0.add(rmc, $1) } }
        mutating func visit(_ gga: GGA) { add(gga, .gga) { $0.add(gga, $1) } }
        mutating func visit(_ gsa: GSA) { add(gsa, .gsa) { $0.add(gsa, $1) } }
        mutating func visit(_ gsv: GSV) { add(gsv, .gsv) { $0.add(gsv, $1) } }
        mutating func visit(_ vtg: VTG) { add(vtg, .vtg) { $0.add(vtg, $1) } }
        mutating func visit(_ gll: GLL) { add(gll, .gll) { $0.add(gll, $1) } }
        mutating func visit(_ gns: GNS) { add(gns, .gns) { $0.add(gns, $1) } }
        mutating func visit(_ gst: GST) { add(gst, .gst) { $0.add(gst, $1) } }
        mutating func visit(_ zda: ZDA) { add(zda, .zda) { $0.add(zda, $1) } }
        mutating func visit(_ gbs: GBS) { add(gbs, .gbs) { $0.add(gbs, $1) } }
        mutating func visit(_ hdt: HDT) { add(hdt, .hdt) { $0.add(hdt, $1) } }
        mutating func visit(_ txt: TXT) { add(txt, .txt) { $0.add(txt, $1) } }
        mutating func visit(_ dtm: DTM) { add(dtm, .dtm) { $0.add(dtm, $1) } }

        @inline(__always)
        private mutating func add<Sentence>(
            _ sentence: Sentence, _ type: DecodeStatistics.Typed,
            _ process: (inout FixAssembler, (Fix) -> Void) -> Void
        ) {
            counts.count(type)
            Self.assemble(&assembler, &counts, emit!, process)
        }

        mutating func flush() {
            Self.assemble(&assembler, &counts, emit!) { assembler, deliver in assembler.flush(deliver) }
        }

        @inline(__always)
        private static func assemble(
            _ assembler: inout FixAssembler, _ counts: inout DecodeStatistics,
            _ emit: @escaping (Fix) -> Void,
            _ process: (inout FixAssembler, (Fix) -> Void) -> Void
        ) {
            process(&assembler) { fix in
                counts.fixes += 1
                if fix.hasPosition { counts.positionFixes += 1 }
                emit(fix)
            }
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
        core.emitting(to: emit) { core in framer.append(chunk) { framed in core.handle(framed) } }
    }

    private static func finish(_ framer: inout NMEAFramer, _ core: inout Core, _ emit: (Fix) -> Void) {
        core.emitting(to: emit) { core in
            framer.finish { framed in core.handle(framed) }
            core.flush()
        }
    }

    /// Feeds bytes from any collection.
    public mutating func decode(_ bytes: some Sequence<UInt8>, _ emit: (Fix) -> Void) {
        let array = Array(bytes)
        array.withUnsafeBytes { decode($0, emit) }
    }

    /// Feeds one parsed sentence directly, bypassing the framer.
    public mutating func decode(sentence: NMEASentence, _ emit: (Fix) -> Void) {
        core.emitting(to: emit) { core in core.visit(sentence) }
    }

    /// Ends the input: the last epoch is handed out.
    public mutating func finish(_ emit: (Fix) -> Void) {
        Self.finish(&framer, &core, emit)
    }
}
