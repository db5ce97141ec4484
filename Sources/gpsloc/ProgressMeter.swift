// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FoundationEssentials
import GNSS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `--progress` and `--no-progress`: whether long work shows its progress on standard error.
struct ProgressOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo, exclusivity: .exclusive,
        help:
            "Show bytes, percent, throughput and time left on standard error (default: when it is a terminal)."
    )
    var progress: Bool?

    /// Whether to show it: as asked, or when standard error is a terminal.
    var enabled: Bool { progress ?? (isatty(2) == 1) }
}

/// Progress of long work, redrawn in place on standard error at most four times a second:
/// `drive.nmea: 123.4 MB of 500.0 MB (24.7 %), 98.2 MB/s, 4 s left`. The line is erased when the
/// work ends, so the summary that follows stands alone.
struct ProgressMeter {
    let label: String
    let enabled: Bool
    private let start = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false

    init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
    }

    /// The seconds since the work began.
    var elapsed: Double {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Says how far the work is: `done` of `total` (bytes, or `unit`s), when the last line is
    /// more than a quarter of a second old.
    mutating func update(done: Int, total: Int?, unit: String = "bytes") {
        guard enabled else { return }
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(250) { return }
        lastDraw = now
        let seconds = max(elapsed, 1e-3)
        let rate = Double(done) / seconds
        var line = "\(label): " + Self.amount(done, unit: unit)
        if let total, total > 0 {
            line +=
                " of \(Self.amount(total, unit: unit)) (\(printf("%.1f", 100 * Double(min(done, total)) / Double(total))) %)"
        }
        line += ", \(Self.amount(Int(rate), unit: unit))/s"
        if let total, total > done, rate > 0 {
            line += ", \(Self.duration(Double(total - done) / rate)) left"
        }
        // Carriage return, the line, erase to its end: drawn over the previous one.
        try? writeAll(Array(("\r" + terminalSafe(line) + "\u{1B}[K").utf8), to: 2)
        drawn = true
    }

    /// Erases the progress line.
    mutating func finish() {
        guard drawn else { return }
        try? writeAll(Array("\r\u{1B}[K".utf8), to: 2)
        drawn = false
    }

    /// `123.4 MB` for bytes, `1.2 M epochs` for anything else.
    static func amount(_ value: Int, unit: String) -> String {
        let units = unit == "bytes" ? ["B", "kB", "MB", "GB", "TB"] : ["", "k", "M", "G", "T"]
        var scaled = Double(value)
        var index = 0
        while scaled >= 1000 && index < units.count - 1 {
            scaled /= 1000
            index += 1
        }
        let number = index == 0 ? "\(value)" : printf("%.1f", scaled)
        return unit == "bytes"
            ? "\(number) \(units[index])"
            : "\(number)\(units[index].isEmpty ? "" : " " + units[index]) \(unit)"
    }

    /// `4 s`, `3 min 20 s`, `2 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(min(seconds.rounded(.up), 1e12))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}
