// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import Locking
import TrackJournal

/// What the uplink has to send, in order: the outbox's unacknowledged messages, then each new
/// one. Sent while connected, up to 100 awaiting their acknowledgement; a disconnection puts
/// those back at the front, to be sent again once connected.
public final class UplinkQueue: Sendable {
    private struct State {
        var pending = Backlog()
        /// Sent and not yet acknowledged, in the order sent, by message id.
        var inflight: [(mid: Int32, position: JournalPosition, payload: [UInt8])] = []
        var connected = false
        var stopping = false
        var lastSaid = ""
        /// Acknowledged and not yet under the outbox's mark (an older one is still awaited).
        var acknowledged: [JournalPosition] = []
        /// Acknowledgements that came before their message's id was noted.
        var early: Set<Int32> = []

        /// The newest acknowledged position with nothing older still to send. Both queues
        /// are in the outbox's order, so the oldest outstanding is at one of their fronts.
        mutating func mark() -> JournalPosition? {
            let outstanding = [
                inflight.first(where: { $0.position.segment > 0 })?.position, pending.firstKept,
            ].compactMap { $0 }.min()
            let done = acknowledged.filter { position in outstanding.map { position < $0 } ?? true }
            acknowledged.removeAll { position in outstanding.map { position < $0 } ?? true }
            return done.max()
        }
    }

    private let outbox: UplinkOutbox
    private let topic: String
    private let state = Mutex(State())
    private let publisher = Mutex<(any MessagePublisher)?>(nil)
    private let say: @Sendable (String) -> Void
    /// How many messages may await their acknowledgement at once.
    public static let window = 100

    /// The queue of `outbox`'s unsent messages and each new one, published on `topic` through the
    /// publisher `connect` makes (handed the events it must report); what happens is told to
    /// `say` (each message once, until another comes between).
    public init(
        outbox: UplinkOutbox, topic: String,
        connect: (_ events: @escaping @Sendable (PublisherEvent) -> Void) throws -> any MessagePublisher,
        say: @escaping @Sendable (String) -> Void
    ) throws {
        self.outbox = outbox
        self.topic = topic
        self.say = say
        let (unsent, damage) = try outbox.unsent()
        state.withLock { $0.pending.append(contentsOf: unsent) }
        if let damage {
            say(
                "the outbox is damaged: \(counted(damage.lost, "record", "records")) lost\(damage.uncounted ? ", and more where how many cannot be told" : ""), "
                    + "never sent; the \(counted(unsent.count, "message", "messages")) around \(damage.lost == 1 && !damage.uncounted ? "it" : "them") \(agreeing(unsent.count, "is", "are")) sent, in order: "
                    + damage.places.joined(separator: "; "))
        }
        let made = try connect { [weak self] event in self?.handle(event) }
        publisher.withLock { $0 = made }
    }

    /// Messages not yet acknowledged.
    public var waiting: Int { state.withLock { $0.pending.count + $0.inflight.count } }

    /// Keeps `payload` in the outbox and sends it when its turn comes.
    public func send(_ payload: [UInt8]) {
        do {
            let position = try outbox.keep(payload)
            state.withLock { $0.pending.append((position, payload)) }
        } catch {
            tell("\(error); this message is sent without being kept")
            state.withLock { $0.pending.append((JournalPosition(segment: 0, counter: 0), payload)) }
        }
        pump()
    }

    private func handle(_ event: PublisherEvent) {
        switch event {
        case .connected:
            state.withLock { $0.connected = true }
            tell("connected; \(counted(waiting, "message", "messages")) to send")
            pump()
        case .refused(let reason):
            tell("the broker refused the connection: \(reason)")
        case .disconnected(let reason):
            let stopping = state.withLock { state in
                state.connected = false
                // Sent again once connected: the broker may not have them.
                state.pending.prepend(contentsOf: state.inflight.map { ($0.position, $0.payload) })
                state.inflight = []
                return state.stopping
            }
            if !stopping {
                tell("the broker is unreachable (\(reason)); keeping messages until it is back")
            }
        case .acknowledged(let mid):
            let through = state.withLock { state -> JournalPosition? in
                guard let index = state.inflight.firstIndex(where: { $0.mid == mid }) else {
                    state.early.insert(mid)
                    return nil
                }
                let acknowledged = state.inflight.remove(at: index)
                if acknowledged.position.segment > 0 { state.acknowledged.append(acknowledged.position) }
                return state.mark()
            }
            if let through { outbox.acknowledge(through: through) }
            pump()
        }
    }

    /// Sends what is pending while connected and the window has room.
    private func pump() {
        guard let publisher = publisher.withLock({ $0 }) else { return }
        while true {
            let next = state.withLock { state -> (JournalPosition, [UInt8])? in
                guard state.connected, state.inflight.count < Self.window, !state.pending.isEmpty else {
                    return nil
                }
                return state.pending.popFirst()
            }
            guard let (position, payload) = next else { return }
            guard let mid = publisher.publish(topic: topic, payload: payload) else {
                state.withLock { $0.pending.prepend(contentsOf: [(position, payload)]) }
                return
            }
            // Its acknowledgement, on libmosquitto's thread, may have come already.
            let through = state.withLock { state -> JournalPosition? in
                guard state.early.remove(mid) != nil else {
                    state.inflight.append((mid, position, payload))
                    return nil
                }
                if position.segment > 0 { state.acknowledged.append(position) }
                return state.mark()
            }
            if let through { outbox.acknowledge(through: through) }
        }
    }

    /// Waits until everything is acknowledged, or `limit` passes.
    public func drain(within limit: Duration) async {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while waiting > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    public func stop() {
        let unsent = state.withLock { state in
            state.stopping = true
            return state.pending.count + state.inflight.count
        }
        if unsent > 0 {
            say("stopping with \(counted(unsent, "message", "messages")) kept in the outbox for the next run")
        }
        publisher.withLock { $0 }?.stop()
        outbox.close()
    }

    /// Says `text` unless it said it last.
    private func tell(_ text: String) {
        let new = state.withLock { state -> Bool in
            defer { state.lastSaid = text }
            return state.lastSaid != text
        }
        if new { say(text) }
    }
}

/// The messages waiting to be sent, oldest first: taken from the front in constant time (a
/// long outage leaves hundreds of thousands), put back at the front after a disconnection.
struct Backlog {
    private var items: [(JournalPosition, [UInt8])] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }

    /// The oldest waiting message that the outbox kept (one it could not keep has segment 0).
    var firstKept: JournalPosition? { items[head...].first { $0.0.segment > 0 }?.0 }

    mutating func append(_ item: (JournalPosition, [UInt8])) { items.append(item) }
    mutating func append(contentsOf more: [(JournalPosition, [UInt8])]) { items += more }

    mutating func popFirst() -> (JournalPosition, [UInt8])? {
        guard head < items.count else { return nil }
        let item = items[head]
        items[head].1 = []
        head += 1
        // The taken ones are let go once they are half of the array.
        if head >= 1024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    mutating func prepend(contentsOf front: [(JournalPosition, [UInt8])]) {
        if front.count <= head {
            head -= front.count
            items.replaceSubrange(head..<(head + front.count), with: front)
        } else {
            items = front + items[head...]
            head = 0
        }
    }
}
