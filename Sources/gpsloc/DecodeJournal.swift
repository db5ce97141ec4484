// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FoundationEssentials
import GNSSSources

#if Journal
    import TrackJournal
#endif

/// `gpsloc decode --key FILE JOURNAL`: a track journal recorded with `--nmea` is decoded as the log
/// its NMEA makes. The sentences are opened into memory (a memfd), never onto the disk, and
/// decoded from there; what of the journal is damaged is said, and only authentic records count.
enum DecodeJournal {
    /// `files` with each track journal among them replaced by its NMEA in memory, opened with the
    /// private key at `keyPath`; the descriptors opened are added to `opened`, for the caller to
    /// close. A journal without `--key`, or `--key` in a gpsloc built without the journal, is an
    /// error that says what to do.
    static func openJournals(among files: [String], keyPath: String?, opened: inout [Int32]) throws
        -> [String]
    {
        #if Journal
            var arguments = files
            guard let keyPath else {
                if let journal = files.first(where: JournalReader.isJournal) {
                    printError(
                        "gpsloc decode: error: \(journal) is a sealed track journal; give its private key with --key FILE"
                    )
                    throw ExitCode.failure
                }
                return files
            }
            let key = try Journal.KeyOption(path: keyPath).load(required: true, command: "decode")!
            for (index, file) in files.enumerated() where JournalReader.isJournal(file) {
                do {
                    let (path, descriptor) = try open(file, key: key)
                    arguments[index] = path
                    opened.append(descriptor)
                } catch {
                    printError("gpsloc decode: error: \(file): \(error)")
                    throw ExitCode.failure
                }
            }
            return arguments
        #else
            if keyPath != nil {
                try NotInThisBuild.refuse("decode", "--key: " + NotInThisBuild.journal)
            }
            return files
        #endif
    }

    #if Journal
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
    #endif
}
