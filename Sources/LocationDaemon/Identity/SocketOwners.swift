// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Locking

/// Finds and pins the process holding a TCP client's socket, off the threads Swift's concurrency
/// runs on, one user at a time.
///
/// The kernel says which user holds a socket (sock_diag) but not which process: that takes a read
/// of the descriptors of every process of that user, a cost that grows with what the user holds
/// open, and a user can hold a great deal (120,000 sockets is a few seconds). So each user's
/// searches run on a thread of that user's own, one read at a time, and every socket asked for
/// while one runs is found by the next: a user's hundred connections cost a read or two, and only
/// that user's connections wait on them, never another user's newcomer.
final class SocketOwners: Sendable {
    static let shared = SocketOwners()

    private struct Request {
        let inode: UInt64
        let client: TCPPeer.Endpoint
        let answer: CheckedContinuation<Result<PeerCredentials, TCPPeer.Refusal>, Never>
    }

    /// The requests waiting, by user; a user listed has its thread running.
    private let waiting = Mutex<[UInt32: [Request]]>([:])

    func pin(uid: UInt32, inode: UInt64, client: TCPPeer.Endpoint) async -> Result<
        PeerCredentials, TCPPeer.Refusal
    > {
        await withCheckedContinuation { answer in
            let start = waiting.withLock { waiting in
                let running = waiting[uid] != nil
                waiting[uid, default: []].append(Request(inode: inode, client: client, answer: answer))
                return !running
            }
            if start { detachThread(named: "gpslocd trace") { self.search(uid) } }
        }
    }

    /// `uid`'s thread: reads its processes' descriptors for every request waiting, answers them,
    /// and ends when none is left.
    private func search(_ uid: UInt32) {
        while true {
            let batch = waiting.withLock { waiting -> [Request] in
                let batch = waiting[uid] ?? []
                // Nothing left: the thread ends, and the next request starts another.
                waiting[uid] = batch.isEmpty ? nil : []
                return batch
            }
            if batch.isEmpty { return }
            let owners = TCPPeer.owners(of: Set(batch.map(\.inode)), uid: uid)
            for request in batch {
                request.answer.resume(
                    returning: TCPPeer.pin(
                        uid: uid, inode: request.inode, client: request.client,
                        owners: owners[request.inode] ?? []))
            }
        }
    }
}
