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
    /// gpsd's 95% user equivalent range errors, metres (`gpsd_error_model`).
    public enum UERE {
        public static let horizontal = 15.0
        public static let vertical = 23.0
        public static let position = 19.0
        public static let horizontalDGPS = 3.75
        public static let verticalDGPS = 5.75
        public static let positionDGPS = 4.75
    }

    /// What is known of the true date, used to undo GPS week-number rollovers (a receiver that
    /// lost 1024 weeks reports a date 19.6 years early). `nil` turns the correction off.
    public var referenceDate: ReferenceDate? {
        didSet { correctedDay = nil }
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

    // The fix being merged (gpsd's gpsdata.fix) and the two earlier states the error model uses.
    private var current = Fix()
    private var lastFix = ModelState()
    private var oldFix = ModelState()
    private var dop = DOP()

    // Running date and time of day (gpsd's nmea.date).
    private var date: CivilDate? {
        didSet { if date != oldValue { correctedDay = nil } }
    }
    /// `date` with week-number rollovers undone, in days since 1970, once worked out.
    private var correctedDay: Int?
    private var timeOfDay: NMEATime?
    private var lastHour = -1

    // Epoch detection: the times of the last two timed sentences, and the kind of sentence that
    // ended the previous epoch (learned from the stream).
    private var thisFracTime: NMEATime?
    private var lastFracTime: NMEATime?
    private var endKind: UInt32?
    /// Timed sentence types after which the time has changed (gpsd's cycle enders).
    private var enders = TagSet()
    /// The type of the last timed sentence.
    private var lastTimedTag: Tag?
    /// The kind of the last sentence in this epoch at which gpsd would report.
    private var epochLastReportKind: UInt32?
    /// How many consecutive epochs ended with `endKind`; it is trusted from two on, once it has
    /// held for a second of the receiver's time.
    private var endKindConfirmations = 0
    /// The time of day of the first epoch that ended with `endKind`.
    private var endKindSince: NMEATime?
    /// Whether a sentence of `endKind` has come in this epoch.
    private var epochEndSeen = false
    /// For how many more epochs fixes wait for the epoch to close instead of being handed out at
    /// `endKind`: set when a sentence of an ending type brought fix data after it (a receiver
    /// that sends RMC at 1 Hz among GGAs at 10 Hz). gpsd reports again there; an early hand-out
    /// would have lost that data.
    private var earlyHandOutPause = 0

    // gpsd's per-talker bookkeeping.
    private var lastGGATalker: Talker?
    private var lastGGATime: NMEATime??
    private var latchMode = false
    private var lastGSATalker: Talker?
    private var seenNonGPSGSA = false
    private var gsaUsedCount = 0

    // The epoch being built.
    private var epochHasData = false
    private var epochHasTime = false
    private var epochEmitted = false
    private var epochKinds: [UInt32] = []
    private var sentenceCount = 0
    private var noise: NoiseStatistics?
    private var receiverErrors: ErrorEstimates?
    private var sky = SkyView()
    /// The storage of the last fix's satellites, used again once the fix is gone.
    private var satelliteStorage: [Satellite] = []
    /// What the speed and climb errors need of the last fix handed out.
    private var lastEmitted: EmittedState?

    public init(referenceDate: ReferenceDate? = FixAssembler.defaultReferenceDate) {
        self.referenceDate = referenceDate
        epochKinds.reserveCapacity(32)
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
        case .proprietary(let proprietary):
            add(proprietary, emit) { assembler, proprietary, step in
                step.kindKey = assembler.otherKindKey(proprietary.address)
                step.bringsData = assembler.processProprietary(proprietary, &step)
            }
        case .unknown(let unknown):
            add(unknown, emit) { assembler, unknown, step in
                step.bringsData = false
                // Instruments sharing a multiplexed bus (depth sounders, wind, compasses) do not
                // delimit the receiver's epochs; only satellite-system talkers do.
                if unknown.talker.constellation != nil || unknown.talker == .gnss {
                    step.kindKey = assembler.otherKindKey(unknown.type) ^ UInt32(unknown.talker.rawValue)
                }
            }
        case .txt(let txt): add(txt, emit)
        case .dtm(let dtm): add(dtm, emit)
        }
    }

    // The typed entry points of `add(_:_:)`, for decoders that never wrap sentences in
    // `NMEASentence`.

    mutating func add(_ gga: GGA, _ emit: (Fix) -> Void) { add(gga, emit) { $0.processGGA($1, &$2) } }

    mutating func add(_ rmc: RMC, _ emit: (Fix) -> Void) { add(rmc, emit) { $0.processRMC($1, &$2) } }

    mutating func add(_ gll: GLL, _ emit: (Fix) -> Void) { add(gll, emit) { $0.processGLL($1, &$2) } }

    mutating func add(_ gns: GNS, _ emit: (Fix) -> Void) { add(gns, emit) { $0.processGNS($1, &$2) } }

    mutating func add(_ gsa: GSA, _ emit: (Fix) -> Void) { add(gsa, emit) { $0.processGSA($1, &$2) } }

    mutating func add(_ gsv: GSV, _ emit: (Fix) -> Void) {
        // Most sentences of a multi-constellation epoch are GSV, and once the epoch has a time a
        // GSV can only add to the sky view and end the sentence: of `complete(_:_:)` it needs no
        // more than that.
        guard epochHasTime else {
            add(gsv, emit) { $0.processGSV($1, &$2) }
            return
        }
        let more = Self.hasMoreParts(gsv)
        sky.add(gsv)
        lastGSATalker = nil
        endSentence(kindKey: gsvKindKey(gsv), isReportPoint: !more && followsEnder, more: more, emit)
    }

    mutating func add(_ vtg: VTG, _ emit: (Fix) -> Void) { add(vtg, emit) { $0.processVTG($1, &$2) } }

    mutating func add(_ zda: ZDA, _ emit: (Fix) -> Void) { add(zda, emit) { $0.processZDA($1, &$2) } }

    mutating func add(_ gst: GST, _ emit: (Fix) -> Void) { add(gst, emit) { $0.processGST($1, &$2) } }

    mutating func add(_ gbs: GBS, _ emit: (Fix) -> Void) { add(gbs, emit) { $0.processGBS($1, &$2) } }

    mutating func add(_ hdt: HDT, _ emit: (Fix) -> Void) {
        add(hdt, emit) { assembler, hdt, step in
            step.kindKey = assembler.kindKey(.hdt, hdt.talker)
            if let heading = hdt.heading { step.new.heading = heading.doubleValue }
        }
    }

    mutating func add(_ txt: TXT, _ emit: (Fix) -> Void) {
        add(txt, emit) { assembler, txt, step in
            step.kindKey = assembler.kindKey(.txt, txt.talker)
            step.bringsData = false
        }
    }

    mutating func add(_ dtm: DTM, _ emit: (Fix) -> Void) {
        add(dtm, emit) { assembler, dtm, step in
            step.kindKey = assembler.kindKey(.dtm, dtm.talker)
            step.bringsData = false
        }
    }

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

    /// What every sentence goes through once its own rules have filled `step`: epoch
    /// boundaries, the merge, the error model and the report.
    private mutating func complete(_ step: inout Step, _ emit: (Fix) -> Void) {
        if step.tag != .gsa { lastGSATalker = nil }

        if step.mask.contains(.time) {
            step.new.time = resolvedTime()
        }

        // A timed sentence whose time differs from the previous one by more than 10 ms starts
        // a new epoch; the timed sentence type before it is one that ends epochs.
        if step.latchFracTime, let this = thisFracTime {
            if let last = lastFracTime {
                if abs(this.nanosecondsOfDay - last.nanosecondsOfDay) > 10_000_000 {
                    step.mask.insert(.clear)
                }
            } else {
                step.mask.insert(.clear)
            }
            if step.mask.contains(.clear), let lastTimedTag, step.tag != .gll { enders.insert(lastTimedTag) }
        }
        // Where gpsd reports: at a timed sentence of an ending type, and at the untimed sentences
        // with data that follow one (GSA, GSV, VTG after the RMC; not a text or an unknown
        // proprietary sentence, which would otherwise be learned as the end of the epoch).
        let isReportPoint: Bool
        if step.latchFracTime {
            isReportPoint = step.tag.map { enders.contains($0) } ?? false
            lastTimedTag = step.tag
        } else {
            isReportPoint = step.bringsData && !step.gsxMore && followsEnder
        }

        // Do not downgrade a held 3D fix (RMC and GLL do not say 2D or 3D).
        if step.mask.contains(.mode), current.mode == .threeDimensional, step.new.mode != .noFix,
            lastFix.altitudeHAE != nil || oldFix.altitudeHAE != nil || lastFix.altitudeMSL != nil
                || oldFix.altitudeMSL != nil
        {
            step.new.mode = current.mode
        }

        // Epoch boundaries: a new time of day, or (while no time is known) a sentence seen twice.
        if step.mask.contains(.clear) {
            closeEpoch(emit)
        } else if !epochHasTime, !step.latchFracTime, let key = step.kindKey, epochKinds.contains(key) {
            closeEpoch(emit)
            step.mask.insert(.clear)
        }
        if let key = step.kindKey, !epochHasTime { epochKinds.append(key) }
        if step.latchFracTime { epochHasTime = true }

        if step.mask.contains(.clear) {
            if !step.mask.contains(.dop) { dop = DOP() }
            current = Fix()
        }
        // A sentence's DOPs belong to its own epoch, not to the one it closed. They are taken
        // whatever the mask says: a GSA whose mask is emptied still gives its DOPs.
        step.dop.apply(to: &dop)
        // A sentence that changes nothing in the fix (a GSV, a GSA repeating the mode) leaves it
        // as the error model left it: running the model again would give the same.
        if !step.mask.isEmpty || step.new.setsUnmaskedValues {
            let changed = merge(&step)
            if changed || step.mask.contains(.clear) { applyErrorModel() }
            if changed, isReportPoint, epochEndSeen, !step.mask.isDisjoint(with: .fixData) {
                earlyHandOutPause = Self.earlyHandOutPauseEpochs
            }
        }
        if !step.mask.isDisjoint(with: .fixData) { epochHasData = true }
        endSentence(kindKey: step.kindKey, isReportPoint: isReportPoint, more: step.gsxMore, emit)
    }

    /// Whether an untimed sentence stands where gpsd reports: after a timed sentence of a type
    /// that ends epochs.
    private var followsEnder: Bool { lastTimedTag.map { enders.contains($0) } ?? false }

    /// The end of every sentence: counts it and, when it is the kind at which the previous epoch
    /// was last reported (and not a part with more to come), hands out the epoch.
    private mutating func endSentence(
        kindKey key: UInt32?, isReportPoint: Bool, more: Bool, _ emit: (Fix) -> Void
    ) {
        sentenceCount += 1
        guard let key else { return }
        if isReportPoint { epochLastReportKind = key }
        guard key == endKind, !more else { return }
        epochEndSeen = true
        if endKindConfirmations >= 2, earlyHandOutPause == 0, !epochEmitted, epochHasData, endKindHeldASecond
        {
            emitCurrent(emit)
        }
    }

    /// Whether `endKind` has ended every epoch for at least a second (or no time is known to
    /// tell). A receiver's pattern of sentences repeats every second at most: at 10 Hz, the RMC
    /// it sends once a second must have had its chance to come after the learned end.
    private var endKindHeldASecond: Bool {
        guard let since = endKindSince, let now = thisFracTime else { return true }
        var span = now.nanosecondsOfDay - since.nanosecondsOfDay
        if span < 0 { span += 86_400_000_000_000 }
        return span >= 1_000_000_000
    }

    /// How long fixes wait for the close of their epoch after fix data came late: long enough
    /// to span a 10 Hz receiver's 1 Hz sentences many times over.
    static let earlyHandOutPauseEpochs = 64

    /// Ends the input: hands out the epoch in progress, if it was not handed out already.
    public mutating func flush(_ emit: (Fix) -> Void) {
        closeEpoch(emit)
    }

    // MARK: - Epochs

    private mutating func closeEpoch(_ emit: (Fix) -> Void) {
        if epochHasData && !epochEmitted { emitCurrent(emit) }
        // An epoch without a report point (a receiver that skipped its ending sentence) leaves
        // the learned end as it was.
        if let epochLastReportKind {
            if epochLastReportKind == endKind {
                endKindConfirmations += 1
            } else {
                endKind = epochLastReportKind
                endKindConfirmations = 1
                endKindSince = lastFracTime
            }
        }
        epochLastReportKind = nil
        epochEndSeen = false
        if earlyHandOutPause > 0 { earlyHandOutPause -= 1 }
        epochHasData = false
        epochHasTime = false
        epochEmitted = false
        epochKinds.removeAll(keepingCapacity: true)
        sentenceCount = 0
        noise = nil
        receiverErrors = nil
        sky.advanceEpoch()
    }

    private mutating func emitCurrent(_ emit: (Fix) -> Void) {
        var fix = current
        fix.sentenceCount = sentenceCount
        fix.noise = noise
        var used = 0
        var geometry = Geodesy.DilutionAccumulator()
        sky.satellites(into: &satelliteStorage, used: &used, geometry: &geometry)
        fix.satellites = satelliteStorage
        fix.satellitesUsed = used > 0 ? used : (gsaUsedCount > 0 ? gsaUsedCount : current.satellitesUsed)
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
        fix.errors = errorEstimates(for: fix)
        epochEmitted = true
        fixCount += 1
        if fix.hasPosition { positionFixCount += 1 }
        lastEmitted = EmittedState(
            mode: fix.mode, time: fix.time, longitudeError: fix.errors.longitude,
            latitudeError: fix.errors.latitude, verticalError: fix.errors.vertical)
        emit(fix)
    }

    /// The 95% error estimates of a fix: the receiver's own where it sent them, otherwise
    /// DOP × UERE, and speed/climb errors from the previous fix.
    private func errorEstimates(for fix: Fix) -> ErrorEstimates {
        var errors = receiverErrors ?? ErrorEstimates()
        if fix.time != nil { errors.time = 0.005 }
        guard fix.mode >= .twoDimensional else { return errors }
        let dgps = fix.status == .dgps
        let h = dgps ? UERE.horizontalDGPS : UERE.horizontal
        let v = dgps ? UERE.verticalDGPS : UERE.vertical
        let p = dgps ? UERE.positionDGPS : UERE.position
        var usedModel = false
        if errors.longitude == nil, let xdop = fix.dop.xdop {
            errors.longitude = xdop * h
            usedModel = true
        }
        if errors.latitude == nil, let ydop = fix.dop.ydop {
            errors.latitude = ydop * h
            usedModel = true
        }
        if fix.mode == .threeDimensional, errors.vertical == nil, let vdop = fix.dop.vdop {
            errors.vertical = vdop * v
            usedModel = true
        }
        if errors.horizontal == nil, let hdop = fix.dop.hdop {
            errors.horizontal = hdop * p
            usedModel = true
        }
        if errors.spherical == nil, let pdop = fix.dop.pdop {
            errors.spherical = pdop * p
            usedModel = true
        }
        if errors.source == nil && usedModel { errors.source = .dopModel }
        if let previous = lastEmitted, previous.mode >= .twoDimensional, let now = fix.time,
            let then = previous.time
        {
            let dt = now.seconds(since: then)
            if dt > 0 {
                if let x0 = previous.longitudeError, let y0 = previous.latitudeError,
                    let x1 = errors.longitude, let y1 = errors.latitude
                {
                    errors.speed = (max(x0, y0) + max(x1, y1)) / dt
                }
                if let v0 = previous.verticalError, let v1 = errors.vertical {
                    errors.climb = (v0 + v1) / dt
                }
            }
        }
        return errors
    }

    // MARK: - Merge and error model

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

    /// gpsd's `gpsd_error_model`, less the parts that need its geoid and magnetic tables: keeps
    /// the previous states, fills the missing altitude, derives speed and climb.
    private mutating func applyErrorModel() {
        var deltaTime: Double?
        if let time = current.time {
            if let last = lastFix.time {
                let delta = time.seconds(since: last)
                if abs(delta) > 0.0099 {
                    oldFix = lastFix
                    deltaTime = delta
                } else if let old = oldFix.time {
                    deltaTime = time.seconds(since: old)
                }
            }
        }
        if let latitude = current.latitude, let longitude = current.longitude {
            if abs(latitude) > 90 || abs(longitude) > 180 {
                current.latitude = nil
                current.longitude = nil
            }
        } else {
            current.latitude = nil
            current.longitude = nil
        }
        if let speed = current.speed, abs(speed) > 9999.9 { current.speed = nil }
        if let climb = current.climb, abs(climb) > 9999.9 { current.climb = nil }
        if let separation = current.geoidSeparation {
            if let hae = current.altitudeHAE, current.altitudeMSL == nil {
                current.altitudeMSL = hae - separation
            } else if current.altitudeHAE == nil, let msl = current.altitudeMSL {
                current.altitudeHAE = msl + separation
            }
        }
        // A course already in 0..<360 (almost always) is left as the remainder would leave it.
        if var course = current.course, !(course >= 0 && course < 360) {
            course = course.truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
            current.course = course
        }
        if let deltaTime, deltaTime > 0, current.mode >= .twoDimensional, oldFix.mode >= .twoDimensional {
            if current.speed == nil, let lat1 = current.latitude, let lon1 = current.longitude,
                let lat0 = oldFix.latitude, let lon0 = oldFix.longitude
            {
                let speed =
                    Geodesy.distance(latitude1: lat0, longitude1: lon0, latitude2: lat1, longitude2: lon1)
                    / deltaTime
                if abs(speed) <= 9999.9 {
                    current.speed = speed
                    current.speedIsDerived = true
                }
            }
            if current.mode == .threeDimensional, oldFix.mode == .threeDimensional, current.climb == nil {
                let now = current.altitudeHAE ?? current.altitudeMSL
                let then = current.altitudeHAE != nil ? oldFix.altitudeHAE : oldFix.altitudeMSL
                if let now, let then {
                    let climb = (now - then) / deltaTime
                    if abs(climb) <= 9999.9 {
                        current.climb = climb
                        current.climbIsDerived = true
                    }
                }
            }
        }
        if current.time != nil { lastFix = ModelState(current) }
    }

    // MARK: - Time

    private mutating func registerFracTime(_ time: NMEATime, _ step: inout Step) {
        lastFracTime = thisFracTime
        thisFracTime = time
        step.latchFracTime = true
        step.new.timeOfDay = time
    }

    /// Moves the running time of day forward, rolling the date over at midnight.
    private mutating func mergeTimeOfDay(_ time: NMEATime) {
        let hour = Int(time.hour)
        if lastHour >= 0, lastHour - hour >= 12, let current = date {
            date = CivilDate(daysSinceEpoch: current.daysSinceEpoch + 1)
        }
        lastHour = hour
        timeOfDay = time
    }

    private mutating func resolvedTime() -> UTCTimestamp? {
        guard let date, let timeOfDay else { return nil }
        let day: Int
        if let correctedDay {
            day = correctedDay
        } else {
            day = (referenceDate?.correcting(date) ?? date).daysSinceEpoch
            correctedDay = day
        }
        // A year beyond what the timestamp holds (a corrupt or hostile date) gives no time.
        return UTCTimestamp(daysSinceEpoch: day, nanosecondsOfDay: timeOfDay.nanosecondsOfDay)
    }

    // MARK: - Sentences

    private mutating func processGGA(_ gga: GGA, _ step: inout Step) {
        step.tag = .gga
        step.kindKey = kindKey(.gga, gga.talker)
        let lastLastTalker = lastGGATalker
        lastGGATalker = gga.talker
        var status: FixStatus?
        switch gga.quality {
        case 0?:
            status = .unknown
            // A receiver without a fix may send an empty time: its date is no longer trusted.
            if gga.time == nil { date = nil }
        case 1?: status = .gps
        case 2?: status = .dgps
        case 3?: status = .pps
        case 4?: status = .rtkFixed
        case 5?: status = .rtkFloat
        case 6?: status = .deadReckoning
        case 7?: status = .manual
        case 8?: status = .simulated
        default: status = nil
        }
        if let status {
            step.new.status = status
            step.mask.insert(.status)
        }
        if let lastLastTalker, lastLastTalker != gga.talker {
            latchMode = false
        } else {
            latchMode = lastGGATime.map { $0 == gga.time } ?? false
        }
        if latchMode {
            step.new.status = .unknown
            step.new.mode = .noFix
            step.mask.formUnion([.mode, .status])
        } else {
            lastGGATime = .some(gga.time)
        }
        let satellites = gga.satellitesUsed ?? 0
        if let time = gga.time {
            mergeTimeOfDay(time)
            registerFracTime(time, &step)
            if date != nil { step.mask.insert(.time) }
        }
        if let latitude = gga.latitude?.degrees, let longitude = gga.longitude?.degrees {
            step.new.mode = .twoDimensional
            step.new.latitude = latitude
            step.new.longitude = longitude
            step.mask.insert(.latLon)
            step.new.geoidSeparation = gga.geoidSeparation?.doubleValue
            if let altitude = gga.altitude {
                step.new.altitudeMSL = altitude.doubleValue
                step.mask.insert(.altitude)
                if satellites >= 4 { step.new.mode = .threeDimensional }
            }
            if satellites < 3 { step.new.mode = .noFix }
        } else {
            step.new.mode = .noFix
        }
        step.mask.insert(.mode)
        if let hdop = gga.hdop?.doubleValue, hdop < 99 {
            step.dop.hdop = hdop
            step.mask.insert(.dop)
        }
        if let age = gga.dgpsAge?.doubleValue, let station = gga.dgpsStation, age > 0.09 || station > 0 {
            step.new.dgpsAge = age
            step.new.dgpsStation = station
        }
        step.new.satellitesUsed = gga.satellitesUsed
    }

    private mutating func processRMC(_ rmc: RMC, _ step: inout Step) {
        step.tag = .rmc
        step.kindKey = kindKey(.rmc, rmc.talker)
        switch rmc.status {
        case "A"?, "D"?:
            if let time = rmc.time, let rmcDate = rmc.date {
                let civil = CivilDate(
                    year: rmcDate.pivotedYear, month: Int(rmcDate.month), day: Int(rmcDate.day))
                mergeTimeOfDay(time)
                date = civil
                step.mask.insert(.time)
                registerFracTime(time, &step)
            }
            var status = FixStatus.unknown
            if let latitude = rmc.latitude?.degrees, let longitude = rmc.longitude?.degrees {
                status = rmc.status == "D" ? .dgps : .gps
                step.new.latitude = latitude
                step.new.longitude = longitude
                step.mask.insert(.latLon)
                if lastFix.mode <= .twoDimensional {
                    step.new.mode = .twoDimensional
                    step.mask.insert(.mode)
                } else if lastFix.mode == .threeDimensional {
                    step.new.mode = .threeDimensional
                    step.mask.insert(.mode)
                }
            } else {
                step.new.mode = .noFix
                step.mask.insert(.mode)
            }
            if let speed = rmc.speedKnots {
                step.new.speed = speed.doubleValue * 1852 / 3600
                step.mask.insert(.speed)
            }
            if let course = rmc.courseTrue {
                step.new.course = course.doubleValue
                step.mask.insert(.track)
            }
            if let variation = rmc.magneticVariation?.doubleValue,
                let direction = rmc.magneticVariationDirection
            {
                let signed: Double? =
                    switch direction {
                    case "E": variation
                    case "W": -variation
                    default: nil
                    }
                if let signed, abs(signed) > 0.09 {
                    step.new.magneticVariation = signed
                    step.mask.insert(.magneticVariation)
                }
            }
            if let mode = rmc.mode { status = FixStatus(faaMode: mode) }
            if gsaUsedCount > 3 {
                step.new.mode = .threeDimensional
                step.mask.insert(.mode)
            } else if current.altitudeHAE != nil || current.altitudeMSL != nil {
                step.new.mode = .threeDimensional
                step.mask.insert(.mode)
            }
            step.new.status = status
            step.mask.insert(.status)
        default:
            step.new.mode = .noFix
            if rmc.time == nil || rmc.date == nil { date = nil }
            // A new time of day starts a new epoch, so the no-fix state belongs to the second the
            // receiver stamped, not to the valid fix before it. Neither its time nor its date
            // moves the running clock: after a restart they come from an unset real-time clock
            // (23:59:48 of a day in 2006) and would roll the date over.
            if let time = rmc.time { registerFracTime(time, &step) }
            step.mask.formUnion([.status, .mode])
        }
    }

    private mutating func processGLL(_ gll: GLL, _ step: inout Step) {
        step.tag = .gll
        step.kindKey = kindKey(.gll, gll.talker)
        if let time = gll.time {
            mergeTimeOfDay(time)
            registerFracTime(time, &step)
            if date != nil { step.mask.insert(.time) }
        }
        if gll.status == "A", gll.mode != "N", let latitude = gll.latitude?.degrees,
            let longitude = gll.longitude?.degrees
        {
            step.new.latitude = latitude
            step.new.longitude = longitude
            step.mask.insert(.latLon)
            if current.altitudeHAE != nil || current.altitudeMSL != nil {
                step.new.mode = .threeDimensional
            } else if gsaUsedCount > 3 {
                step.new.mode = .threeDimensional
            } else if current.mode < .twoDimensional
                || (oldFix.altitudeHAE == nil && oldFix.altitudeMSL == nil)
            {
                step.new.mode = .twoDimensional
            }
            step.new.status = gll.mode.map(FixStatus.init(faaMode:)) ?? .gps
        } else {
            step.new.status = .unknown
            step.new.mode = .noFix
        }
        step.mask.formUnion([.status, .mode])
    }

    private mutating func processGNS(_ gns: GNS, _ step: inout Step) {
        step.tag = .gns
        step.kindKey = kindKey(.gns, gns.talker)
        if let time = gns.time {
            mergeTimeOfDay(time)
            registerFracTime(time, &step)
            if date != nil { step.mask.insert(.time) }
        }
        let firstMode = gns.modes.first
        guard let firstMode, firstMode != "N" else {
            step.new.mode = .noFix
            step.mask.insert(.mode)
            return
        }
        if gns.navigationStatus == "U" || gns.navigationStatus == "V" { return }
        let satellites = gns.satellitesUsed ?? 0
        if let latitude = gns.latitude?.degrees, let longitude = gns.longitude?.degrees {
            step.new.latitude = latitude
            step.new.longitude = longitude
            step.mask.insert(.latLon)
            step.new.mode = .twoDimensional
            if let altitude = gns.altitude {
                step.new.altitudeMSL = altitude.doubleValue
                step.mask.insert(.altitude)
                if satellites > 3 { step.new.mode = .threeDimensional }
                step.new.geoidSeparation = gns.geoidSeparation?.doubleValue
            }
        } else {
            step.new.mode = .noFix
        }
        if let hdop = gns.hdop?.doubleValue {
            step.dop.hdop = hdop
            step.mask.insert(.dop)
        }
        step.new.status = FixStatus(faaMode: firstMode)
        step.mask.formUnion([.mode, .status])
        if let age = gns.dgpsAge?.doubleValue, let station = gns.dgpsStation {
            step.new.dgpsAge = age
            step.new.dgpsStation = station
        }
        step.new.satellitesUsed = gns.satellitesUsed
    }

    private mutating func processGSA(_ gsa: GSA, _ step: inout Step) {
        step.tag = .gsa
        step.kindKey = kindKey(.gsa, gsa.talker, extra: UInt32(truncatingIfNeeded: gsa.systemID ?? 0))
        let lastLastTalker = lastGSATalker
        let fieldCount = 3 + gsa.satelliteSlots + 3 + (gsa.systemID != nil ? 1 : 0)
        if fieldCount >= 18 && !latchMode {
            step.new.mode = gsa.fixType.flatMap { FixMode(rawValue: $0) } ?? .notSeen
            step.mask.insert(.mode)
            if fieldCount <= 19 {
                if let pdop = gsa.pdop?.doubleValue, pdop < 99 {
                    step.dop.pdop = pdop
                    step.mask.insert(.dop)
                }
                if let hdop = gsa.hdop?.doubleValue, hdop < 99 {
                    step.dop.hdop = hdop
                    step.mask.insert(.dop)
                }
                if let vdop = gsa.vdop?.doubleValue, vdop < 99 {
                    step.dop.vdop = vdop
                    step.mask.insert(.dop)
                }
            }
            if lastGSATalker == nil || (gsa.talker == lastGSATalker && gsa.talker != .gnss) {
                gsaUsedCount = 0
            }
            lastGSATalker = gsa.talker
            if gsa.talker != .gps { seenNonGPSGSA = true }
            gsaUsedCount += gsa.satellites.count
        }
        sky.noteUsed(gsa, startsGroup: lastLastTalker == nil)
        if seenNonGPSGSA && gsa.talker == .gps {
            step.mask = []
        } else if lastLastTalker != .gnss && gsa.talker == .gnss && !step.mask.isEmpty {
            step.mask = [.mode]
        }
    }

    private mutating func processGSV(_ gsv: GSV, _ step: inout Step) {
        step.tag = .gsv
        step.kindKey = gsvKindKey(gsv)
        step.gsxMore = Self.hasMoreParts(gsv)
        sky.add(gsv)
    }

    private func gsvKindKey(_ gsv: GSV) -> UInt32 {
        kindKey(
            .gsv, gsv.talker,
            extra: UInt32(truncatingIfNeeded: gsv.messageNumber ?? 0) << 8
                | UInt32(truncatingIfNeeded: gsv.signalID ?? 0))
    }

    /// Whether more parts of the series follow this one.
    private static func hasMoreParts(_ gsv: GSV) -> Bool {
        guard let number = gsv.messageNumber, let count = gsv.messageCount else { return false }
        return number < count
    }

    private mutating func processVTG(_ vtg: VTG, _ step: inout Step) {
        step.tag = .vtg
        step.kindKey = kindKey(.vtg, vtg.talker)
        guard let course = vtg.courseTrue, let speed = vtg.speedKnots else { return }
        if vtg.mode == "E" || vtg.mode == "N" { return }
        step.new.course = course.doubleValue
        step.new.speed = speed.doubleValue * 1852 / 3600
        step.mask.formUnion([.track, .speed])
    }

    private mutating func processZDA(_ zda: ZDA, _ step: inout Step) {
        step.tag = .zda
        step.kindKey = kindKey(.zda, zda.talker)
        guard let time = zda.time else { return }
        mergeTimeOfDay(time)
        guard let year = zda.year, let month = zda.month, let day = zda.day else { return }
        let civil = CivilDate(year: year, month: month, day: day)
        guard year >= 1970, civil.isValid else { return }
        date = civil
        step.mask.insert(.time)
        registerFracTime(time, &step)
    }

    private mutating func processGST(_ gst: GST, _ step: inout Step) {
        step.tag = .gst
        step.kindKey = kindKey(.gst, gst.talker)
        var statistics = NoiseStatistics()
        statistics.rms = gst.rms?.doubleValue
        statistics.semiMajor = gst.semiMajor?.doubleValue
        statistics.semiMinor = gst.semiMinor?.doubleValue
        statistics.orientation = gst.orientation?.doubleValue
        statistics.latitude = gst.latitudeError?.doubleValue
        statistics.longitude = gst.longitudeError?.doubleValue
        statistics.altitude = gst.altitudeError?.doubleValue
        noise = statistics
    }

    private mutating func processGBS(_ gbs: GBS, _ step: inout Step) {
        step.tag = .gbs
        step.kindKey = kindKey(.gbs, gbs.talker)
        guard let time = gbs.time else { return }
        let matches = timeOfDay.map { $0.nanosecondsOfDay == time.nanosecondsOfDay } ?? false
        mergeTimeOfDay(time)
        registerFracTime(time, &step)
        if date != nil { step.mask.insert(.time) }
        guard matches else { return }
        var errors = receiverErrors ?? ErrorEstimates()
        if let value = gbs.latitudeError?.doubleValue { errors.latitude = value }
        if let value = gbs.longitudeError?.doubleValue { errors.longitude = value }
        if let value = gbs.altitudeError?.doubleValue { errors.vertical = value }
        errors.source = .receiverGBS
        receiverErrors = errors
    }

    /// Reads the proprietary sentences that carry fix data; `false` for the others.
    private mutating func processProprietary(_ sentence: ProprietarySentence, _ step: inout Step) -> Bool {
        switch sentence.address {
        case "PGRME": processPGRME(sentence)
        case "PGRMZ": processPGRMZ(sentence, &step)
        default: return false
        }
        return true
    }

    /// `$PGRMZ,93,f,3` — Garmin's altitude (feet or metres) and fix dimension.
    private mutating func processPGRMZ(_ sentence: ProprietarySentence, _ step: inout Step) {
        guard sentence.fields.count >= 2, let value = Double(sentence.fields[0]) else { return }
        let metres: Double
        switch sentence.fields[1] {
        case "f", "F": metres = value * 0.3048
        case "m", "M": metres = value
        default: return
        }
        step.new.altitudeMSL = metres
        step.mask.insert(.altitude)
        if sentence.fields.count >= 3, let dimension = Int(sentence.fields[2]), (2...3).contains(dimension) {
            step.new.mode = dimension == 3 ? .threeDimensional : .twoDimensional
            step.mask.insert(.mode)
        }
    }

    /// `$PGRME,15.0,M,45.0,M,25.0,M` — Garmin's estimated position errors (CEP50, scaled to 95%).
    private mutating func processPGRME(_ sentence: ProprietarySentence) {
        guard sentence.fields.count >= 5 else { return }
        let scale = 2.45 / 1.18
        var errors = receiverErrors ?? ErrorEstimates()
        if let hpe = Double(sentence.fields[0]) {
            errors.longitude = hpe / 2.0.squareRoot() * scale
            errors.latitude = errors.longitude
        }
        if let vpe = Double(sentence.fields[2]) { errors.vertical = vpe * scale }
        if let epe = Double(sentence.fields[4]) { errors.spherical = epe * scale }
        errors.source = .receiverPGRME
        receiverErrors = errors
    }

    private func kindKey(_ tag: Tag, _ talker: Talker, extra: UInt32 = 0) -> UInt32 {
        UInt32(tag.rawValue) << 28 ^ UInt32(talker.rawValue) << 12 ^ extra
    }

    /// A kind key for sentences without a tag: FNV-1a of the type, kept apart from tagged kinds.
    private func otherKindKey(_ type: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in type.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash | 0xF000_0000
    }
}

