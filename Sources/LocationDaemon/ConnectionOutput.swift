// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_spi(FrontEnd) import LocationEngine
import NIOCore

/// A connection's lines out, and where its feeds are read.
///
/// A feed (``deliver(_:_:end:)``) is read on the connection's event loop: the engine's mailbox,
/// when an element arrives, hands the loop a call made once for the feed, and the loop takes
/// what waits and writes each line into one buffer kept for the connection, flushed at once.
/// While the socket takes what is written, an update costs no allocation, no task and one hand-
/// over between threads: the receiver's to the loop's. A line sent from elsewhere (a request's
/// reply, from the connection's worker) is handed to the event loop, in order with the others.
final class ConnectionOutput: Sendable {
    private let channel: any Channel
    private let onLoop: OnLoop

    init(channel: any Channel) {
        self.channel = channel
        onLoop = OnLoop(channel: channel)
    }

    /// Writes and flushes `line` (its bytes as they go on the wire).
    func send(_ line: [UInt8]) {
        guard channel.eventLoop.inEventLoop else {
            channel.writeAndFlush(channel.allocator.buffer(bytes: line), promise: nil)
            return
        }
        onLoop.send(line)
    }

    /// What only the connection's event loop touches: the line's buffer and the pipeline's
    /// synchronous operations. With 1,000 clients the daemon spends most of an update's CPU on
    /// the way from a line to its write system call: here the loop is checked once a line,
    /// where a loop-bound box checked it at each of three touches of the buffer and the
    /// pipeline's `writeAndFlush` once more (`BENCHMARKS.md`, round 2, seventh part).
    private final class OnLoop: @unchecked Sendable {
        private var buffer: ByteBuffer
        private let pipeline: ChannelPipeline.SynchronousOperations

        init(channel: any Channel) {
            buffer = channel.allocator.buffer(capacity: 512)
            pipeline = channel.pipeline.syncOperations
        }

        /// On the loop only. Written at once when the socket has room: the buffer is then this
        /// object's alone again, and the next line reuses its bytes. A line the socket could not
        /// take yet keeps the old storage, and the next one gets new.
        func send(_ line: [UInt8]) {
            buffer.clear()
            buffer.writeBytes(line)
            pipeline.writeAndFlush(NIOAny(buffer), promise: nil)
        }
    }

    /// Calls `element` with each of `feed`'s elements, then `end` once when the feed ends (its
    /// subscription finished, or cancelled), all on the connection's event loop.
    func deliver<Element: Sendable>(
        _ feed: HostedFeed<Element>, _ element: @escaping (Element) -> Void, end: @escaping () -> Void
    ) {
        FeedPump(feed: feed, channel: channel, element: element, end: end).start()
    }
}

/// One feed read on an event loop. It keeps itself alive through the call its feed holds while
/// it waits (or the loop's queue, while a call is pending), until the feed ends.
///
/// Once the connection has closed, the feed is not read any more: its session is closing and
/// takes the feed with it, and the loop may be going away with the daemon (a call handed to a
/// loop that has shut down is refused with an error on standard error).
private final class FeedPump<Element: Sendable>: @unchecked Sendable {
    // Everything here is touched on the channel's loop only, but `channel` and `feed`, which
    // never change.
    private let feed: HostedFeed<Element>
    private let channel: any Channel
    private let element: (Element) -> Void
    private let end: () -> Void
    /// The call the feed makes when something arrives: made once, as each call made anew
    /// would allocate; dropped at the end, which ends the pump's hold on itself.
    private var wake: (@Sendable () -> Void)?

    init(
        feed: HostedFeed<Element>, channel: any Channel, element: @escaping (Element) -> Void,
        end: @escaping () -> Void
    ) {
        self.feed = feed
        self.channel = channel
        self.element = element
        self.end = end
    }

    func start() {
        let drain: @Sendable () -> Void = { self.drain() }
        let (loop, channel) = (channel.eventLoop, channel)
        // On the loop itself the loop is running and the check is saved (2 % of the daemon's
        // samples with 60 clients); from elsewhere, a closed connection's loop may be going away
        // with the daemon.
        wake = { if loop.inEventLoop || channel.isActive { loop.execute(drain) } }
        loop.execute(drain)
    }

    private func drain() {
        // A call still queued when the feed ended finds nothing to do.
        guard let wake else { return }
        while true {
            switch feed.poll(waking: wake) {
            case .element(let value):
                element(value)
            case .empty:
                return
            case .end:
                self.wake = nil
                end()
                return
            }
        }
    }
}
