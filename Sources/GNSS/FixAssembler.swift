// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// Merges the sentences of each receiver epoch into one ``Fix``.
///
/// Sentences of one epoch (RMC, GGA, GSA×n, GSV×n, VTG, GST, …) arrive one after another. A
/// change of the time of day starts a new epoch. As gpsd does, the assembler learns which timed
/// sentence types come last before the time changes ("enders"); the epoch is reported at them and
/// at the untimed sentences that follow them. The assembler remembers the kind of sentence (type,
/// talker, and for GSV the part) at which the previous epoch was last reported and hands out the
/// fix as soon as that sentence arrives, so a live receiver's fix is not held back until the next
/// epoch begins. When a sentence of an ending type still brings fix data after that hand-out (a
/// receiver that sends RMC at 1 Hz among GGAs at 10 Hz), the assembler stops handing fixes out
/// early for a while and lets each epoch close first, so that such data is not left out. An epoch
/// whose ending sentence never comes is handed out when the next one starts, and ``flush(_:)``
/// closes the last one at the end of input. Time is an input: the assembler reads no clock.
///
/// The per-sentence rules (which sentence may set or keep the fix mode, when a position counts,
/// how speed and climb are derived when the receiver gives none) follow gpsd, so that fixes agree
/// with gpsd's reports for the same log.
public struct FixAssembler: Sendable {
    /// What is known of the true date, used to undo GPS week-number rollovers (a receiver that
    /// lost 1024 weeks reports a date 19.6 years early). `nil` turns the correction off.
    public var referenceDate: ReferenceDate? {
        get { dates.referenceDate }
        set { dates.referenceDate = newValue }
    }

    /// The default: this version's release date as a lower bound. No live receiver's true date is
    /// earlier, so a receiver that lost 1024 weeks is put right. A log recorded more than about
    /// ten years before it and replayed without its date is moved forward too (as gpsd does);
    /// give such logs their date.
    public static let defaultReferenceDate = ReferenceDate.notBefore(CivilDate(year: 2026, month: 11, day: 1))

    /// How many fixes have been handed out.
    public private(set) var fixCount = 0
    /// How many of them had a position.
    private(set) var positionFixCount = 0
    /// Receiver dates moved by the rollover correction so far.
    public var rollovers: RolloverCorrections { dates.rollovers }

    // The parts: epoch boundaries, the running date, gpsd's sentence rules, the error model.
    private var epochs = EpochDetector()
    private var dates: DateResolver
    private var rules = GPSDSentenceRules()
    private var model = ErrorModel()

    // The epoch being built: the fix (gpsd's gpsdata.fix) and what else the epoch collects.
    private var current = Fix()
    private var dop = DOP()
    private var sentenceCount = 0
    private var noise: NoiseStatistics?
    private var receiverErrors: ErrorEstimates?
    private var sky = SkyView()
    /// The storage of the last fix's satellites, used again once the fix is gone.
    private var satelliteStorage: [Satellite] = []

    public init(referenceDate: ReferenceDate? = FixAssembler.defaultReferenceDate) {
        dates = DateResolver(referenceDate: referenceDate)
    }