/// What is known of the true date, for undoing GPS week-number rollovers.
public enum ReferenceDate: Sendable, Hashable {
    /// The data was recorded on (about) this date, as a log's `# Date:` header says. A date is
    /// moved forward by whole 1024-week periods only when that lands within a year of it;
    /// otherwise the receiver's own date stands.
    case recordedOn(CivilDate)
    /// The true date is not earlier than this one. A date is moved forward by whole 1024-week
    /// periods while that brings it closer to this one.
    case notBefore(CivilDate)

    static let rolloverDays = 1024 * 7

    /// `date` with any week-number rollover undone.
    public func correcting(_ date: CivilDate) -> CivilDate {
        var days = date.daysSinceEpoch
        switch self {
        case .recordedOn(let reference):
            let target = reference.daysSinceEpoch
            var candidate = days
            while abs(candidate + Self.rolloverDays - target) < abs(candidate - target) {
                candidate += Self.rolloverDays
            }
            if candidate != days && abs(candidate - target) <= 366 { days = candidate }
        case .notBefore(let reference):
            let target = reference.daysSinceEpoch
            while abs(days + Self.rolloverDays - target) < abs(days - target) { days += Self.rolloverDays }
        }
        return CivilDate(daysSinceEpoch: days)
    }
}

extension FixStatus {
    /// The status an FAA mode letter implies.
    init(faaMode: NMEALetter) {
        switch faaMode.rawValue {
        case UInt8(ascii: "C"), UInt8(ascii: "N"), UInt8(ascii: "U"), 0: self = .unknown
        case UInt8(ascii: "D"), UInt8(ascii: "P"): self = .dgps
        case UInt8(ascii: "E"): self = .deadReckoning
        case UInt8(ascii: "F"): self = .rtkFloat
        case UInt8(ascii: "R"): self = .rtkFixed
        case UInt8(ascii: "M"), UInt8(ascii: "S"): self = .simulated
        default: self = .gps
        }
    }
}

