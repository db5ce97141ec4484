// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSSSources
import TrackJournal

/// `gpsloc decode --key FILE JOURNAL`: a track journal recorded with `--nmea` is decoded as the log
/// its NMEA makes. The sentences are opened into memory (a memfd), never onto the disk, and
/// decoded from there; what of the journal is damaged is said, and only authentic records count.
enum DecodeJournal {
    /// The journal's NMEA in an in-memory file; its path (`/proc/self/fd/N`) and descriptor.
    static func open(_ path: String, key: JournalPrivateKey) throws -> (path: String, descriptor: Int32) {
        let opened = try JournalReader(path: path, privateKey: key).sentencesInMemory()
        for note in opened.report.notes { printError("gpsloc decode: \(note)") }
        for damage in opened.report.damage { printError("gpsloc decode: damage: \(damage)") }
        if opened.records == 0 {
            printError(
                "gpsloc decode: \(path) holds no NMEA (recorded without --nmea): `gpsloc journal decrypt` gives its locations"
            )
        }
        return (opened.path, opened.descriptor)
    }
}