    /// Adds one sentence; calls `emit` for each epoch it completes (at most two: the previous
    /// one, when this sentence starts a new epoch, and this one, when it ends it).
    public mutating func add(_ sentence: NMEASentence, _ emit: (Fix) -> Void) {
        switch sentence {
        case .gga(let gga): add(gga, emit)
        case .rmc(let rmc): add(rmc, emit)
        case .gll(let gll): add(gll, emit)
        case .gns(let gns): add(gns, emit)
        case .gsa(let gsa): add(gsa, emit)
        case .gsv(let gsv): add(gsv, emit)
        case .vtg(let vtg): add(vtg, emit)
        case .zda(let zda): add(zda, emit)
        case .gst(let gst): add(gst, emit)
        case .gbs(let gbs): add(gbs, emit)
        case .hdt(let hdt): add(hdt, emit)
        case .ths(let ths): add(ths, emit)
        case .pgrme(let pgrme): add(pgrme, emit)
        case .pgrmz(let pgrmz): add(pgrmz, emit)
        case .proprietary(let proprietary):
            add(proprietary, emit) { _, proprietary, step in
                step.kindKey = GPSDSentenceRules.otherKindKey(proprietary.address)
                step.bringsData = false
            }
        case .unknown(let unknown):
            add(unknown, emit) { assembler, unknown, step in
                step.bringsData = false
                // Instruments sharing a multiplexed bus (depth sounders, wind, compasses) do not
                // delimit the receiver's epochs; only satellite-system talkers do.
                if unknown.talker.constellation != nil || unknown.talker == .gnss {
                    step.kindKey =
                        GPSDSentenceRules.otherKindKey(unknown.type) ^ UInt32(unknown.talker.rawValue)
                }
            }
        case .txt(let txt): add(txt, emit)
        case .dtm(let dtm): add(dtm, emit)
        }
    }

    // The typed entry points of `add(_:_:)`, for decoders that never wrap sentences in
    // `NMEASentence`.

    mutating func add(_ gga: GGA, _ emit: (Fix) -> Void) {
        add(gga, emit) { $0.rules.gga($1, &$2, &$0.dates) }
    }

    mutating func add(_ rmc: RMC, _ emit: (Fix) -> Void) {
        add(rmc, emit) {
            $0.rules.rmc(
                $1, &$2, &$0.dates, current: ErrorModel.State($0.current), lastFixMode: $0.model.lastFix.mode)
        }
    }

    mutating func add(_ gll: GLL, _ emit: (Fix) -> Void) {
        add(gll, emit) {
            $0.rules.gll($1, &$2, &$0.dates, current: ErrorModel.State($0.current), oldFix: $0.model.oldFix)
        }
    }

    mutating func add(_ gns: GNS, _ emit: (Fix) -> Void) {
        add(gns, emit) { $0.rules.gns($1, &$2, &$0.dates) }
    }

    mutating func add(_ gsa: GSA, _ emit: (Fix) -> Void) {
        add(gsa, emit) { $0.rules.gsa($1, &$2, &$0.sky) }
    }

    mutating func add(_ gsv: GSV, _ emit: (Fix) -> Void) {
        // Most sentences of a multi-constellation epoch are GSV, and once the epoch has a time a
        // GSV can only add to the sky view and end the sentence: of `complete(_:_:)` it needs no
        // more than that.
        guard epochs.isTimed else {
            add(gsv, emit) { $0.rules.gsv($1, &$2, &$0.sky) }
            return
        }
        let more = GPSDSentenceRules.hasMoreParts(gsv)
        sky.add(gsv)
        rules.noteSentence(.gsv)
        endSentence(
            kindKey: GPSDSentenceRules.gsvKindKey(gsv), isReportPoint: !more && epochs.followsEnder,
            more: more,
            emit)
    }

    mutating func add(_ vtg: VTG, _ emit: (Fix) -> Void) { add(vtg, emit) { $0.rules.vtg($1, &$2) } }

    mutating func add(_ zda: ZDA, _ emit: (Fix) -> Void) {
        add(zda, emit) { $0.rules.zda($1, &$2, &$0.dates) }
    }

    mutating func add(_ gst: GST, _ emit: (Fix) -> Void) {
        add(gst, emit) { $0.noise = $0.rules.gst($1, &$2) }
    }

    mutating func add(_ gbs: GBS, _ emit: (Fix) -> Void) {
        add(gbs, emit) { $0.rules.gbs($1, &$2, &$0.dates, &$0.receiverErrors) }
    }

    mutating func add(_ hdt: HDT, _ emit: (Fix) -> Void) {
        add(hdt, emit) { _, hdt, step in
            step.kindKey = GPSDSentenceRules.kindKey(.hdt, hdt.talker)
            if let heading = hdt.heading { step.new.heading = heading.doubleValue }
        }
    }

