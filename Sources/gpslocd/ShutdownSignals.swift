// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// SIGTERM and SIGINT, which stop the daemon gracefully: once `watch()` returns they no longer
/// kill it, and `next()` returns when one comes. Dispatch's signal sources, as the Swift runtime
/// already links Dispatch for its executor: no library of its own for two signals.
final class ShutdownSignals: @unchecked Sendable {
    // Immutable after `watch()`; Dispatch's sources are safe to use from any thread.
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>

    private init(sources: [any DispatchSourceSignal], stream: AsyncStream<Int32>) {
        self.sources = sources
        self.stream = stream
    }

    deinit {
        // A source keeps its handler until it is cancelled.
        for source in sources { source.cancel() }
    }

    /// Starts watching; returns once both sources are registered, so that a signal sent after it
    /// (systemd's stop, a test's) is never the default action's.
    static func watch() async -> ShutdownSignals {
        let queue = DispatchQueue(label: "gpslocd.signals")
        let (stream, continuation) = AsyncStream.makeStream(
            of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.resume()
            }
            sources.append(source)
        }
        return ShutdownSignals(sources: sources, stream: stream)
    }

    /// The next SIGTERM or SIGINT; `nil` if the task was cancelled first.
    func next() async -> Int32? {
        var signals = stream.makeAsyncIterator()
        return await signals.next()
    }
}
