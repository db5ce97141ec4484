// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import Locking

/// gpsd's reports (TPV, SKY, GST, ATT) of each receiver's latest precise fix, written once for all
/// the gpsd clients watching it: each precise watcher gets the same bytes, and writing them was
/// most of what a watcher cost the daemon per fix.
final class GPSDReportCache: Sendable {
    /// A fix's reports, each a line without its CRLF; SKY when the fix has something for it.
    struct Reports: Sendable {
        var tpv: [UInt8]
        var sky: [UInt8]?
        /// TPV, SKY, GST and ATT as sent: CRLF lines.
        var lines: [UInt8]
    }

    private struct Entry {
        /// The `device` the reports name, as written.
        var device: [UInt8]
        var fix: Fix
        var reports: Reports
    }

    /// One entry per receiver: a few, looked through in order, so that no watcher hashes the
    /// device's name at every fix.
    private let entries = Mutex<[Entry]>([])

    /// The reports of `fix` naming `device`: the ones already written when another watcher
    /// asked for the same fix, else written now.
    func reports(of fix: Fix, device: QuotedText?) -> Reports {
        let key = device?.bytes ?? []
        // Compared where it lies: the entry's fix is not copied out for each watcher.
        let hit = entries.withLock { entries -> Reports? in
            guard let index = entries.firstIndex(where: { $0.device == key && $0.fix == fix }) else {
                return nil
            }
            return entries[index].reports
        }
        if let hit { return hit }
        let reports = Self.write(fix, device: device)
        entries.withLock { entries in
            let entry = Entry(device: key, fix: fix, reports: reports)
            if let index = entries.firstIndex(where: { $0.device == key }) {
                entries[index] = entry
            } else {
                entries.append(entry)
            }
        }
        return reports
    }

    private static func write(_ fix: Fix, device: QuotedText?) -> Reports {
        var tpv: [UInt8] = []
        FixFormat.appendGPSDTPV(fix, device: device, to: &tpv)
        var sky: [UInt8]?
        if fix.dop.hdop != nil || fix.dop.pdop != nil || !fix.satellites.isEmpty {
            var report: [UInt8] = []
            FixFormat.appendGPSDSKY(fix, device: device, to: &report)
            sky = report
        }
        var lines = tpv + [13, 10] + (sky.map { $0 + [13, 10] } ?? [])
        if FixFormat.appendGPSDGST(fix, device: device, to: &lines) { lines += [13, 10] }
        if FixFormat.appendGPSDATT(fix, device: device, to: &lines) { lines += [13, 10] }
        return Reports(tpv: tpv, sky: sky, lines: lines)
    }
}
