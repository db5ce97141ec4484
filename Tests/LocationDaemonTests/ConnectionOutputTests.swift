// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
@_spi(FrontEnd) import LocationEngine
@_spi(FrontEnd) import LocationWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LocationDaemon

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tells the output of its channel's close on the loop, as the daemon's handler does.
private final class Closing: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let output: ConnectionOutput
    init(_ output: ConnectionOutput) { self.output = output }
    func channelInactive(context: ChannelHandlerContext) {
        output.socketClosed()
        context.fireChannelInactive()
    }
}

/// Tells when the channel hears that a reader stalled a source that waits for it.
private final class StallSeen: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let seen: EventLoopPromise<Void>
    /// On the loop only.
    private(set) var told = 0
    init(_ seen: EventLoopPromise<Void>) { self.seen = seen }
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ConnectionOutput.StalledReader else { return }
        told += 1
        if told == 1 { seen.succeed() }
    }
}

/// A connection's lines written straight to its socket while it takes them, through the channel
/// once it is full: a reader that falls behind, then catches up, gets every byte in order; and a
/// closed connection's descriptor, reused by another file, is never written to.
@Suite("gpslocd: a connection's lines, to its socket and through its channel")
struct ConnectionOutputTests {
    /// A connected pair of Unix sockets: the first end joins an event loop of `group` as the
    /// daemon's accepted connections do; the second is the client's, read here. With
    /// `outputOwnDescriptor`, the output writes to a duplicate of the first end (`written`, the
    /// caller's to close), which outlives the channel's close.
    private static func connection(
        on group: MultiThreadedEventLoopGroup, outputOwnDescriptor: Bool = false,
        stallLimit: TimeAmount = .seconds(10)
    ) async throws -> (channel: any Channel, output: ConnectionOutput, written: CInt, client: CInt) {
        let (socket, client) = try #require(
            closeOnExecSocketPair(domain: AF_UNIX, type: SocketType.stream))
        // Small buffers, so that the socket fills after a few lines.
        var small: CInt = 4096
        setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<CInt>.size))
        setsockopt(client, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<CInt>.size))
        // A line lost would leave the reader waiting: it gives up after 10 s instead.
        var patience = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.autoRead, value: false)
            .withConnectedSocket(socket).get()
        let written = outputOwnDescriptor ? fcntl(socket, F_DUPFD_CLOEXEC, 0) : socket
        try #require(written >= 0)
        return (
            channel, ConnectionOutput(channel: channel, descriptor: written, stallLimit: stallLimit), written,
            client
        )
    }

    /// Reads `descriptor` until it has `count` bytes or the stream ends; with `waiting` false,
    /// only what is there now.
    private static func read(_ descriptor: CInt, count: Int = .max, waiting: Bool = true) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < count {
            let got = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, waiting ? 0 : Int32(MSG_DONTWAIT))
            }
            guard got > 0 else { break }
            received += buffer[..<got]
        }
        return received
    }

    private static func line(_ number: Int) -> [UInt8] {
        // Lines of different lengths, so that a line cut or repeated at any byte shows.
        Array("{\"line\":\(number),\"pad\":\"\(String(repeating: "x", count: number % 97))\"}\n".utf8)
    }

    /// Update `number` of a run: its place along the run in its longitude and time.
    private static func update(_ number: Int, latitude: Double = 1) -> LocationUpdate {
        let location = Location(
            coordinate: Coordinate(latitude: latitude, longitude: 0.001 * Double(number)),
            horizontalAccuracy: 4.5,
            timestamp: Date(timeIntervalSince1970: 1_773_475_200 + Double(number)))
        return LocationUpdate(location: location, flags: AuthorizationFlags())
    }

    /// Posts updates 0..<`count` to every one of `mailboxes` as a log replayed at maximum speed
    /// does: each once all of them have room. `posted` is called after each.
    private static func replay(
        _ count: Int, to mailboxes: [Mailbox<LocationUpdate>], posted: @escaping @Sendable () -> Void = {}
    ) -> Task<Void, Never> {
        Task {
            for number in 0..<count {
                for mailbox in mailboxes { await mailbox.waitForRoom() }
                for mailbox in mailboxes { mailbox.post(update(number)) }
                posted()
            }
        }
    }

    @Test("a reader that falls behind, then catches up, gets every line whole and in order")
    func fallsBehind() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (channel, output, _, client) = try await Self.connection(on: group)
        defer { close(client) }
        // Lines from the loop and from elsewhere, in one order: far more than the socket holds, so
        // that many go through the channel, and lines after them must wait for them.
        let lines = (0..<3200).map(Self.line)
        let expected = Array(lines.joined())
        var received: [UInt8] = []
        var next = 0
        while next + 160 <= lines.count {
            // A fix's run of lines on the loop, far more than the socket holds; halfway, the reader
            // takes what the socket has, so that it has room while the channel still holds lines.
            let run = lines[next..<next + 150]
            received += try await channel.eventLoop.submit {
                var taken: [UInt8] = []
                for (index, line) in run.enumerated() {
                    output.send(line)
                    if index == 100 { taken = Self.read(client, waiting: false) }
                }
                return taken
            }.get()
            // And lines from elsewhere between the runs.
            for line in lines[next + 150..<next + 160] { output.send(line) }
            next += 160
        }
        received += Self.read(client, count: expected.count - received.count)
        #expect(received.count == expected.count)
        let difference = received.indices.first { $0 >= expected.count || received[$0] != expected[$0] }
        #expect(difference == nil, "the bytes differ from byte \(difference ?? 0) on")
        try await channel.close()
        try await group.shutdownGracefully()
    }

    @Test("a feed's lines keep their place among the others while the reader falls behind")
    func feedFallsBehind() async throws {
        // A feed's pump writes to the socket itself, unless lines wait in the channel: then its
        // lines must follow them there. Each run on the loop sends lines, posts updates (which
        // the pump writes in a task of its own, after the run) and, halfway, reads what the
        // socket has, so that it has room while the channel still holds lines.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (channel, output, _, client) = try await Self.connection(on: group)
        defer { close(client) }
        let mailbox = Mailbox<LocationUpdate>(capacity: 100_000)
        output.deliverUpdateLines(HostedUpdates(mailbox), WireUpdateLines(), subscription: 7) {}
        var expected: [UInt8] = []
        var received: [UInt8] = []
        for run in 0..<20 {
            let numbers = Array(run * 150..<(run + 1) * 150)
            received += try await channel.eventLoop.submit {
                var taken: [UInt8] = []
                for number in numbers {
                    if number % 3 == 0 {
                        mailbox.post(Self.update(number, latitude: Double(number % 90)))
                    } else {
                        output.send(Self.line(number))
                    }
                    if number % 150 == 100 { taken = Self.read(client, waiting: false) }
                }
                return taken
            }.get()
            for number in numbers where number % 3 != 0 { expected += Self.line(number) }
            for number in numbers where number % 3 == 0 {
                expected += WireEvent.update(
                    subscription: 7, Self.update(number, latitude: Double(number % 90)).wire
                ).encoded()
            }
        }
        received += Self.read(client, count: expected.count - received.count)
        #expect(received.count == expected.count)
        let difference = received.indices.first { $0 >= expected.count || received[$0] != expected[$0] }
        #expect(difference == nil, "the bytes differ from byte \(difference ?? 0) on")
        mailbox.close()
        try await channel.close()
        try await group.shutdownGracefully()
    }

    /// Feeds woken on their loop's thread are read together by one call, and those woken from
    /// another thread by another: every feed must still get every update in order, whichever
    /// way it was woken, and a feed woken while the others are read (here by another feed's
    /// handler) must not be lost between the two lists.
    @Test("feeds woken together, on their loop and from another thread, each get every update in order")
    func feedsWokenTogether() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var connections: [(channel: any Channel, client: CInt, mailbox: Mailbox<LocationUpdate>)] = []
        for _ in 0..<6 {
            let (channel, output, _, client) = try await Self.connection(on: group)
            let mailbox = Mailbox<LocationUpdate>(capacity: 100_000)
            output.deliverUpdateLines(HostedUpdates(mailbox), WireUpdateLines(), subscription: 3) {}
            connections.append((channel, client, mailbox))
        }
        defer { for connection in connections { close(connection.client) } }
        // A seventh feed whose handler, on the loop, posts each element to the first mailbox: that
        // feed is woken while the loop reads the others.
        let (relayChannel, relayOutput, _, relayClient) = try await Self.connection(on: group)
        defer { close(relayClient) }
        let relayed = Mailbox<LocationUpdate>(capacity: 100_000)
        let first = connections[0].mailbox
        relayOutput.deliver(HostedUpdates(relayed).feed, { first.post($0) }, end: {})
        let mailboxes = connections.map(\.mailbox)
        var sent: [[Int]] = Array(repeating: [], count: mailboxes.count)
        for number in 0..<300 {
            switch number % 3 {
            case 0:
                // On the loop, as an app's engine on the receivers' loop posts.
                try await group.next().submit {
                    for mailbox in mailboxes { mailbox.post(Self.update(number)) }
                }
                .get()
                for index in mailboxes.indices { sent[index].append(number) }
            case 1:
                // From another thread, as for the clients of a second loop.
                for mailbox in mailboxes { mailbox.post(Self.update(number)) }
                for index in mailboxes.indices { sent[index].append(number) }
            default:
                // Through the relay, woken on the loop: the first feed alone, woken while the
                // loop reads the relay's.
                _ = try await group.next().submit { relayed.post(Self.update(number)) }.get()
                sent[0].append(number)
            }
        }
        for (index, connection) in connections.enumerated() {
            let expected = sent[index].flatMap {
                WireEvent.update(subscription: 3, Self.update($0).wire).encoded()
            }
            let received = Self.read(connection.client, count: expected.count)
            #expect(
                received == expected, "connection \(index) got \(received.count) of \(expected.count) bytes")
        }
        relayed.close()
        for connection in connections {
            connection.mailbox.close()
            try await connection.channel.close()
        }
        try await relayChannel.close()
        try await group.shutdownGracefully()
    }

    /// A log replayed at maximum speed waits until its subscribers have room: a client's feed
    /// must then take nothing while its lines wait in the channel, or the replay outruns a client
    /// that reads slowly until the daemon cuts it off.
    @Test("a feed whose source waits for its reader takes nothing while the socket is full, then everything")
    func readerSetsPace() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (channel, output, _, client) = try await Self.connection(on: group)
        defer { close(client) }
        let mailbox = Mailbox<LocationUpdate>(capacity: 8)
        output.deliverUpdateLines(
            HostedUpdates(mailbox), WireUpdateLines(), subscription: 5, readerSetsPace: true
        ) {}
        // As a replay at maximum speed posts: each fix once there is room. Far more than the
        // socket, the channel's one line and the mailbox hold.
        let count = 2000
        let posted = Atomic<Int>(0)
        let replay = Self.replay(count, to: [mailbox]) { posted.add(1, ordering: .relaxed) }
        // The reader reads nothing: the replay stops, and stays stopped.
        var still = -1
        while still != posted.load(ordering: .relaxed) {
            still = posted.load(ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(
            still < count / 4, "the replay outran a reader that read nothing: \(still) of \(count) posted")
        // Then it reads: every update reaches it, in order, and none was dropped.
        let expected = (0..<count).flatMap {
            WireEvent.update(subscription: 5, Self.update($0).wire).encoded()
        }
        let received = Self.read(client, count: expected.count)
        await replay.value
        #expect(received == expected, "got \(received.count) of \(expected.count) bytes")
        #expect(mailbox.dropped == 0)
        mailbox.close()
        try await channel.close()
        try await group.shutdownGracefully()
    }

    /// One client that stops reading must not stop a replay for every other: its channel is told,
    /// and the daemon's handler cuts it off.
    @Test("a feed whose source waits for a reader that takes nothing tells its channel after the stall limit")
    func stalledReader() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (channel, output, _, client) = try await Self.connection(
            on: group, stallLimit: .milliseconds(300))
        defer { close(client) }
        let seen = channel.eventLoop.makePromise(of: Void.self)
        let recorder = StallSeen(seen)
        try await channel.pipeline.addHandler(recorder)
        // Two feeds of one source, as a gpsd client's updates and fixes: the channel is told once.
        let mailbox = Mailbox<LocationUpdate>(capacity: 8)
        let second = Mailbox<LocationUpdate>(capacity: 8)
        for (box, number) in [(mailbox, 5), (second, 6)] {
            output.deliverUpdateLines(
                HostedUpdates(box), WireUpdateLines(), subscription: number, readerSetsPace: true
            ) {}
        }
        let started = ContinuousClock.now
        let replay = Self.replay(2000, to: [mailbox, second])
        // Told once the socket is full and 300 ms have gone without a line taken; the test gives
        // up after 10 s, where the event never comes.
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(10)) { seen.fail(ChannelError.eof) }
        try await seen.futureResult.get()
        timeout.cancel()
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        try await Task.sleep(for: .milliseconds(700))
        #expect(try await channel.eventLoop.submit { recorder.told }.get() == 1, "told more than once")
        mailbox.close()
        second.close()
        await replay.value
        try await channel.close()
        try await group.shutdownGracefully()
    }

    /// Once closed, the channel's descriptor number may be another file's at once (the daemon's
    /// next connection, say). The output writes to a duplicate here, which stays open and
    /// connected: whatever it wrote after the close would reach the client. Giving the freed number
    /// itself to another socket would race every other test of the process, whose next
    /// descriptor could take it first.
    @Test("a closed connection's descriptor, now another file's, gets nothing")
    func closedDescriptor() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (channel, output, written, client) = try await Self.connection(
            on: group, outputOwnDescriptor: true)
        defer {
            close(client)
            close(written)
        }
        output.send(Self.line(1))
        #expect(Self.read(client, count: Self.line(1).count) == Self.line(1))
        // Closed as the daemon's are: the handler hears of it on the loop and tells the output.
        try await channel.pipeline.addHandler(Closing(output))
        try await channel.close()
        output.send(Self.line(2))
        try await channel.eventLoop.submit { output.send(Self.line(3)) }.get()
        #expect(Self.read(client, waiting: false).isEmpty, "a line went to a closed connection's descriptor")
        try await group.shutdownGracefully()
    }

    /// A connection that closes ends its session from the session's own thread, after its
    /// socket closed: the feed's wake-up then hands the loop nothing. The pump must let go of
    /// itself, and of the feed's mailbox, or every subscribed connection a daemon ever served
    /// stays in its memory (about 5 KB each, found by connecting and closing thousands).
    @Test("a closed connection's feed, ended from another thread, is let go with its mailbox")
    func closedFeedLetGo() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let (channel, output, _, client) = try await Self.connection(on: group)
        defer { close(client) }
        try await channel.pipeline.addHandler(Closing(output))
        weak var released: Mailbox<LocationUpdate>?
        do {
            let mailbox = Mailbox<LocationUpdate>(capacity: 4)
            released = mailbox
            let updates = HostedUpdates(mailbox)
            output.deliverUpdateLines(updates, WireUpdateLines(), subscription: 1) {}
            // The pump's first read, on the loop, finds nothing and leaves its wake-up with the
            // mailbox; then the connection closes, and what its close queued runs.
            try await channel.eventLoop.submit {}.get()
            try await channel.close()
            try await channel.eventLoop.submit {}.get()
            // The session ends the feed from its own thread.
            updates.feed.cancel()
        }
        try await channel.eventLoop.submit {}.get()
        #expect(released == nil, "the pump of a closed connection's feed kept itself and its mailbox")
        try await group.shutdownGracefully()
    }
}
