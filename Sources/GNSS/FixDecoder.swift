// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

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
    /// Receiver dates moved by whole 1024-week periods (GPS week-number rollovers undone).
    public var rollovers = RolloverCorrections()
    /// What the rollover correction went by, in words, when a source knows (a log's header, an
    /// option); `nil` for the default.
    public var referenceBasis: String?
    /// Sentences of each type of the catalogue, by its raw value.
    private var typed = [Int](repeating: 0, count: NMEASentenceType.allCases.count)
    private var others: [String: Int] = [:]

    public init() {}

    mutating func count(_ sentence: NMEASentence) {
        switch sentence {
        case .proprietary(let sentence): others[sentence.address, default: 0] += 1
        case .unknown(let sentence): others[sentence.type, default: 0] += 1
        default: if let type = sentence.sentenceType { count(type) }
        }
    }

    mutating func count(_ type: NMEASentenceType) { typed[Int(type.rawValue)] += 1 }

    /// Sentences by type (`"GGA"`, or the address of proprietary ones such as `"PGRME"`), most
    /// frequent first.
    public var sentencesByType: [(type: String, count: Int)] {
        var result: [(type: String, count: Int)] = []
        for type in NMEASentenceType.allCases where typed[Int(type.rawValue)] > 0 {
            result.append((type.name, typed[Int(type.rawValue)]))
        }
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

/// Bytes in, fixes out: an `NMEAFramer`, the sentence parser and a ``FixAssembler`` in one
/// synchronous value.
public struct FixDecoder: Sendable {
    public private(set) var framer: NMEAFramer
    private var core: Core

    /// The assembler and the counts: everything the framer feeds.
    private struct Core: Sendable {
        var assembler: FixAssembler
        var counts = DecodeStatistics()

        /// Runs `body` with a visitor that feeds this core and hands fixes to `emit`.
        mutating func feeding(to emit: (Fix) -> Void, _ body: (inout Feeding) -> Void) {
            withoutActuallyEscaping(emit) { emit in
                withUnsafeMutablePointer(to: &self) { core in
                    var feeding = Feeding(core: core, emit: emit)
                    body(&feeding)
                }
            }
        }
    }

    /// The visitor the parser hands each sentence to, as its typed value (no sentence is copied
    /// into an `NMEASentence`). It lives only while ``FixDecoder`` feeds its core; holding `emit`
    /// as a constant lets every sentence pass it on without retaining it.
    private struct Feeding: NMEASentenceVisitor {
        let core: UnsafeMutablePointer<Core>
        let emit: (Fix) -> Void

        mutating func handle(_ framed: FramedSentence) {
            do {
                try framed.parse(into: &self)
            } catch {
                core.pointee.counts.unparsable += 1
            }
        }

        func visit(_ sentence: NMEASentence) {
            core.pointee.counts.count(sentence)
            core.pointee.assembler.add(sentence, emit)
        }

        func visit(_ rmc: RMC) {
            core.pointee.counts.count(.rmc)
            core.pointee.assembler.add(rmc, emit)
        }

        func visit(_ gga: GGA) {
            core.pointee.counts.count(.gga)
            core.pointee.assembler.add(gga, emit)
        }

        func visit(_ gsa: GSA) {
            core.pointee.counts.count(.gsa)
            core.pointee.assembler.add(gsa, emit)
        }

        func visit(_ gsv: GSV) {
            core.pointee.counts.count(.gsv)
            core.pointee.assembler.add(gsv, emit)
        }

        func visit(_ vtg: VTG) {
            core.pointee.counts.count(.vtg)
            core.pointee.assembler.add(vtg, emit)
        }

        func visit(_ gll: GLL) {
            core.pointee.counts.count(.gll)
            core.pointee.assembler.add(gll, emit)
        }

        func visit(_ gns: GNS) {
            core.pointee.counts.count(.gns)
            core.pointee.assembler.add(gns, emit)
        }

        func visit(_ gst: GST) {
            core.pointee.counts.count(.gst)
            core.pointee.assembler.add(gst, emit)
        }

        func visit(_ zda: ZDA) {
            core.pointee.counts.count(.zda)
            core.pointee.assembler.add(zda, emit)
        }

        func visit(_ gbs: GBS) {
            core.pointee.counts.count(.gbs)
            core.pointee.assembler.add(gbs, emit)
        }

        func visit(_ hdt: HDT) {
            core.pointee.counts.count(.hdt)
            core.pointee.assembler.add(hdt, emit)
        }

        func visit(_ ths: THS) {
            core.pointee.counts.count(.ths)
            core.pointee.assembler.add(ths, emit)
        }

        func visit(_ txt: TXT) {
            core.pointee.counts.count(.txt)
            core.pointee.assembler.add(txt, emit)
        }

        func visit(_ dtm: DTM) {
            core.pointee.counts.count(.dtm)
            core.pointee.assembler.add(dtm, emit)
        }

        func visit(_ pgrme: PGRME) {
            core.pointee.counts.count(.pgrme)
            core.pointee.assembler.add(pgrme, emit)
        }

        func visit(_ pgrmz: PGRMZ) {
            core.pointee.counts.count(.pgrmz)
            core.pointee.assembler.add(pgrmz, emit)
        }

        func flush() { core.pointee.assembler.flush(emit) }
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
        result.fixes = core.assembler.fixCount
        result.positionFixes = core.assembler.positionFixCount
        result.rollovers = core.assembler.rollovers
        return result
    }

    /// Feeds a chunk of bytes; calls `emit` for every completed epoch.
    public mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (Fix) -> Void) {
        Self.feed(&framer, &core, chunk, emit)
    }

    private static func feed(
        _ framer: inout NMEAFramer, _ core: inout Core, _ chunk: UnsafeRawBufferPointer, _ emit: (Fix) -> Void
    ) {
        core.feeding(to: emit) { feeding in framer.append(chunk) { framed in feeding.handle(framed) } }
    }

    private static func finish(_ framer: inout NMEAFramer, _ core: inout Core, _ emit: (Fix) -> Void) {
        core.feeding(to: emit) { feeding in
            framer.finish { framed in feeding.handle(framed) }
            feeding.flush()
        }
    }

    /// Feeds bytes from any collection.
    public mutating func decode(_ bytes: some Sequence<UInt8>, _ emit: (Fix) -> Void) {
        let array = Array(bytes)
        array.withUnsafeBytes { decode($0, emit) }
    }

    /// Feeds one parsed sentence directly, bypassing the framer.
    public mutating func decode(sentence: NMEASentence, _ emit: (Fix) -> Void) {
        core.feeding(to: emit) { feeding in feeding.visit(sentence) }
    }

    /// Assembles sentences a ``SentenceReader`` parsed, in their order; calls `emit` for every
    /// completed epoch. The same fixes and counts as decoding their bytes, but the framer's and
    /// the unparsable sentences', which the reader keeps.
    public mutating func decode(_ sentences: ParsedSentences, _ emit: (Fix) -> Void) {
        core.feeding(to: emit) { feeding in sentences.replay(into: &feeding) }
    }

    /// Ends the input: the last epoch is handed out.
    public mutating func finish(_ emit: (Fix) -> Void) {
        Self.finish(&framer, &core, emit)
    }
}

extension FixDecoder: IncrementalDecoder {
    /// Feeds a chunk of bytes; the same as ``decode(_:_:)-(UnsafeRawBufferPointer,_)``.
    public mutating func append(_ chunk: UnsafeRawBufferPointer, _ output: (Fix) -> Void) {
        decode(chunk, output)
    }
}