    /// THS: the same true heading as HDT, unless its mode says it is not valid.
    mutating func add(_ ths: THS, _ emit: (Fix) -> Void) {
        add(ths, emit) { _, ths, step in
            step.kindKey = GPSDSentenceRules.kindKey(.ths, ths.talker)
            if let heading = ths.validHeading { step.new.heading = heading.doubleValue }
        }
    }

    mutating func add(_ txt: TXT, _ emit: (Fix) -> Void) {
        add(txt, emit) { _, txt, step in
            step.kindKey = GPSDSentenceRules.kindKey(.txt, txt.talker)
            step.bringsData = false
        }
    }

    mutating func add(_ dtm: DTM, _ emit: (Fix) -> Void) {
        add(dtm, emit) { _, dtm, step in
            step.kindKey = GPSDSentenceRules.kindKey(.dtm, dtm.talker)
            step.bringsData = false
        }
    }

    mutating func add(_ pgrme: PGRME, _ emit: (Fix) -> Void) {
        add(pgrme, emit) { $0.rules.pgrme($1, &$2, &$0.receiverErrors) }
    }

    mutating func add(_ pgrmz: PGRMZ, _ emit: (Fix) -> Void) { add(pgrmz, emit) { $0.rules.pgrmz($1, &$2) } }

    /// Lets `process` fill a step with what `sentence` brings, then completes it.
    @inline(__always)
    private mutating func add<Sentence>(
        _ sentence: Sentence, _ emit: (Fix) -> Void,
        _ process: (inout FixAssembler, Sentence, inout Step) -> Void
    ) {
        var step = Step()
        process(&self, sentence, &step)
        complete(&step, emit)
    }

    /// What every sentence goes through once its own rule has filled `step`: epoch boundaries,
    /// the merge, the error model and the hand-out.
    private mutating func complete(_ step: inout Step, _ emit: (Fix) -> Void) {
        rules.noteSentence(step.tag)
        if step.mask.contains(.time) { step.new.time = dates.resolvedTime() }
        let (newTime, isReportPoint) = epochs.place(
            stamp: step.stamp, tag: step.tag, bringsData: step.bringsData, more: step.gsxMore)

        // Do not downgrade a held 3D fix (RMC and GLL do not say 2D or 3D).
        if step.mask.contains(.mode), current.mode == .threeDimensional, step.new.mode != .noFix,
            model.lastFix.hasAltitude || model.oldFix.hasAltitude
        {
            step.new.mode = current.mode
        }

        // Epoch boundaries: a new time of day, or (while no time is known) a sentence seen twice.
        if newTime || epochs.repeatsKind(step.kindKey, stamped: step.stamp != nil) {
            closeEpoch(emit)
            step.mask.insert(.clear)
            if !step.mask.contains(.dop) { dop = DOP() }
            current = Fix()
        }
        epochs.enter(step.kindKey, stamped: step.stamp != nil)
        // A sentence's DOPs belong to its own epoch, not to the one it closed. They are taken
        // whatever the mask says: a GSA whose mask is emptied still gives its DOPs.
        step.dop.apply(to: &dop)
        // A sentence that changes nothing in the fix (a GSV, a GSA repeating the mode) leaves it
        // as the error model left it: running the model again would give the same.
        let bringsFixData = !step.mask.isDisjoint(with: .fixData)
        if !step.mask.isEmpty || step.new.setsUnmaskedValues {
            let changed = merge(&step)
            if changed || step.mask.contains(.clear) { model.apply(to: &current) }
            if changed, bringsFixData { epochs.dataChanged(atReportPoint: isReportPoint) }
        }
        if bringsFixData { epochs.noteData() }
        endSentence(kindKey: step.kindKey, isReportPoint: isReportPoint, more: step.gsxMore, emit)
    }

    /// The end of every sentence: counts it and hands out the epoch when the detector says so.
    private mutating func endSentence(
        kindKey key: UInt32?, isReportPoint: Bool, more: Bool, _ emit: (Fix) -> Void
    ) {
        sentenceCount += 1
        if epochs.endSentence(kindKey: key, isReportPoint: isReportPoint, more: more) { handOut(emit) }
    }

