// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import LocationWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The access history as `gpsloc activity` shows it: a table per app, a line per start and stop,
/// or NDJSON in the shape of Apple's App Privacy Report.
enum ActivityReport {
    /// One app's history, summed up.
    private struct Summary {
        var uid: UInt32
        var app: String
        var proof: String
        var lastUse: Double?
        var precise = false
        var approximate = false
        var uses = 0
        var updates = 0
        var interrupted = 0
        var frontEnds: Set<String> = []
        var lastRefusal: WireAccess?
    }

    /// A row per app (by user, then by last use, newest first), each with how it was proved.
    static func table(_ entries: [WireAccess], showingUser: Bool) -> [String] {
        var summaries: [String: Summary] = [:]
        for entry in entries {
            let key = "\(entry.uid) \(entry.app)"
            var summary =
                summaries[key] ?? Summary(uid: entry.uid, app: entry.app, proof: entry.proof)
            summary.proof = entry.proof
            switch entry.kind {
            case .begin:
                summary.uses += 1
                if entry.precise == true { summary.precise = true } else { summary.approximate = true }
                summary.frontEnds.insert(entry.frontEnd.rawValue)
                summary.lastUse = max(summary.lastUse ?? 0, entry.time)
            case .end:
                summary.updates += entry.updates ?? 0
                if entry.interrupted == true { summary.interrupted += 1 }
                summary.lastUse = max(summary.lastUse ?? 0, entry.time)
            case .refusal:
                if (summary.lastRefusal?.time ?? 0) <= entry.time { summary.lastRefusal = entry }
            }
            summaries[key] = summary
        }
        let rows = summaries.values.sorted {
            ($0.uid, -($0.lastUse ?? $0.lastRefusal?.time ?? 0), $0.app)
                < ($1.uid, -($1.lastUse ?? $1.lastRefusal?.time ?? 0), $1.app)
        }
        var table: [[String]] = [
            (showingUser ? ["UID"] : []) + [
                "APP", "LAST USE", "ACCURACY", "USES", "UPDATES", "VIA", "LAST REFUSAL",
            ]
        ]
        var proofs: [String] = []
        for row in rows {
            let accuracy =
                row.precise && row.approximate
                ? "both" : row.precise ? "precise" : row.approximate ? "approximate" : "-"
            let refusal = row.lastRefusal.map { "\(time($0.time)) \($0.reason ?? "other")" } ?? "-"
            let updates = "\(row.updates)" + (row.interrupted > 0 ? "+" : "")
            table.append(
                (showingUser ? ["\(row.uid)"] : []) + [
                    row.app, row.lastUse.map(time) ?? "never", accuracy, "\(row.uses)",
                    row.uses == 0 ? "-" : updates,
                    row.frontEnds.isEmpty ? "-" : row.frontEnds.sorted().joined(separator: ","), refusal,
                ])
            proofs.append(row.proof)
        }
        let widths = table[0].indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        var lines: [String] = []
        for (index, row) in table.enumerated() {
            lines.append(
                row.enumerated().map { column, cell in
                    column == row.count - 1
                        ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
                }.joined(separator: "  "))
            if index > 0 {
                lines.append("    proved by: \(proofs[index - 1])")
                if let refusal = rows[index - 1].lastRefusal, let text = refusal.text {
                    lines.append("    last refused: \(text)")
                }
            }
        }
        if rows.contains(where: { $0.interrupted > 0 }) {
            lines.append(
                "(+: some periods were interrupted, the daemon stopping while they lasted; their updates are not counted)"
            )
        }
        return lines
    }

    /// A start or a stop, as `--watch` prints it.
    static func watchLine(_ entry: WireAccess, showingUser: Bool) -> String {
        let who = "\(entry.app) (uid \(entry.uid))"
        switch entry.kind {
        case .begin:
            return "\(time(entry.time))  started  \(who) via \(entry.frontEnd.rawValue), "
                + "\(entry.precise == true ? "precise" : "approximate"); proved by \(entry.proof)"
        case .end:
            let count = entry.updates.map { ", after \(counted($0, "update", "updates"))" } ?? ""
            return "\(time(entry.time))  stopped  \(who) via \(entry.frontEnd.rawValue)\(count)"
        case .refusal:
            return
                "\(time(entry.time))  refused  \(who) via \(entry.frontEnd.rawValue): \(entry.reason ?? "other")"
        }
    }