/// The sentence types that take part in cycle detection.
private enum Tag: UInt8, Hashable, Sendable {
    case gga = 1, rmc, gll, gns, gsa, gsv, vtg, zda, gst, gbs, hdt, txt, dtm
}

/// What one sentence contributes, in gpsd's terms: new values and which of them to merge.
private struct Step {
    var new = Contribution()
    var mask: Mask = []
    var tag: Tag?
    var kindKey: UInt32?
    var latchFracTime = false
    var gsxMore = false
    /// The DOPs the sentence gives, set once the epoch it belongs to is known.
    var dop = ReportedDOP()
    /// Whether the sentence can carry fix data (a text or an unknown sentence cannot).
    var bringsData = true
}

/// The fix values a sentence can bring.
private struct Contribution {
    var time: UTCTimestamp?
    var timeOfDay: NMEATime?
    var mode: FixMode = .notSeen
    var status: FixStatus = .unknown
    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    var geoidSeparation: Double?
    var speed: Double?
    var course: Double?
    var magneticVariation: Double?
    var heading: Double?
    var dgpsAge: Double?
    var dgpsStation: Int?
    var satellitesUsed: Int?

    /// Whether it brings a value that is merged whatever the mask says.
    var setsUnmaskedValues: Bool {
        timeOfDay != nil || geoidSeparation != nil || heading != nil || dgpsAge != nil || dgpsStation != nil
            || satellitesUsed != nil
    }
}

