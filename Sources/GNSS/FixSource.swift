// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Where a stream of fixes comes from, as far as a consumer of fixes needs to know.
public enum FixOrigin: Sendable, Hashable {
    /// A live receiver: a serial port, gpsd, or a network stream.
    case receiver
    /// A recorded log played back; its fixes are marked as simulated.
    case replay
}

/// Anything that produces fixes: a live receiver, a replayed log, or a scripted test source.
///
/// `run(_:)` delivers fixes in order until the source ends (a log was played to its end) or fails
/// (it throws). Cancelling the task that runs it stops it and releases the device or file.
public protocol FixSource: Sendable {
    var origin: FixOrigin { get }
    /// A short human-readable name for messages, such as `file:drive.nmea`.
    var name: String { get }
    /// Whether fixes come at the pace of time itself: a receiver, or a log replayed by its own
    /// times. Such a source never waits for its consumers; a consumer that falls behind loses its
    /// oldest locations. A source with no pace of its own (a log replayed as fast as it can be
    /// read) is instead paced by its slowest consumer, so that none of its fixes is lost.
    var isRealTime: Bool { get }
    /// The device file the source reads (`/dev/ttyUSB0`), if it reads one: while it is gone, its
    /// reappearance reopens the source at once.
    var devicePath: String? { get }
    func run(_ deliver: @escaping @Sendable (Fix) async -> Void) async throws
    /// As `run(_:)`, also calling `connected` with a short description (such as
    /// `serial:/dev/ttyUSB0 at 9600 baud`) once the device or peer has been reached.
    func run(
        _ deliver: @escaping @Sendable (Fix) async -> Void, connected: @escaping @Sendable (String) -> Void
    ) async throws
    /// As `run(_:connected:)`, with the fixes handed over as `delivery` says. A source that
    /// reads on a thread of its own (a serial port, a socket) calls an `.immediate` consumer on
    /// that thread as soon as a fix is complete; by default it is called from the task that runs
    /// the source, as an awaited one is.
    func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws
}

/// How a source hands its fixes to its consumer.
public enum FixDelivery: Sendable {
    /// Awaited, one at a time, from the task that runs the source: the consumer may make the
    /// source wait (a log replayed as fast as its slowest reader).
    case awaited(@Sendable (Fix) async -> Void)
    /// Called at once, on whatever thread completed the fix, never awaited: for a consumer that
    /// never waits and is safe to call from any thread. It saves handing each fix to another
    /// thread: for gpslocd on a busy machine, about a tenth of a millisecond per fix
    /// (`BENCHMARKS.md`).
    case immediate(@Sendable (Fix) -> Void)
}

extension FixSource {
    public var isRealTime: Bool { true }
    public var devicePath: String? { nil }

    public func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws {
        switch delivery {
        case .awaited(let deliver): try await run(deliver, connected: connected)
        case .immediate(let deliver): try await run({ deliver($0) }, connected: connected)
        }
    }

    /// Sources that have nothing to reach are connected as soon as they run.
    public func run(
        _ deliver: @escaping @Sendable (Fix) async -> Void, connected: @escaping @Sendable (String) -> Void
    ) async throws {
        connected(name)
        try await run(deliver)
    }
}

/// A source that reaches a device or a peer before its first fix (a serial port, a socket): it
/// implements `run(_:connected:)` with a ``FixDelivery`` (or with an awaited closure); the
/// closure's `run(_:connected:)` is the delivery's `.awaited`, and `run(_:)` is that without
/// telling anyone.
public protocol ConnectingFixSource: FixSource {}

extension ConnectingFixSource {
    public func run(_ deliver: @escaping @Sendable (Fix) async -> Void) async throws {
        try await run(deliver, connected: { _ in })
    }

    public func run(
        _ deliver: @escaping @Sendable (Fix) async -> Void, connected: @escaping @Sendable (String) -> Void
    ) async throws {
        try await run(.awaited(deliver), connected: connected)
    }
}

/// What happened to a source, for whoever watches the receiver rather than its fixes: a status
/// line, a log, a health check.
public enum SourceEvent: Sendable, Hashable, CustomStringConvertible {
    /// The device or peer was reached; the text says what (and at which rate, for a serial port).
    case connected(String)
    /// The device or peer went away or could not be reached; the text says why.
    case disconnected(String)
    /// The source will be opened again after this delay.
    case reconnecting(after: Duration)
    /// No fix has arrived for this long although the source is open.
    case stale(Duration)
    /// The source ended for good (a replayed log reached its end).
    case ended
    /// The source cannot work, and opening it again would not help (a file that is a directory,
    /// a device that is not a serial port); the text says why. It is not opened again.
    case failed(String)

    public var description: String {
        switch self {
        case .connected(let what): "connected: \(what)"
        case .disconnected(let why): "disconnected: \(why)"
        case .reconnecting(let delay): "reconnecting in \(delay)"
        case .stale(let duration): "no fixes for \(duration)"
        case .ended: "ended"
        case .failed(let why): "failed: \(why)"
        }
    }
}

/// An error a source throws that says whether trying again could help: a receiver unplugged or a
/// server down may come back; a path that names a directory or a device that is not a serial port
/// will not.
public protocol SourceFailure: Error {
    var isPermanent: Bool { get }
}
