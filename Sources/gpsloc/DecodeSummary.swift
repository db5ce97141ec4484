// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NMEA

/// What the fixes of one log show, gathered as they stream by for the summary: the first and
/// last time, the gaps between them, and how many records were written.
struct FixTimeline {
    private(set) var first: UTCTimestamp?
    private(set) var last: UTCTimestamp?
    /// The shortest step between two fixes seen: the receiver's epoch.
    private(set) var epoch: Double?
    /// Steps longer than twice the epoch and than a second.
    private(set) var gaps = 0
    private(set) var longestGap: (seconds: Double, after: UTCTimestamp)?
    /// Steps back in time (a receiver's clock jumping, logs concatenated out of order).
    private(set) var backwards = 0
    var recordsWritten = 0

    mutating func add(_ fix: Fix) {
        guard let time = fix.time else { return }
        defer { last = time }
        guard let previous = last else {
            first = time
            return
        }
        let step = time.seconds(since: previous)
        if step < 0 {
            backwards += 1
            return
        }
        if step > 0 { epoch = min(epoch ?? step, step) }
        if step > max(1, 2 * (epoch ?? 1)) {
            gaps += 1
            if step > longestGap?.seconds ?? 0 { longestGap = (step, previous) }
        }
    }

    /// The summary's lines about time.
    var lines: [String] {
        guard let first, let last else { return ["  time: no fix had a date and time"] }
        var lines = [
            "  time: \(first.iso8601) to \(last.iso8601), \(Self.span(last.seconds(since: first)))"
        ]
        var gapLine = "  gaps: \(gaps)"
        if let longestGap {
            gapLine += " (longest \(Self.span(longestGap.seconds)) after \(longestGap.after.iso8601))"
        }
        if let epoch { gapLine += "; epoch \(formatFixed(epoch, epoch < 1 ? 2 : 0)) s" }
        if backwards > 0 { gapLine += "; time went back \(backwards) times" }
        lines.append(gapLine)
        return lines
    }

    /// `4 min 59 s`, `2 h 03 min 10 s`, `3 d 4 h`.
    static func span(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if seconds < 60 { return "\(formatFixed(seconds, seconds.rounded() == seconds ? 0 : 1)) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        if whole < 86_400 { return "\(whole / 3600) h \(whole % 3600 / 60) min \(whole % 60) s" }
        return "\(whole / 86_400) d \(whole % 86_400 / 3600) h \(whole % 3600 / 60) min"
    }
}

extension Decode {
    /// The summary of one log on standard error.
    static func summary(
        _ statistics: DecodeStatistics, name: String, timeline: FixTimeline, seconds: Double,
        basis: String? = nil
    ) -> String {
        let framer = statistics.framer
        let bytes = statistics.bytesRead ?? framer.bytes
        var lines = [
            "\(name): \(counted(bytes, "byte", "bytes")), \(counted(framer.sentences, "sentence", "sentences")), "
                + "\(framer.rejected) rejected"
        ]
        let types = statistics.sentencesByType.map { "\($0.type) \($0.count)" }.joined(separator: ", ")
        lines.append("  sentences: " + (types.isEmpty ? "none" : types))
        let reasons = RejectionReason.allCases.filter { framer[$0] > 0 }.map { "\($0) \(framer[$0])" }
        lines.append("  rejected: " + (reasons.isEmpty ? "none" : reasons.joined(separator: ", ")))
        if statistics.unparsable > 0 { lines.append("  unparsable addresses: \(statistics.unparsable)") }
        lines.append("  skipped bytes: \(framer.skippedBytes), comment lines: \(statistics.commentLines)")
        lines.append("  epochs: \(statistics.fixes), with position: \(statistics.positionFixes)")
        lines += timeline.lines
        let rollovers = statistics.rollovers
        if rollovers.dates > 0 {
            lines.append(
                "  dates moved by 1024-week rollovers: \(rollovers.dates) (last by \(rollovers.weeks) weeks), "
                    + "going by \(basis ?? statistics.referenceBasis ?? "the default reference date")")
        }
        let rate = seconds > 0 ? Double(bytes) / seconds / 1e6 : 0
        lines.append(
            "  records written: \(timeline.recordsWritten); \(formatFixed(seconds, 3)) s, "
                + "\(formatFixed(rate, 1)) MB/s")
        return lines.joined(separator: "\n")
    }
}
