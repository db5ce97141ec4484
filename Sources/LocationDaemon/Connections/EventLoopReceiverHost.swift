// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSSSources
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads a receiver on the event loop that serves the daemon's connections: a fix is decoded,
/// run through every app's engine and written to the clients of that loop in the one wake-up of
/// the loop that read it. Read on a thread of its own, each fix woke that thread and then the
/// loop, and on a busy small machine the second wake-up and its cold start cost about as much as
/// gpsd spends on the whole epoch (`BENCHMARKS.md`).
///
/// The engines' work per fix is bounded and never waits (monitors are evaluated off the loop), so
/// the loop is held no longer than the reading thread was.
public struct EventLoopReceiverHost: ReceiverHost {
    let loop: any EventLoop

    public init(loop: any EventLoop) {
        self.loop = loop
    }

    public func read(_ descriptor: CInt, chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) async
        -> ReceiverReadEnd
    {
        let ended = loop.makePromise(of: ReceiverReadEnd.self)
        let channel: any Channel
        do {
            channel = try await NIOPipeBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ReceiverReading(chunk: chunk, ended: ended))
                    }
                }
                .takingOwnershipOfDescriptor(input: descriptor)
                .get()
        } catch {
            // Not taken: still this call's to close. The promise is kept too: SwiftNIO traps on
            // one left unfulfilled in debug builds.
            close(descriptor)
            ended.succeed(.failed(errno: nil))
            return .failed(errno: (error as? IOError)?.errnoCode)
        }
        let end = await withTaskCancellationHandler {
            (try? await ended.futureResult.get()) ?? .failed(errno: nil)
        } onCancel: {
            channel.close(promise: nil)
        }
        return Task.isCancelled ? .cancelled : end
    }
}

/// The receiver's channel: each read handed on as it arrives, and the first failure kept for the
/// end, which comes when the channel closes (at the end of file, on a failure, or cancelled).
private final class ReceiverReading: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let chunk: @Sendable (UnsafeRawBufferPointer) -> Void
    private let ended: EventLoopPromise<ReceiverReadEnd>
    /// How the reading ends, once a read has failed.
    private var failure: ReceiverReadEnd?

    init(
        chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, ended: EventLoopPromise<ReceiverReadEnd>
    ) {
        self.chunk = chunk
        self.ended = ended
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        Self.unwrapInboundIn(data).withUnsafeReadableBytes(chunk)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = .failed(errno: (error as? IOError)?.errnoCode) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended.succeed(failure ?? .end)
    }
}
