// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// What a log's first bytes say it is: NMEA text (or anything else this reader tries as text),
/// gzip, xz or zstd (which it decompresses), a sealed track journal (which the journal's module
/// opens), or a format it cannot read, with what to do about it.
public enum LogFormat: Sendable, Hashable {
    case text
    case gzip
    case xz
    case zstd
    /// Compressed some way this build does not read: the command that decompresses it.
    case compressed(name: String, command: String)
    /// A track journal's segment (`gpsloc record`): sealed, read only with its private key.
    case trackJournal
    /// Not a log at all.
    case notALog(what: String)

    /// The first bytes of a track journal's segment.
    public static let trackJournalMagic: [UInt8] = Array("OCLJ".utf8)

    /// The format `prefix` (the first bytes of a file) shows.
    public static func detect(_ prefix: some Collection<UInt8>) -> LogFormat {
        let bytes = Array(prefix.prefix(8))
        func starts(_ magic: [UInt8]) -> Bool { bytes.starts(with: magic) }
        if starts([0x1F, 0x8B]) { return .gzip }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return .zstd }
        if starts(trackJournalMagic) { return .trackJournal }
        if starts(Array("BZh".utf8)) && bytes.count > 3 && (0x31...0x39).contains(bytes[3]) {
            return .compressed(name: "bzip2", command: "bzip2 -dc")
        }
        if starts([0x50, 0x4B, 0x03, 0x04]) {
            return .compressed(name: "a zip archive", command: "unzip -p")
        }
        if starts([0x7F, 0x45, 0x4C, 0x46]) { return .notALog(what: "an executable (ELF)") }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return .notALog(what: "a PNG image") }
        if starts(Array("%PDF".utf8)) { return .notALog(what: "a PDF document") }
        return .text
    }
}
