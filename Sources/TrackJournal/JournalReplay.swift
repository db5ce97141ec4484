// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import GNSSSources

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A track journal read back as a source (`file:PATH?key=PRIVATE`): its NMEA, opened into memory
/// and replayed from there. A damaged journal, or one recorded without NMEA, is refused, saying so.
public struct JournalReplay: JournalOpening {
    public init() {}

    public func open(_ path: String, keyPath: String, speed: ReplaySpeed) throws(SourceError) -> any FixSource
    {
        do {
            let key = try JournalKeys.privateKey(contentsOf: keyPath)
            let opened = try JournalReader(path: path, privateKey: key).sentencesInMemory()
            guard opened.report.isIntact else {
                close(opened.descriptor)
                throw JournalError("\(path) is damaged: " + opened.report.damage.joined(separator: "; "))
            }
            guard opened.records > 0 else {
                close(opened.descriptor)
                throw JournalError("\(path) holds no NMEA (recorded without --nmea)")
            }
            // The replay reads it by its /proc path; the descriptor lives as long as the process.
            return ReplaySource(path: opened.path, speed: speed)
        } catch {
            throw SourceError("file:\(path)?key=\(keyPath): \(error)")
        }
    }
}
