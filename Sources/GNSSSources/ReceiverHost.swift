// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Where a receiver's bytes are read when its fixes are wanted at once (`FixDelivery.immediate`)
/// by a program that already waits for many descriptors on a thread of its own: a daemon's event
/// loop, say. Read there, a fix reaches the program's clients on the thread that read it,
/// without waking a second one; without a host, a source reads on a thread of its own.
///
/// A source keeps its descriptor for what else it does with the device (configuration written
/// to it, its exclusive lock) and gives the host a duplicate to read.
public protocol ReceiverHost: Sendable {
    /// Reads `descriptor`, which the call owns and closes before it returns, until it reaches
    /// its end, fails or the calling task is cancelled, calling `chunk` with each read's bytes,
    /// one read at a time and in order. Says how the reading ended.
    func read(_ descriptor: CInt, chunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) async
        -> ReceiverReadEnd
}

/// How a ``ReceiverHost``'s reading ended.
public enum ReceiverReadEnd: Sendable, Hashable {
    /// The calling task was cancelled.
    case cancelled
    /// A read returned nothing: the device hung up, or the other end closed.
    case end
    /// A read, or setting the reading up, failed with `errno` (`nil` when the cause has none).
    case failed(errno: CInt?)
}
