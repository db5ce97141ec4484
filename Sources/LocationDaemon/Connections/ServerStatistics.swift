// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import Synchronization

/// What the server counts, for its log and its status line.
public final class ServerStatistics: Sendable {
    private let open = Atomic<Int>(0)
    private let total = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)
    private let cutOffCount = Atomic<Int>(0)

    public init() {}

    func connected() {
        open.add(1, ordering: .relaxed)
        total.add(1, ordering: .relaxed)
    }

    func disconnected() { open.subtract(1, ordering: .relaxed) }
    func refused() { refusedCount.add(1, ordering: .relaxed) }
    func cutOff() { cutOffCount.add(1, ordering: .relaxed) }

    /// Connections open now.
    public var connections: Int { open.load(ordering: .relaxed) }
    /// Connections since the start.
    public var accepted: Int { total.load(ordering: .relaxed) }
    /// Requests refused as malformed, oversized or out of order.
    public var refusedRequests: Int { refusedCount.load(ordering: .relaxed) }
    /// Clients cut off because they stopped reading.
    public var cutOffClients: Int { cutOffCount.load(ordering: .relaxed) }

    public var summary: String {
        "\(counted(connections, "client", "clients")) connected, \(accepted) since start, "
            + "\(counted(refusedRequests, "request", "requests")) refused, "
            + "\(counted(cutOffClients, "client", "clients")) cut off for not reading"
    }
}