    /// An entry as a line of Apple's App Privacy Report: a period's begin or end is an `access`
    /// of `category` `location`, its accessor the app as gpslocd proved it; a refusal, which the
    /// report has no type for, a `refusal` line of the same shape (readers of the report skip
    /// types they do not know, as they skip `networkActivity`).
    static func privacyReportLine(_ entry: WireAccess) -> String {
        var bytes: [UInt8] = []
        JSONObjectWriter.append(to: &bytes, estimate: 320) { json in
            json.openObject("accessor")
            json.add("identifier", string: identifier(entry.app))
            json.add("identifierType", string: identifierType(entry.app))
            json.closeObject()
            json.add("category", string: "location")
            json.add("identifier", string: entry.id)
            switch entry.kind {
            case .begin: json.add("kind", string: "intervalBegin")
            case .end: json.add("kind", string: "intervalEnd")
            case .refusal: json.add("reason", string: entry.reason)
            }
            json.add("timeStamp", string: isoTime(entry.time))
            json.add("type", string: entry.kind == .refusal ? "refusal" : "access")
            // What Apple's report has no member for, under names it does not use.
            json.add("uid", integer: Int(entry.uid))
            json.add("proof", string: entry.proof)
            json.add("protocol", string: entry.frontEnd.rawValue)
            if let precise = entry.precise { json.add("precise", bool: precise) }
            json.add("updates", integer: entry.updates)
            if entry.interrupted == true { json.add("interrupted", bool: true) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The accessor's identifier: the app id for a desktop app, a Flatpak or a snap (the bundle
    /// id's nearest kin), else gpslocd's name for it.
    static func identifier(_ app: String) -> String {
        for prefix in ["desktop:", "flatpak:", "snap:"] where app.hasPrefix(prefix) {
            return String(app.dropFirst(prefix.count))
        }
        return app
    }

    static func identifierType(_ app: String) -> String {
        if app.hasPrefix("desktop:") || app.hasPrefix("flatpak:") { return "bundleID" }
        if app.hasPrefix("snap:") { return "snap" }
        if app.hasPrefix("unit:") || app.hasPrefix("user-unit:") { return "systemdUnit" }
        if app.hasPrefix("network:") { return "networkAddress" }
        if app.hasPrefix("/") { return "executablePath" }
        return "identifier"
    }

    /// Local time, to the second, for a person.
    static func time(_ seconds: Double) -> String {
        let (fields, _) = local(seconds)
        return date(fields) + " " + clock(fields)
    }

    /// ISO 8601 in local time with milliseconds and the offset, as Apple's report writes it
    /// (`2026-12-07T10:31:02.123+01:00`).
    static func isoTime(_ seconds: Double) -> String {
        let (fields, milliseconds) = local(seconds)
        let offset = Int(fields.tm_gmtoff) / 60
        let sign = offset < 0 ? "-" : "+"
        let zone = sign + digits(abs(offset) / 60, 2) + ":" + digits(abs(offset) % 60, 2)
        return date(fields) + "T" + clock(fields) + "." + digits(milliseconds, 3) + zone
    }

    private static func date(_ fields: tm) -> String {
        digits(Int(fields.tm_year) + 1900, 4) + "-" + digits(Int(fields.tm_mon) + 1, 2) + "-"
            + digits(Int(fields.tm_mday), 2)
    }

    private static func clock(_ fields: tm) -> String {
        digits(Int(fields.tm_hour), 2) + ":" + digits(Int(fields.tm_min), 2) + ":"
            + digits(Int(fields.tm_sec), 2)
    }

    private static func digits(_ number: Int, _ width: Int) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private static func local(_ seconds: Double) -> (tm, Int) {
        let whole = seconds.rounded(.down)
        var time = time_t(whole)
        var fields = tm()
        localtime_r(&time, &fields)
        return (fields, min(999, Int(((seconds - whole) * 1000).rounded())))
    }
}
