// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import NMEA

/// Finds where one receiver epoch ends and the next begins, and when an epoch can be handed out,
/// learned from the stream as gpsd does.
///
/// - A stamped sentence whose time of day differs from the previous one by more than 10 ms
///   starts a new epoch, and the stamped type before it is learned as one that ends epochs (an
///   "ender"). While an epoch has no time, a sentence of a kind already seen in it starts the next.
/// - gpsd reports at a stamped sentence of an ending type and at the untimed sentences with data
///   that follow one. The kind of the last such report point of an epoch is learned as the epoch's
///   end; once the same end has closed two epochs in a row, held for a second of receiver time,
///   an epoch is handed out as soon as its end arrives instead of when the next epoch begins.
/// - When a sentence of an ending type brings fix data after that early hand-out (a receiver that
///   sends RMC at 1 Hz among GGAs at 10 Hz), early hand-outs pause for
///   ``earlyHandOutPauseEpochs`` epochs, so that such data is not left out.
struct EpochDetector: Sendable {
    /// How far the epoch being built has come.
    enum Phase: Sendable, Hashable {
        /// No fix data yet: nothing to hand out.
        case empty
        /// Fix data, not handed out yet.
        case collecting
        /// Handed out early, at its learned end; later sentences still belong to it.
        case handedOut
    }

    /// How long fixes wait for the close of their epoch after fix data came late: long enough
    /// to span a 10 Hz receiver's 1 Hz sentences many times over.
    static let earlyHandOutPauseEpochs = 64

    // The stream: the times of the last two stamped sentences, the types learned to end epochs,
    // and the learned end of an epoch with how often and since when it held.
    private var thisStamp: NMEATime?
    private var lastStamp: NMEATime?
    private var enders = TagSet()
    private var lastStampedTag: NMEASentenceType?
    private var endKind: UInt32?
    private var endKindConfirmations = 0
    private var endKindSince: NMEATime?
    /// For how many more epochs fixes wait for the epoch to close instead of being handed out at
    /// the learned end.
    private var earlyHandOutPause = 0

    // The epoch being built.
    private(set) var phase = Phase.empty
    /// Whether a stamped sentence has come in this epoch.
    private(set) var isTimed = false
    /// The kinds seen while the epoch has no time.
    private var kinds: [UInt32] = []
    /// The kind of the last sentence in this epoch at which gpsd would report.
    private var lastReportKind: UInt32?
    /// Whether a sentence of the learned end has come in this epoch.
    private var endSeen = false

    init() {
        kinds.reserveCapacity(32)
    }

    /// Whether an untimed sentence stands where gpsd reports: after a stamped sentence of a type
    /// that ends epochs.
    var followsEnder: Bool { lastStampedTag.map { enders.contains($0) } ?? false }

    /// Where a sentence stands: whether its time starts a new epoch (learning the stamped type
    /// before it as an ender), and whether gpsd would report at it.
    mutating func place(
        stamp: NMEATime?, tag: NMEASentenceType?, bringsData: Bool, more: Bool
    ) -> (newTime: Bool, isReportPoint: Bool) {
        var newTime = false
        if let stamp {
            lastStamp = thisStamp
            thisStamp = stamp
            if let last = lastStamp {
                newTime = abs(stamp.nanosecondsOfDay - last.nanosecondsOfDay) > 10_000_000
            } else {
                newTime = true
            }
            if newTime, let lastStampedTag, tag != .gll { enders.insert(lastStampedTag) }
            // A text or an unknown proprietary sentence is never a report point: it would be
            // learned as the end of the epoch.
            let isReportPoint = tag.map { enders.contains($0) } ?? false
            lastStampedTag = tag
            return (newTime, isReportPoint)
        }
        return (false, bringsData && !more && followsEnder)
    }

    /// Whether an untimed sentence starts a new epoch because its kind was seen in this one (the
    /// only boundary there is while no time is known).
    func repeatsKind(_ key: UInt32?, stamped: Bool) -> Bool {
        guard !isTimed, !stamped, let key else { return false }
        return kinds.contains(key)
    }

    /// The sentence belongs to the epoch being built.
    mutating func enter(_ key: UInt32?, stamped: Bool) {
        if let key, !isTimed { kinds.append(key) }
        if stamped { isTimed = true }
    }

    /// The sentence brought fix data.
    mutating func noteData() {
        if phase == .empty { phase = .collecting }
    }

    /// The sentence changed the fix at a report point after the learned end had come: pause
    /// early hand-outs.
    mutating func dataChanged(atReportPoint isReportPoint: Bool) {
        if isReportPoint, endSeen { earlyHandOutPause = Self.earlyHandOutPauseEpochs }
    }

    /// The end of every sentence; `true` when the epoch is to be handed out now: the sentence is
    /// of the learned end (and not a part with more to come), and the end has been trusted long
    /// enough.
    mutating func endSentence(kindKey key: UInt32?, isReportPoint: Bool, more: Bool) -> Bool {
        guard let key else { return false }
        if isReportPoint { lastReportKind = key }
        guard key == endKind, !more else { return false }
        endSeen = true
        return endKindConfirmations >= 2 && earlyHandOutPause == 0 && phase == .collecting
            && endKindHeldASecond
    }

    /// The epoch was handed out.
    mutating func handedOut() { phase = .handedOut }

    /// Whether `endKind` has ended every epoch for at least a second (or no time is known to
    /// tell). A receiver's pattern of sentences repeats every second at most: at 10 Hz, the RMC
    /// it sends once a second must have had its chance to come after the learned end.
    private var endKindHeldASecond: Bool {
        guard let since = endKindSince, let now = thisStamp else { return true }
        var span = now.nanosecondsOfDay - since.nanosecondsOfDay
        if span < 0 { span += 86_400_000_000_000 }
        return span >= 1_000_000_000
    }

    /// The epoch is over: learn its end and start the next one.
    mutating func close() {
        // An epoch without a report point (a receiver that skipped its ending sentence) leaves
        // the learned end as it was.
        if let lastReportKind {
            if lastReportKind == endKind {
                endKindConfirmations += 1
            } else {
                endKind = lastReportKind
                endKindConfirmations = 1
                endKindSince = lastStamp
            }
        }
        lastReportKind = nil
        endSeen = false
        if earlyHandOutPause > 0 { earlyHandOutPause -= 1 }
        phase = .empty
        isTimed = false
        kinds.removeAll(keepingCapacity: true)
    }
}
