// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// The first half of a ``FixDecoder``: bytes in, parsed sentences out, for a decode split over two
/// threads. One thread frames and parses a log with a reader while another assembles the
/// sentences of the chunk before with ``FixDecoder/decode(_:_:)-(ParsedSentences,_)``: each half
/// is about half of decoding's work, so a long log decodes in little more than half the time on
/// two processors.
///
/// What it hands on is what a ``FixDecoder`` would have assembled, in the same order; its counts
/// (``framerStatistics``, ``unparsable``) are the ones the decoder would have kept.
public struct SentenceReader: Sendable {
    public private(set) var framer: NMEAFramer
    /// Sentences that framed but whose address was not a talker and type.
    public private(set) var unparsable = 0

    public init(configuration: NMEAFramer.Configuration = .init()) {
        framer = NMEAFramer(configuration: configuration)
    }

    /// What the framer saw so far.
    public var framerStatistics: FramerStatistics { framer.statistics }

    /// Frames and parses `chunk`, adding each sentence to `sentences`.
    public mutating func read(_ chunk: UnsafeRawBufferPointer, into sentences: inout ParsedSentences) {
        var failed = 0
        framer.append(chunk) { Self.parse($0, into: &sentences, failed: &failed) }
        unparsable += failed
    }

    /// Ends the input: a last sentence without its line end is read.
    public mutating func finish(into sentences: inout ParsedSentences) {
        var failed = 0
        framer.finish { Self.parse($0, into: &sentences, failed: &failed) }
        unparsable += failed
    }

    /// `framed` parsed into `sentences`, or counted in `failed`.
    private static func parse(
        _ framed: FramedSentence, into sentences: inout ParsedSentences, failed: inout Int
    ) {
        do throws(NMEAParseError) {
            try framed.parse(into: &sentences)
        } catch {
            failed += 1
        }
    }
}

/// Parsed sentences in their order, kept by type: the sentences a receiver sends most, whose
/// values are plain bytes, each in an array of its own type (copied in and out as they are, with
/// nothing counted or released), the rest as `NMEASentence`s.
public struct ParsedSentences: Sendable, NMEASentenceVisitor {
    /// Each sentence's type, in order: which array holds its value.
    enum Kind: UInt8 {
        case rmc, gga, gsa, gsv, vtg, gll, gns, gst, zda, other
    }

    var kinds: [Kind] = []
    var rmc: [RMC] = []
    var gga: [GGA] = []
    var gsa: [GSA] = []
    var gsv: [GSV] = []
    var vtg: [VTG] = []
    var gll: [GLL] = []
    var gns: [GNS] = []
    var gst: [GST] = []
    var zda: [ZDA] = []
    var other: [NMEASentence] = []

    public init() {}

    /// Whether it holds no sentence.
    public var isEmpty: Bool { kinds.isEmpty }

    /// Empties it, keeping its storage for the next chunk.
    public mutating func removeAll() {
        kinds.removeAll(keepingCapacity: true)
        rmc.removeAll(keepingCapacity: true)
        gga.removeAll(keepingCapacity: true)
        gsa.removeAll(keepingCapacity: true)
        gsv.removeAll(keepingCapacity: true)
        vtg.removeAll(keepingCapacity: true)
        gll.removeAll(keepingCapacity: true)
        gns.removeAll(keepingCapacity: true)
        gst.removeAll(keepingCapacity: true)
        zda.removeAll(keepingCapacity: true)
        other.removeAll(keepingCapacity: true)
    }

    /// Keeps `value` in `values`, its type's array, and its type in the order.
    private mutating func keep<Value>(
        _ value: Value, as kind: Kind, in values: WritableKeyPath<Self, [Value]>
    ) {
        kinds.append(kind)
        self[keyPath: values].append(value)
    }

    public mutating func visit(_ sentence: NMEASentence) { keep(sentence, as: .other, in: \.other) }
    public mutating func visit(_ rmc: RMC) { keep(rmc, as: .rmc, in: \.rmc) }
    public mutating func visit(_ gga: GGA) { keep(gga, as: .gga, in: \.gga) }
    public mutating func visit(_ gsa: GSA) { keep(gsa, as: .gsa, in: \.gsa) }
    public mutating func visit(_ gsv: GSV) { keep(gsv, as: .gsv, in: \.gsv) }
    public mutating func visit(_ vtg: VTG) { keep(vtg, as: .vtg, in: \.vtg) }
    public mutating func visit(_ gll: GLL) { keep(gll, as: .gll, in: \.gll) }
    public mutating func visit(_ gns: GNS) { keep(gns, as: .gns, in: \.gns) }
    public mutating func visit(_ gst: GST) { keep(gst, as: .gst, in: \.gst) }
    public mutating func visit(_ zda: ZDA) { keep(zda, as: .zda, in: \.zda) }

    /// Hands each sentence, in order, to `visitor`: each type's own `visit`, as parsing would.
    func replay(into visitor: inout some NMEASentenceVisitor) {
        var next = InlineArray<10, Int>(repeating: 0)
        for kind in kinds {
            let index = next[Int(kind.rawValue)]
            next[Int(kind.rawValue)] = index &+ 1
            switch kind {
            case .rmc: visitor.visit(rmc[index])
            case .gga: visitor.visit(gga[index])
            case .gsa: visitor.visit(gsa[index])
            case .gsv: visitor.visit(gsv[index])
            case .vtg: visitor.visit(vtg[index])
            case .gll: visitor.visit(gll[index])
            case .gns: visitor.visit(gns[index])
            case .gst: visitor.visit(gst[index])
            case .zda: visitor.visit(zda[index])
            case .other: visitor.visit(other[index])
            }
        }
    }
}