    /// Ends the input: hands out the epoch in progress, if it was not handed out already.
    public mutating func flush(_ emit: (Fix) -> Void) {
        closeEpoch(emit)
    }

    // MARK: - Epochs

    private mutating func closeEpoch(_ emit: (Fix) -> Void) {
        if epochs.phase == .collecting { handOut(emit) }
        epochs.close()
        sentenceCount = 0
        noise = nil
        receiverErrors = nil
        sky.advanceEpoch()
    }

    private mutating func handOut(_ emit: (Fix) -> Void) {
        var fix = current
        fix.sentenceCount = sentenceCount
        fix.noise = noise
        var used = 0
        var geometry = Geodesy.DilutionAccumulator()
        sky.satellites(into: &satelliteStorage, used: &used, geometry: &geometry)
        fix.satellites = satelliteStorage
        fix.satellitesUsed =
            used > 0 ? used : (rules.gsaUsedCount > 0 ? rules.gsaUsedCount : current.satellitesUsed)
        fix.dop = dop
        if let geometry = geometry.dilution {
            fix.dop.xdop = fix.dop.xdop ?? geometry.xdop
            fix.dop.ydop = fix.dop.ydop ?? geometry.ydop
            fix.dop.tdop = fix.dop.tdop ?? geometry.tdop
            fix.dop.gdop = fix.dop.gdop ?? geometry.gdop
            fix.dop.pdop = fix.dop.pdop ?? geometry.pdop
            fix.dop.hdop = fix.dop.hdop ?? geometry.hdop
            fix.dop.vdop = fix.dop.vdop ?? geometry.vdop
        }
        fix.errors = model.estimates(for: fix, receiver: receiverErrors)
        epochs.handedOut()
        fixCount += 1
        if fix.hasPosition { positionFixCount += 1 }
        model.handedOut(fix)
        emit(fix)
    }

    // MARK: - Merge

    /// Merges what the sentence brings into the fix; `true` when that changed it. The step is
    /// `inout` although only read: passed `borrowing`, it was copied for every sentence.
    private mutating func merge(_ step: inout Step) -> Bool {
        let mask = step.mask
        var changed = false
        if mask.contains(.time) { Self.update(&current.time, step.new.time, &changed) }
        if let value = step.new.timeOfDay { Self.update(&current.timeOfDay, value, &changed) }
        if mask.contains(.latLon) {
            Self.update(&current.latitude, step.new.latitude, &changed)
            Self.update(&current.longitude, step.new.longitude, &changed)
        }
        if mask.contains(.mode) { Self.update(&current.mode, step.new.mode, &changed) }
        if mask.contains(.status) { Self.update(&current.status, step.new.status, &changed) }
        if mask.contains(.altitude), let value = step.new.altitudeMSL {
            Self.update(&current.altitudeMSL, value, &changed)
        }
        if mask.contains(.track) { Self.update(&current.course, step.new.course, &changed) }
        if mask.contains(.speed) {
            Self.update(&current.speed, step.new.speed, &changed)
            Self.update(&current.speedIsDerived, false, &changed)
        }
        if mask.contains(.magneticVariation), let value = step.new.magneticVariation {
            Self.update(&current.magneticVariation, value, &changed)
        }
        if let value = step.new.geoidSeparation { Self.update(&current.geoidSeparation, value, &changed) }
        if let value = step.new.heading { Self.update(&current.heading, value, &changed) }
        if let value = step.new.dgpsAge { Self.update(&current.dgpsAge, value, &changed) }
        if let value = step.new.dgpsStation { Self.update(&current.dgpsStation, value, &changed) }
        if let value = step.new.satellitesUsed { Self.update(&current.satellitesUsed, value, &changed) }
        return changed
    }

    @inline(__always)
    private static func update<Value: Equatable>(_ target: inout Value, _ value: Value, _ changed: inout Bool)
    {
        if target != value {
            target = value
            changed = true
        }
    }
}
