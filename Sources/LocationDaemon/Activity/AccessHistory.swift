// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import FoundationEssentials
import LocationWire
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The access history in the state directory: one file per user (`activity/<uid>.ndjson`), a
/// line per ``WireAccess``, appended and never rewritten in place. A power cut can cut off the
/// last line at most: it is skipped and counted on reading, and the next line starts on a line of
/// its own. Entries older than the retention are dropped (``prune(now:)``), and a user's file
/// never grows past its bound: the oldest entries go first. It holds no coordinate: a
/// ``WireAccess`` has no place for one.
///
/// Written on a thread of its own (``record(_:now:)``), in the order entries came: a slow disk,
/// or a compaction's `fsync`, never holds up the event loop whose delivery began a period.
final class AccessHistory: Sendable {
    struct Limits: Sendable {
        /// How long an entry is kept.
        var retention: Duration = .seconds(7 * 24 * 3600)
        /// The most bytes a user's history holds (some 5,000 entries by default).
        var bytesPerUser = 1 << 20
    }

    /// A user's history as read: its entries, oldest first, and how many lines were not
    /// entries (a line cut off by a power cut, damage).
    struct Read: Sendable {
        var entries: [WireAccess] = []
        var damaged = 0
    }

    let directory: String
    let limits: Limits
    private let log: @Sendable (String) -> Void
    /// Every write and every read of the files, one at a time, in order.
    private let queue = DispatchQueue(label: "gpslocd access history")
    /// The users whose history could not be written, told once until it can again.
    private let failing = Mutex<Set<UInt32>>([])

    init(directory: String, limits: Limits = Limits(), log: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.limits = limits
        self.log = log
    }

    func path(uid: UInt32) -> String { "\(directory)/\(uid).ndjson" }

