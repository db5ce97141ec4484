// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import Locking
import TrackJournal

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The uplink's store-and-forward: each message goes into a journal before it is sent, and is
/// taken out of the count of unsent ones when the broker acknowledges it, so that nothing is
/// lost while the broker is away or the box restarts.
///
/// The outbox is a track journal (the same format as `gpsloc record`'s), sealed to a key of the
/// outbox's own: the uplink must read its messages back, so that key's private half is on the
/// box, in `outbox.key` (mode 0600, readable by the uplink's user alone); the messages are not in
/// the clear on disk. `acknowledged` records the last message the broker has, written whole
/// (a new file renamed over the old). New messages come from one task; marks, from libmosquitto's
/// thread and the sender's, go through a lock.
public final class UplinkOutbox: @unchecked Sendable {
    public let directory: String
    private let writer: JournalWriter
    private let key: JournalPrivateKey
    /// The broker's acknowledgements (from libmosquitto's thread and the sender's): the newest,
    /// the one last written to `acknowledged`, and when.
    private struct Mark {
        var position: JournalPosition?
        var written: JournalPosition?
        var writtenAt: ContinuousClock.Instant?
    }
    private let mark = Mutex(Mark())
    /// The mark read at the start: what the broker had then.
    private let acknowledgedAtStart: JournalPosition?

    /// The outbox in `directory` (made, mode 0700, with its key, when missing), holding at most
    /// `capBytes`: past it, the oldest unsent messages go.
    public init(directory: String, capBytes: Int) throws {
        self.directory = directory
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw JournalError("cannot make the outbox \(directory): \(String(cString: strerror(errno)))")
        }
        let keyPath = directory + "/outbox.key"
        if access(keyPath, F_OK) == 0 {
            key = try JournalKeys.privateKey(contentsOf: keyPath)
        } else {
            let (privateText, _) = JournalKeys.generate()
            do {
                try JournalKeys.createKeyFile(keyPath, privateText, mode: 0o600)
            } catch {
                throw JournalError("cannot make \(keyPath): \(error)")
            }
            key = try JournalKeys.privateKey(privateText, path: keyPath)
        }
        if let text = try? String(contentsOfFile: directory + "/acknowledged", encoding: .utf8) {
            let fields = text.split(separator: " ").compactMap {
                UInt64($0.trimmingWhitespace())
            }
            acknowledgedAtStart =
                fields.count == 2 ? JournalPosition(segment: fields[0], counter: fields[1]) : nil
        } else {
            acknowledgedAtStart = nil
        }
        writer = try JournalWriter(
            directory: directory + "/messages", recipient: key.publicKey,
            limits: .init(
                segmentBytes: 1 << 20, segmentSeconds: 3600, totalBytes: capBytes, syncEachRecord: true))
        let start = acknowledgedAtStart
        mark.withLock {
            $0.position = start
            $0.written = start
        }
    }

    /// What the outbox's journal lost to damage when it was read back: how many records, and
    /// where (the reader's words); `nil` when it was intact.
    public struct Damage: Sendable {
        /// Records known to be lost (messages, or the outbox's own opening and final records).
        public var lost: Int
        /// Whether more were lost where how many cannot be told.
        public var uncounted: Bool
        public var places: [String]
    }

    /// The messages kept and not yet acknowledged, oldest first, and what damage in the outbox
    /// cost: a damaged message is lost (never sent), the others are all there, in order, once.
    public func unsent() throws -> (messages: [(JournalPosition, [UInt8])], damage: Damage?) {
        var messages: [(JournalPosition, [UInt8])] = []
        let acknowledged = acknowledgedAtStart
        let report = try JournalReader(path: directory + "/messages", privateKey: key).read {
            record, position in
            guard case .message(let bytes) = record, acknowledged.map({ position > $0 }) ?? true else {
                return
            }
            messages.append((position, bytes))
        }
        let damage =
            report.isIntact
            ? nil : Damage(lost: report.lost, uncounted: report.lostUncounted > 0, places: report.damage)
        return (messages, damage)
    }

    /// Keeps a message; its place in the outbox.
    public func keep(_ payload: [UInt8]) throws -> JournalPosition {
        try writer.append(.message(payload))
    }

    /// The broker has every message up to `position`. The mark is written at most once a
    /// second (and at `close()`): after a crash, what the last second acknowledged is sent again,
    /// which QoS 1 allows (a subscriber drops duplicates by `tst`).
    public func acknowledge(through position: JournalPosition) {
        let now = ContinuousClock.now
        let due = mark.withLock { mark -> Bool in
            guard mark.position.map({ position > $0 }) ?? true else { return false }
            mark.position = position
            guard mark.writtenAt.map({ $0.duration(to: now) >= .seconds(1) }) ?? true else { return false }
            mark.writtenAt = now
            return true
        }
        if due { writeMark() }
    }

    /// Writes the newest mark, whole (a new file renamed over the old), unless written already.
    private func writeMark() {
        guard let position = mark.withLock({ $0.position }), mark.withLock({ $0.written }) != position else {
            return
        }
        let path = directory + "/acknowledged"
        do {
            try Data("\(position.segment) \(position.counter)\n".utf8).write(
                to: URL(fileURLWithPath: path + ".new"))
            if rename(path + ".new", path) != 0 { unlink(path + ".new") }
            mark.withLock { $0.written = position }
        } catch {
            // Not written: after a restart, messages since the last mark are sent again.
        }
    }

    public func close() {
        writeMark()
        try? writer.close()
    }
}
