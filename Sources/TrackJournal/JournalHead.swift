// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the recorder last said of its journal's newest segment, in the file `head` beside the
/// segments: the journal's identity, the newest segment's number, and whether it was closed (with
/// how many records) or is being written. Rewritten whole (a new file renamed over the old) when
/// a segment begins and when the journal is closed.
///
/// It lets `verify` on the box tell a rollback — the newest segments deleted, or a closed segment
/// cut short — which the segments alone cannot show: the newest one left is whole and says
/// nothing of what came after it. It is in the clear and not sealed (the box holds no key that
/// could seal it against itself): someone who deletes or rewrites it too, with the segments,
/// leaves a journal whose newest segments cannot be known to be missing; the fleet's copy of what
/// it received is then the only witness.
public struct JournalHead: Sendable, Hashable {
    public var journal: [UInt8]
    public var segment: UInt64
    /// The segment's records once it was closed; `nil` while it is written.
    public var closedWith: UInt64?

    public init(journal: [UInt8], segment: UInt64, closedWith: UInt64?) {
        self.journal = journal
        self.segment = segment
        self.closedWith = closedWith
    }

    static let fileName = "head"

    /// The file's text.
    var text: String {
        let id = JournalFormat.hex(journal)
        let state = closedWith.map { "closed \($0)" } ?? "open"
        return "ocl-journal-head 1\njournal \(id)\nsegment \(segment)\nstate \(state)\n"
    }

    /// Reads the file's text; `nil` when it is not a head.
    init?(text: String) {
        var fields: [String: String] = [:]
        let lines = text.split(separator: "\n")
        guard lines.first == "ocl-journal-head 1" else { return nil }
        for line in lines.dropFirst() {
            guard let space = line.firstIndex(of: " ") else { return nil }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        guard let id = fields["journal"].flatMap(JournalFormat.bytes(hex:)),
            id.count == JournalFormat.journalIDSize,
            let segment = fields["segment"].flatMap(UInt64.init), let state = fields["state"]
        else { return nil }
        journal = id
        self.segment = segment
        if state == "open" {
            closedWith = nil
        } else if state.hasPrefix("closed "), let records = UInt64(state.dropFirst(7)) {
            closedWith = records
        } else {
            return nil
        }
    }

    /// The head of the journal in `directory`: `.missing` when it has none, `.unreadable` when
    /// its file is not one.
    enum Found: Sendable, Hashable {
        case head(JournalHead)
        case missing
        case unreadable
    }

    static func read(in directory: String) -> Found {
        let path = directory + "/" + fileName
        guard access(path, F_OK) == 0 else { return .missing }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let head = JournalHead(text: text)
        else {
            return .unreadable
        }
        return .head(head)
    }

    /// Writes the head whole into `directory` (on disk when `sync`). A failure (a full disk)
    /// leaves the old one, which names an older segment: a head that lags is never read as a
    /// rollback, it only tells less.
    func write(in directory: String, sync: Bool) {
        let path = directory + "/" + Self.fileName
        do {
            let file = try FileDescriptor.open(
                path + ".new", .writeOnly, options: [.create, .truncate, .closeOnExec],
                permissions: [.ownerReadWrite])
            defer { try? file.close() }
            _ = try file.writeAll(Array(text.utf8))
            if sync { _ = fdatasync(file.rawValue) }
        } catch {
            unlink(path + ".new")
            return
        }
        if rename(path + ".new", path) != 0 { unlink(path + ".new") }
    }
}