/// The dilutions one sentence reports (GGA and GNS: HDOP; GSA: PDOP, HDOP, VDOP).
private struct ReportedDOP {
    var pdop: Double?
    var hdop: Double?
    var vdop: Double?

    func apply(to dop: inout DOP) {
        if let pdop { dop.pdop = pdop }
        if let hdop { dop.hdop = hdop }
        if let vdop { dop.vdop = vdop }
    }
}

/// What the error estimates keep of the last fix handed out.
private struct EmittedState {
    var mode: FixMode
    var time: UTCTimestamp?
    var longitudeError: Double?
    var latitudeError: Double?
    var verticalError: Double?
}

/// What the error model keeps of the fixes before this one.
private struct ModelState {
    var time: UTCTimestamp?
    var mode: FixMode = .notSeen
    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    var altitudeHAE: Double?

    init() {}

    init(_ fix: Fix) {
        time = fix.time
        mode = fix.mode
        latitude = fix.latitude
        longitude = fix.longitude
        altitudeMSL = fix.altitudeMSL
        altitudeHAE = fix.altitudeHAE
    }
}

/// A set of sentence tags in one word.
private struct TagSet {
    private var bits: UInt32 = 0

    func contains(_ tag: Tag) -> Bool { bits & 1 << tag.rawValue != 0 }

    mutating func insert(_ tag: Tag) { bits |= 1 << tag.rawValue }
}

private struct Mask: OptionSet {
    let rawValue: UInt32
    static let time = Mask(rawValue: 1 << 0)
    static let latLon = Mask(rawValue: 1 << 1)
    static let mode = Mask(rawValue: 1 << 2)
    static let status = Mask(rawValue: 1 << 3)
    static let altitude = Mask(rawValue: 1 << 4)
    static let speed = Mask(rawValue: 1 << 5)
    static let track = Mask(rawValue: 1 << 6)
    static let magneticVariation = Mask(rawValue: 1 << 7)
    static let dop = Mask(rawValue: 1 << 8)
    static let clear = Mask(rawValue: 1 << 9)
    /// What makes an epoch worth a fix: a time alone (a ZDA) does not.
    static let fixData: Mask = [.latLon, .mode, .status, .altitude, .speed, .track]
}
