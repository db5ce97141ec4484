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
    func run(_ deliver: @escaping @Sendable (Fix) async -> Void) async throws
}