    /// The users who have a history.
    func users() -> [UInt32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            name.hasSuffix(".ndjson") ? UInt32(name.dropLast(".ndjson".count)) : nil
        }.sorted()
    }

    /// Queues `entry` for its user's history, written after every entry queued before it.
    func record(_ entry: WireAccess, now: Date) {
        queue.async { self.append(entry, now: now) }
    }

    /// Waits until every entry queued is written.
    func flush() { queue.sync {} }

    /// The histories of `uids`, read after every entry queued before; `read` gets them on the
    /// history's thread.
    func read(uids: [UInt32]?, _ read: @escaping @Sendable ([UInt32: Read]) -> Void) {
        queue.async {
            var found: [UInt32: Read] = [:]
            for uid in uids ?? self.users() { found[uid] = self.read(uid: uid) }
            read(found)
        }
    }

    /// Appends `entry` to its user's history, making room first when the file is full; a failure
    /// is logged once until a write succeeds again (the history is a record, never a reason to
    /// refuse a client).
    private func append(_ entry: WireAccess, now: Date) {
        let line = entry.line()
        do {
            try ensureDirectory()
            let path = path(uid: entry.uid)
            if fileSize(path) + line.count > limits.bytesPerUser {
                try compact(uid: entry.uid, now: now, room: line.count)
            }
            try appendLine(line, to: path)
            if failing.withLock({ $0.remove(entry.uid) != nil }) {
                log("the access history of uid \(entry.uid) is written again")
            }
        } catch {
            if failing.withLock({ $0.insert(entry.uid).inserted }) {
                log(
                    "the access history of uid \(entry.uid) cannot be written (\(error)); its entries are lost "
                        + "until it can: check \(directory)")
            }
        }
    }

    /// Reads a user's history, as the files hold it now (``flush()`` first for what was queued).
    func read(uid: UInt32) -> Read {
        guard let bytes = FileManager.default.contents(atPath: path(uid: uid)) else { return Read() }
        var read = Read()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if let entry = WireAccess.parse(line) { read.entries.append(entry) } else { read.damaged += 1 }
        }
        return read
    }

    /// Drops every user's entries older than the retention; returns how many it dropped.
    @discardableResult
    func prune(now: Date) -> Int {
        queue.sync {
            var dropped = 0
            for uid in users() {
                do {
                    dropped += try compact(uid: uid, now: now, room: 0)
                } catch {
                    log("the access history of uid \(uid) could not be pruned (\(error)); check \(directory)")
                }
            }
            return dropped
        }
    }

    /// Ends every period whose end was never written (the daemon stopped while it lasted): at
    /// `now`, marked interrupted. The daemon runs this once, as it starts, before any period
    /// begins; returns how many it ended.
    @discardableResult
    func endInterrupted(now: Date) -> Int {
        queue.sync { endingInterrupted(now: now) }
    }

    private func endingInterrupted(now: Date) -> Int {
        var ended = 0
        for uid in users() {
            let entries = read(uid: uid).entries
            let closed = Set(entries.filter { $0.kind == .end }.map(\.id))
            for begin in entries where begin.kind == .begin && !closed.contains(begin.id) {
                var end = begin
                end.kind = .end
                end.time = Self.seconds(now)
                end.precise = nil
                end.interrupted = true
                append(end, now: now)
                ended += 1
            }
        }
        return ended
    }

    static func seconds(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000).rounded() / 1000
    }

    // MARK: Files

    private func ensureDirectory() throws {
        var status = stat()
        if stat(directory, &status) == 0 { return }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    /// Appends one line with one write, on a line of its own: a file whose last line was cut
    /// off gets a newline first, so the cut line stays one damaged line and this one is whole.
    private func appendLine(_ line: [UInt8], to path: String) throws {
        let file = try FileDescriptor.open(
            path, .readWrite, options: [.append, .create, .closeOnExec], permissions: [.ownerReadWrite])
        defer { try? file.close() }
        var bytes = line
        let size = try file.seek(offset: 0, from: .end)
        if size > 0 {
            var last: UInt8 = 0
            let read = try withUnsafeMutableBytes(of: &last) {
                try file.read(fromAbsoluteOffset: size - 1, into: $0)
            }
            if read == 1 && last != UInt8(ascii: "\n") { bytes.insert(UInt8(ascii: "\n"), at: 0) }
        }
        _ = try file.writeAll(bytes)
    }

    /// Rewrites a user's history without the entries older than the retention, and without the
    /// oldest ones as long as `room` more bytes would not fit in half the bound; damaged lines
    /// and ends whose begin went are dropped with them. Written beside and renamed over, so that
    /// a power cut leaves the old history or the new one. Returns how many entries it dropped.
    @discardableResult
    private func compact(uid: UInt32, now: Date, room: Int) throws -> Int {
        let path = path(uid: uid)
        let read = read(uid: uid)
        let oldest = Self.seconds(now) - Double(limits.retention.components.seconds)
        var kept = read.entries.filter { $0.time >= oldest }
        var lines = kept.map { $0.line() }
        var bytes = lines.reduce(0) { $0 + $1.count }
        if room > 0 {
            var first = 0
            while first < lines.count && bytes + room > limits.bytesPerUser / 2 {
                bytes -= lines[first].count
                first += 1
            }
            kept.removeFirst(first)
            lines.removeFirst(first)
        }
        let begun = Set(kept.filter { $0.kind == .begin }.map(\.id))
        let orphans = Set(kept.indices.filter { kept[$0].kind == .end && !begun.contains(kept[$0].id) })
        let dropped = read.entries.count - kept.count + orphans.count
        guard dropped > 0 || read.damaged > 0 else { return 0 }
        var output: [UInt8] = []
        for (index, line) in lines.enumerated() where !orphans.contains(index) { output += line }
        let temporary = path + ".new"
        let file = try FileDescriptor.open(
            temporary, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite]
        )
        do {
            _ = try file.writeAll(output)
            _ = fsync(file.rawValue)
            try file.close()
        } catch {
            try? file.close()
            throw error
        }
        guard rename(temporary, path) == 0 else { throw Errno(rawValue: errno) }
        return dropped
    }
}
