// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_spi(FrontEnd) import LocationEngine
import Locking
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connection's lines out, and where its feeds are read.
///
/// A feed (``deliver(_:_:end:)``, ``deliverLines(_:_:end:)``) is read on the connection's event
/// loop: the engine's mailbox, when an element arrives, hands the loop a call made once for the
/// feed, and the loop takes what waits and writes each line to the socket. While the socket takes
/// what is written, an update costs no allocation, no task, one hand-over between threads (the
/// receiver's to the loop's) and one system call. A line sent from elsewhere (a request's reply,
/// from the connection's worker) is handed to the event loop, in order with the others.
///
/// With many clients an update's way through the loop is paid mostly in memory each client's
/// objects must be fetched from (`BENCHMARKS.md`, round 2, fourteenth part), so the way is kept
/// short: the pump reads the mailbox and writes to the socket itself, knowing on its own whether
/// lines wait in the channel, and a line is made in a buffer of the loop's thread rather than of
/// the connection (`BENCHMARKS.md`, round 2, fifteenth part).
final class ConnectionOutput: Sendable {
    private let channel: any Channel
    private let onLoop: OnLoop

    /// The event a connection's channel is told when a feed whose source waits for it has taken
    /// nothing for `stallLimit`: whoever holds the connection cuts it off.
    struct StalledReader: Sendable {
        let limit: TimeAmount
    }

    /// - Parameter stallLimit: how long a source without a pace of its own (a log replayed at
    ///   maximum speed) waits for this client while it takes nothing, before the channel is told
    ///   ``StalledReader``: one client that stops reading must not stop the replay for the
    ///   others.
    init(channel: any Channel, descriptor: CInt, stallLimit: TimeAmount = .seconds(10)) {
        self.channel = channel
        onLoop = OnLoop(channel: channel, descriptor: descriptor, stallLimit: stallLimit)
    }

    /// Writes and flushes `line` (its bytes as they go on the wire).
    func send(_ line: [UInt8]) {
        guard channel.eventLoop.inEventLoop else {
            // Through the loop, so that it keeps its place among the lines written there.
            let onLoop = onLoop
            channel.eventLoop.execute { onLoop.send(line) }
            return
        }
        onLoop.send(line)
    }

    /// On the event loop, as the channel closes the socket: nothing is written there any more.
    func socketClosed() {
        onLoop.socketClosed()
    }

