// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
@_spi(FrontEnd) import LocationWire
import Locking

/// An app's updates as the native protocol's lines for one subscription, written where the
/// connection's pump reads them; an update without a location is preceded by why, in words, the
/// first time that reason comes (``WireEvent/why(subscription:text:)``).
struct UpdateLineHandler: PumpHandler {
    let lines: WireUpdateLines
    /// The start of the subscription's lines, up to its number.
    let head: [UInt8]
    let reasons: RefusalReasons?
    /// The subscription's use of location, told each update (``UsePeriod/saw(_:)``).
    let period: UsePeriod?

    init(lines: WireUpdateLines, subscription: Int, reasons: RefusalReasons? = nil, period: UsePeriod? = nil)
    {
        self.lines = lines
        head = WireUpdateLines.head(subscription: subscription)
        self.reasons = reasons
        self.period = period
    }

    func handle(_ update: LocationUpdate, _ sink: some LineSink) {
        period?.saw(update)
        if let reasons, let text = reasons.newReason(for: update) {
            sink.sendLine { WireEvent.why(subscription: reasons.subscription, text: text).append(to: &$0) }
        }
        lines.withLine(of: update, head: head) { sink.sendLine($0) }
    }
}

/// Why one subscription's updates carry no location, told once per reason: a location in
/// between, or another reason, makes the next refusal told again.
final class RefusalReasons: Sendable {
    let subscription: Int
    private let explain: @Sendable (LocationUpdate) -> Refusal?
    /// Told each new reason, as it is told to the client (for the daemon's log).
    private let noted: @Sendable (Refusal) -> Void
    /// The reason told last, until a location comes; read without the lock while nothing was
    /// told, so that a location costs one atomic load.
    private let told = Mutex<String?>(nil)
    private let anyTold = Atomic<Bool>(false)

    init(
        subscription: Int, explain: @escaping @Sendable (LocationUpdate) -> Refusal?,
        noted: @escaping @Sendable (Refusal) -> Void = { _ in }
    ) {
        self.subscription = subscription
        self.explain = explain
        self.noted = noted
    }

    /// The reason to tell before `update`, when it is a new one.
    func newReason(for update: LocationUpdate) -> String? {
        guard update.location == nil else {
            if anyTold.load(ordering: .relaxed) {
                told.withLock { $0 = nil }
                anyTold.store(false, ordering: .relaxed)
            }
            return nil
        }
        guard let refusal = explain(update) else { return nil }
        let new = told.withLock { told -> Bool in
            guard told != refusal.text else { return false }
            told = refusal.text
            anyTold.store(true, ordering: .relaxed)
            return true
        }
        guard new else { return nil }
        noted(refusal)
        return refusal.text
    }
}

extension ConnectionOutput {
    /// Writes each of `updates` as subscription `subscription`'s line, written by `lines`, then
    /// calls `end` once when they end (``deliver(_:to:readerSetsPace:end:)``); `reasons` says
    /// why before updates without a location.
    func deliverUpdateLines(
        _ updates: HostedUpdates, _ lines: WireUpdateLines, subscription: Int, reasons: RefusalReasons? = nil,
        period: UsePeriod? = nil, readerSetsPace: Bool = false, end: @escaping () -> Void
    ) {
        deliver(
            updates,
            to: UpdateLineHandler(lines: lines, subscription: subscription, reasons: reasons, period: period),
            readerSetsPace: readerSetsPace, end: end)
    }
}
