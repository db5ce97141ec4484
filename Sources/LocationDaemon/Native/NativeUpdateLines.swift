// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
@_spi(FrontEnd) import LocationWire

/// An app's updates as the native protocol's lines for one subscription, written where the
/// connection's pump reads them.
struct UpdateLineHandler: PumpHandler {
    let lines: WireUpdateLines
    /// The start of the subscription's lines, up to its number.
    let head: [UInt8]

    init(lines: WireUpdateLines, subscription: Int) {
        self.lines = lines
        head = WireUpdateLines.head(subscription: subscription)
    }

    func handle(_ update: LocationUpdate, _ sink: some LineSink) {
        lines.withLine(of: update, head: head) { sink.sendLine($0) }
    }
}

extension ConnectionOutput {
    /// Writes each of `updates` as subscription `subscription`'s line, written by `lines`, then
    /// calls `end` once when they end (``deliver(_:to:readerSetsPace:end:)``).
    func deliverUpdateLines(
        _ updates: HostedUpdates, _ lines: WireUpdateLines, subscription: Int, readerSetsPace: Bool = false,
        end: @escaping () -> Void
    ) {
        deliver(
            updates, to: UpdateLineHandler(lines: lines, subscription: subscription),
            readerSetsPace: readerSetsPace, end: end)
    }
}