    /// What only the connection's event loop touches. A line goes straight to the socket with one
    /// `send(2)` while SwiftNIO holds none of the connection's bytes: with many clients, most of
    /// an update's CPU was the way from a line through the channel's pipeline and its queue of
    /// writes to that same call (`BENCHMARKS.md`, round 2, eleventh part). What the socket does
    /// not take at once (it is full, or failed) goes through the channel, which waits for room,
    /// holds the client to the buffer's bound (``ClientHandler`` cuts it off past it) or closes
    /// on the error; and the lines after it follow it there until the channel has written all.
    /// Its feeds write their lines to the socket themselves, and follow the same rule: they are
    /// told when lines start and stop waiting in the channel, and when the socket closes.
    fileprivate final class OnLoop: @unchecked Sendable {
        /// The connection's socket; a feed writes its lines to it itself while nothing is
        /// queued (told by ``LoopFeed/writesQueued(_:)``) and the socket is open.
        let descriptor: CInt
        private let channel: any Channel
        private let pipeline: ChannelPipeline.SynchronousOperations
        /// Cleared once the channel closed the socket, whose number may then be another file's.
        private var open = true
        /// Writes handed to the channel and not finished yet.
        private var queued = 0
        /// The feeds read on the connection, told when its socket closes and when ``queued``
        /// leaves or comes back to 0.
        private var feeds: [ObjectIdentifier: any LoopFeed] = [:]

        /// Where the connection's feeds are put when woken, its loop's.
        let woken: WokenFeeds
        /// ``ConnectionOutput/init(channel:descriptor:stallLimit:)``'s.
        let stallLimit: TimeAmount

        init(channel: any Channel, descriptor: CInt, stallLimit: TimeAmount) {
            self.channel = channel
            self.descriptor = descriptor
            self.stallLimit = stallLimit
            pipeline = channel.pipeline.syncOperations
            woken = WokenFeeds.of(channel.eventLoop)
        }

        /// The channel was told of a stalled reader. It is told once, whichever of the
        /// connection's feeds (a gpsd client has two) stalls first: the daemon's handler closes
        /// the connection then and there, which stops the other feed's check, but a holder that
        /// does not close at once hears of it once all the same.
        private var toldStalled = false

        /// A feed whose source waits for the client has taken nothing for ``stallLimit``.
        func stalled() {
            guard open, !toldStalled else { return }
            toldStalled = true
            pipeline.fireUserInboundEventTriggered(StalledReader(limit: stallLimit))
        }

        func socketClosed() {
            open = false
            for feed in feeds.values { feed.connectionClosed() }
            feeds = [:]
        }

        /// A feed is read on the connection from now on; `false` if its socket closed already.
        func join(_ feed: any LoopFeed) -> Bool {
            guard open else { return false }
            feeds[ObjectIdentifier(feed)] = feed
            if queued > 0 { feed.writesQueued(true) }
            return true
        }

        /// The feed has ended.
        func leave(_ feed: any LoopFeed) {
            feeds[ObjectIdentifier(feed)] = nil
        }

        /// On the loop only.
        func send(_ line: [UInt8]) {
            line.withUnsafeBytes { send($0) }
        }

        func send(_ bytes: UnsafeRawBufferPointer) {
            guard open else { return }
            guard queued == 0 else { return hand(bytes) }
            sendRest(of: bytes, written: Self.write(bytes, to: descriptor))
        }

        /// Writes what `write(_:to:)` left of `bytes` (it wrote `written` of them, or failed
        /// with -1) through the channel: the socket was full, interrupted or failed, and the
        /// channel writes the rest when there is room, or meets the error and closes.
        func sendRest(of bytes: UnsafeRawBufferPointer, written: Int) {
            guard written != bytes.count, open else { return }
            hand(UnsafeRawBufferPointer(rebasing: bytes[max(0, written)...]))
        }

        /// One `send(2)` of `bytes` to `socket`, without waiting: how many went, or -1.
        static func write(_ bytes: UnsafeRawBufferPointer, to socket: CInt) -> Int {
            Glibc.send(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }

        private func hand(_ bytes: UnsafeRawBufferPointer) {
            queued += 1
            if queued == 1 { tellFeeds(queued: true) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            promise.futureResult.assumeIsolated().whenComplete { _ in
                self.queued -= 1
                if self.queued == 0 { self.tellFeeds(queued: false) }
            }
            pipeline.writeAndFlush(NIOAny(channel.allocator.buffer(bytes: bytes)), promise: promise)
        }

        private func tellFeeds(queued: Bool) {
            for feed in feeds.values { feed.writesQueued(queued) }
        }
    }

    /// Calls `element` with each of `feed`'s elements, then `end` once when the feed ends (its
    /// subscription finished, or cancelled), all on the connection's event loop.
    ///
    /// `readerSetsPace`: the feed's source has no pace of its own (a log replayed at maximum
    /// speed), and waits until its subscribers have room. Its feed is then not read while lines
    /// wait in the channel, so that the source waits for a client that reads slowly rather than
    /// outrunning it until the client is cut off.
    func deliver<Element: Sendable>(
        _ feed: HostedFeed<Element>, readerSetsPace: Bool = false, _ element: @escaping (Element) -> Void,
        end: @escaping () -> Void
    ) {
        FeedPump(
            PolledFeed(feed), CallHandler(call: element), readerSetsPace: readerSetsPace, channel: channel,
            output: onLoop, end: end
        )
        .start()
    }

    /// Writes the line `write` makes of each of `feed`'s elements, then calls `end` once when
    /// the feed ends, all on the connection's event loop: ``deliver(_:_:end:)`` for a feed whose
    /// elements are lines and nothing else.
    func deliverLines<Element: Sendable>(
        _ feed: HostedFeed<Element>, _ write: @escaping (Element, inout [UInt8]) -> Void,
        end: @escaping () -> Void
    ) {
        let handler = LineHandler(write: write)
        FeedPump(PolledFeed(feed), handler, readerSetsPace: false, channel: channel, output: onLoop, end: end)
            .start()
    }

    /// ``deliverLines(_:_:end:)`` for an app's updates, each handed to `handler`, which writes its
    /// lines: the way of most clients' lines, where the pump reads the mailbox and writes the line
    /// with nothing between them to fetch. `readerSetsPace` as for
    /// ``deliver(_:readerSetsPace:_:end:)``.
    func deliver<Handler: PumpHandler>(
        _ updates: HostedUpdates, to handler: Handler, readerSetsPace: Bool = false, end: @escaping () -> Void
    ) where Handler.Element == LocationUpdate {
        FeedPump(updates, handler, readerSetsPace: readerSetsPace, channel: channel, output: onLoop, end: end)
            .start()
    }
}

/// The buffer a loop's thread makes its connections' lines in, one line at a time.
private final class LineScratch {
    /// Touched by its thread alone, one access at a time: unchecked, as the run-time check of
    /// each access was a tenth of writing a line (`BENCHMARKS.md`, round 2, eighteenth part).
    @exclusivity(unchecked) var line: [UInt8] = []

    /// Each thread's, made on its first line.
    static let perThread = ThreadLocal { LineScratch() }
}

/// Where a pump takes its elements from.
private protocol PumpSource: SendableMetatype {
    associatedtype Element: Sendable
    /// Hands what waits to `body`, and says whether it was the last (`wake` is then kept, as
    /// after an empty poll).
    func read(_ wake: @escaping @Sendable () -> Void, _ body: (Element) -> Void) -> MailboxRead
}

/// Any feed, through its poll: read until a poll finds nothing.
private struct PolledFeed<Element: Sendable>: PumpSource {
    let polling: @Sendable (_ wake: @escaping @Sendable () -> Void) -> MailboxPoll<Element>
    init(_ feed: HostedFeed<Element>) { polling = feed.polling }
    func read(_ wake: @escaping @Sendable () -> Void, _ body: (Element) -> Void) -> MailboxRead {
        switch polling(wake) {
        case .element(let element):
            body(element)
            return .read(last: false)
        case .empty: return .empty
        case .end: return .end
        }
    }
}

/// An app's updates, from their mailbox itself (their lease kept with it): the last update
/// that waits is told as such, which saves the poll that would find none.
extension HostedUpdates: PumpSource {
    func read(_ wake: @escaping @Sendable () -> Void, _ body: (LocationUpdate) -> Void) -> MailboxRead {
        mailbox.readUpdateUntilLast(waking: wake, body)
    }
}

/// What a pump does with each element, on the loop.
protocol PumpHandler: SendableMetatype {
    associatedtype Element
    func handle(_ element: Element, _ lines: some LineSink)
}

/// Where a handler sends the lines it makes.
protocol LineSink {
    /// Writes the line `make` writes into the loop's thread's buffer (one buffer of each
    /// connection would be one more place in memory to fetch per update).
    func sendLine(making make: (inout [UInt8]) -> Void)
    /// Writes `line`, whose memory is the caller's.
    func sendLine(_ line: UnsafeRawBufferPointer)
}

private struct CallHandler<Element>: PumpHandler {
    let call: (Element) -> Void
    func handle(_ element: Element, _ lines: some LineSink) { call(element) }
}

private struct LineHandler<Element>: PumpHandler {
    let write: (Element, inout [UInt8]) -> Void
    func handle(_ element: Element, _ lines: some LineSink) { lines.sendLine { write(element, &$0) } }
}

/// A feed read on a connection's event loop, told there when the connection's socket closes
/// and when its writes start and stop waiting in the channel.
private protocol LoopFeed: AnyObject {
    func connectionClosed()
    /// Lines wait in the channel (`true`), so that the next must follow them there; or all are
    /// written (`false`).
    func writesQueued(_ queued: Bool)
}

/// One feed read on an event loop. It keeps itself alive through the call its feed holds while
/// it waits (or its loop's ``WokenFeeds``, while a call is pending), until the feed ends or the
/// connection's socket closes.
///
/// Once the connection has closed, the feed is not read any more: its session is closing and
/// takes the feed with it, and the loop may be going away with the daemon (a call handed to a
/// loop that has shut down is refused with an error on standard error).
///
/// The source and the handler are held in the pump itself: with many clients each place in
/// memory an update goes through is fetched anew for every client (`BENCHMARKS.md`, round 2,
/// fourteenth part).
private final class FeedPump<Source: PumpSource, Handler: PumpHandler>: LoopFeed, LineSink,
    @unchecked Sendable
where Source.Element == Handler.Element {
    typealias Element = Source.Element

    /// Cleared on the loop when the connection's socket closes, and read by a wake-up from
    /// another thread: a flag of the pump's own, first of its fields, where the wake-up takes
    /// its reference on the pump (the channel's own flag was two more places in memory to fetch
    /// for every client at every update).
    private let connected = Atomic<Bool>(true)
    private let loop: any EventLoop
    // Everything else is touched on the loop only, but what never changes.
    private let source: Source
    private let handler: Handler
    private let output: ConnectionOutput.OnLoop
    /// The connection's socket, and whether its lines wait in the channel: what writing a line
    /// asks, kept here rather than read from the connection's loop half, one more place in
    /// memory per client at every update; the loop half tells every feed when it changes.
    private let socket: CInt
    private var queued = false
    /// The source waits for this client (``ConnectionOutput/deliver(_:readerSetsPace:_:end:)``):
    /// nothing is read while lines wait in the channel, and reading starts again when they are
    /// written.
    private let readerSetsPace: Bool
    /// Since when reading has stopped for lines waiting in the channel, if it has.
    private var heldSince: NIODeadline?
    /// A check of ``heldSince`` against the connection's stall limit is scheduled.
    private var checking = false
    private let end: () -> Void
    /// The call the feed makes when something arrives; dropped at the end, which ends the
    /// pump's hold on itself. It holds the pump alone, which is then its context: making it, or
    /// the loop's call, allocates nothing.
    private var wake: (@Sendable () -> Void)?
    /// Where the feed is put when woken, to be read with the others woken on its loop.
    private let woken: WokenFeeds
    init(
        _ source: Source, _ handler: Handler, readerSetsPace: Bool, channel: any Channel,
        output: ConnectionOutput.OnLoop, end: @escaping () -> Void
    ) {
        loop = channel.eventLoop
        self.source = source
        self.handler = handler
        self.readerSetsPace = readerSetsPace
        self.output = output
        socket = output.descriptor
        woken = output.woken
        self.end = end
    }

    func start() {
        wake = { self.wakeUp() }
        loop.execute {
            // Closed before its first read: nothing of it is read.
            guard self.output.join(self) else { return self.connectionClosed() }
            self.drain()
        }
    }

    /// On the loop itself the loop is running and the check is saved; from elsewhere, a closed
    /// connection's loop may be going away with the daemon. The call made here holds the pump
    /// alone, which is then its context: making it allocates nothing.
    private func wakeUp() {
        if loop.inEventLoop {
            // Once the feed has ended, there is nothing to read.
            if wake != nil { woken.add(WokenFeeds.Read { self.drain() }) }
        } else if connected.load(ordering: .relaxed) {
            woken.hand(WokenFeeds.Read { self.drain() })
        }
    }

    /// On the loop. The feed is not read any more: its end, called from the thread that closes
    /// the session, reaches a wake-up that hands the loop nothing, so the pump lets go of
    /// itself here, or it would be kept by its own wake-up for as long as the daemon runs.
    func connectionClosed() {
        connected.store(false, ordering: .relaxed)
        wake = nil
    }

    func writesQueued(_ queued: Bool) {
        self.queued = queued
        guard !queued, heldSince != nil else { return }
        heldSince = nil
        // Read in a call of its own: this one comes from the channel's end of a write.
        if wake != nil { woken.add(WokenFeeds.Read { self.drain() }) }
    }

    /// On the loop: stops reading until the lines that wait in the channel are written, and
    /// has the channel told if that takes longer than the connection's stall limit. One check
    /// is scheduled at a time, however often reading stops and starts.
    private func holdBack() {
        guard heldSince == nil else { return }
        let now = NIODeadline.now()
        heldSince = now
        if !checking { check(at: now + output.stallLimit) }
    }

    /// At `deadline`: the channel is told if reading has been held back for the connection's
    /// stall limit by then; if it stopped and started again meanwhile, it is checked again when
    /// the limit will have passed.
    private func check(at deadline: NIODeadline) {
        checking = true
        loop.scheduleTask(deadline: deadline) {
            self.checking = false
            // Written since, or ended: nothing to do until the next hold.
            guard let since = self.heldSince, self.wake != nil else { return }
            let due = since + self.output.stallLimit
            guard NIODeadline.now() >= due else { return self.check(at: due) }
            self.output.stalled()
        }
    }

    /// On the loop. Straight to the socket while nothing waits in the channel and the socket is
    /// open (a line that closed it, failing, is followed by none); else the loop half's way.
    func sendLine(making make: (inout [UInt8]) -> Void) {
        let scratch = LineScratch.perThread.value
        scratch.line.removeAll(keepingCapacity: true)
        make(&scratch.line)
        scratch.line.withUnsafeBytes { sendLine($0) }
    }

    func sendLine(_ bytes: UnsafeRawBufferPointer) {
        guard !queued, connected.load(ordering: .relaxed) else { return output.send(bytes) }
        output.sendRest(of: bytes, written: ConnectionOutput.OnLoop.write(bytes, to: socket))
    }

    private func drain() {
        // A call still queued when the feed ended finds nothing to do.
        guard let wake else { return }
        while true {
            if readerSetsPace, queued { return holdBack() }
            switch source.read(wake, { handler.handle($0, self) }) {
            case .read(let last):
                if last { return }
            case .empty:
                return
            case .end:
                self.wake = nil
                output.leave(self)
                end()
                return
            }
        }
    }
}
