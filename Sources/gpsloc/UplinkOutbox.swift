// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSSSources

/// The uplink's store-and-forward: each message goes into a journal before it is sent, and is
/// taken out of the count of unsent ones when the broker acknowledges it, so that nothing is
/// lost while the broker is away or the box restarts.
///
/// The outbox is a track journal (the same format as `gpsloc record`'s), sealed to a key of the
/// outbox's own: the uplink must read its messages back, so that key's private half is on the
/// box, in `outbox.key` (mode 0600, readable by the uplink's user alone); the messages are not in
/// the clear on disk. `acknowledged` records the last message the broker has, written whole
/// (a new file renamed over the old). Its writer is used under the uplink queue's calls, one at
/// a time (new messages from the updates' task, marks from libmosquitto's thread touch only the
/// mark's file).
final class UplinkOutbox: @unchecked Sendable {
    let directory: String
    private let writer: JournalWriter
    private let key: JournalPrivateKey
    private(set) var acknowledged: JournalPosition?

    init(directory: String, capBytes: Int) throws {
        self.directory = directory
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw JournalError("cannot make the outbox \(directory): \(String(cString: strerror(errno)))")
        }
        let keyPath = directory + "/outbox.key"
        if let text = try? String(contentsOfFile: keyPath, encoding: .utf8) {
            key = try JournalKeys.privateKey(text, path: keyPath)
        } else {
            let (privateText, _) = JournalKeys.generate()
            let descriptor = open(keyPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw JournalError("cannot make \(keyPath): \(String(cString: strerror(errno)))")
            }
            defer { Glibc.close(descriptor) }
            try writeAll(Array(privateText.utf8), to: descriptor)
            _ = fsync(descriptor)
            key = try JournalKeys.privateKey(privateText, path: keyPath)
        }
        if let text = try? String(contentsOfFile: directory + "/acknowledged", encoding: .utf8) {
            let fields = text.split(separator: " ").compactMap {
                UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if fields.count == 2 { acknowledged = JournalPosition(segment: fields[0], counter: fields[1]) }
        }
        writer = try JournalWriter(
            directory: directory + "/messages", recipient: key.publicKey,
            limits: .init(
                segmentBytes: 1 << 20, segmentSeconds: 3600, totalBytes: capBytes, syncEachRecord: true))
    }

    /// The messages kept and not yet acknowledged, oldest first.
    func unsent() throws -> [(JournalPosition, [UInt8])] {
        var messages: [(JournalPosition, [UInt8])] = []
        let acknowledged = acknowledged
        _ = try JournalReader(path: directory + "/messages", privateKey: key).read { record, position in
            guard case .message(let bytes) = record, acknowledged.map({ position > $0 }) ?? true else {
                return
            }
            messages.append((position, bytes))
        }
        return messages
    }

    /// Keeps a message; its place in the outbox.
    func keep(_ payload: [UInt8]) throws -> JournalPosition {
        try writer.append(.message(payload))
    }

    /// The broker has every message up to `position`.
    func acknowledge(through position: JournalPosition) {
        guard acknowledged.map({ position > $0 }) ?? true else { return }
        acknowledged = position
        let path = directory + "/acknowledged"
        let text = "\(position.segment) \(position.counter)\n"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path + ".new"))
            if rename(path + ".new", path) != 0 { unlink(path + ".new") }
        } catch {
            // Not written: after a restart, messages since the last mark are sent again (QoS 1
            // allows duplicates; a subscriber drops them by `tst`).
        }
    }

    func close() { try? writer.close() }
}
