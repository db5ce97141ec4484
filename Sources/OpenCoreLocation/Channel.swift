import Synchronization

/// A single-consumer queue between the location service and one `for try await` loop.
///
/// Fix-driven elements are sent with ``send(_:)``, which waits while the consumer is more than
/// ``highWater`` elements behind, so a log replayed at full speed is paced by its slowest reader
/// instead of filling memory. State changes (authorization, diagnostics) use ``post(_:)``, which
/// never waits. When the consumer goes away (the loop ends or its task is cancelled) the queue
/// closes, waiting senders are released and `onTermination` runs once.
final class Channel<Element: Sendable>: Sendable {
    let highWater: Int

    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var closed = false
        var consumer: CheckedContinuation<Element?, Never>?
        var senders: [CheckedContinuation<Void, Never>] = []
        var onTermination: (@Sendable () -> Void)?
        var count: Int { buffer.count - head }
    }

    private let state: Mutex<State>

    init(highWater: Int = 256, onTermination: (@Sendable () -> Void)? = nil) {
        self.highWater = highWater
        state = Mutex(State(onTermination: onTermination))
    }

    /// Appends without waiting.
    func post(_ element: Element) {
        let consumer = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            guard !state.finished, !state.closed else { return nil }
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            state.buffer.append(element)
            return nil
        }
        consumer?.resume(returning: element)
    }

    /// Appends, then waits while the consumer is far behind.
    func send(_ element: Element) async {
        post(element)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state -> Bool in
                guard state.count > highWater, !state.closed, !state.finished else { return false }
                state.senders.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
    }

    /// No more elements: the consumer sees the end after the buffered ones.
    func finish() {
        let consumer = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.consumer = nil }
            return state.count == 0 ? state.consumer : nil
        }
        consumer?.resume(returning: nil)
    }

    /// The consumer has gone: drop everything and release the senders.
    func close() {
        let (consumer, senders, termination) = state.withLock { state in
            let result = (state.consumer, state.senders, state.closed ? nil : state.onTermination)
            state.closed = true
            state.consumer = nil
            state.senders = []
            state.buffer = []
            state.head = 0
            state.onTermination = nil
            return result
        }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume() }
        termination?()
    }

    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let (value, ready, senders) = state.withLock {
                    state -> (Element?, Bool, [CheckedContinuation<Void, Never>]) in
                    if state.closed { return (nil, true, []) }
                    if state.count > 0 {
                        let value = state.buffer[state.head]
                        state.head += 1
                        if state.head > 64 && state.head * 2 > state.buffer.count {
                            state.buffer.removeFirst(state.head)
                            state.head = 0
                        }
                        var released: [CheckedContinuation<Void, Never>] = []
                        if state.count <= highWater / 2 {
                            released = state.senders
                            state.senders = []
                        }
                        return (value, true, released)
                    }
                    if state.finished || Task.isCancelled { return (nil, true, []) }
                    state.consumer = continuation
                    return (nil, false, [])
                }
                for sender in senders { sender.resume() }
                if ready { continuation.resume(returning: value) }
            }
        } onCancel: {
            close()
        }
    }
}

/// Closes its channel when the last iterator holding it goes away (a loop that ended by `break`).
final class ChannelLease<Element: Sendable>: Sendable {
    let channel: Channel<Element>
    init(_ channel: Channel<Element>) { self.channel = channel }
    deinit { channel.close() }
}
