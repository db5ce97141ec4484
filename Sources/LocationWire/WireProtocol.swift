// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The protocol between gpslocd and its clients: JSON objects, one per line (`\n`), readable and
/// writable by a person with `socat - UNIX-CONNECT:/run/opencorelocation/gpslocd.sock`.
///
/// A client speaks first with `{"op":"hello","version":1}`; the daemon answers with the identity
/// it verified from the kernel and the app's authorization. Every later request names an `op`
/// and may carry an `id` that the daemon's `ok` or `error` reply repeats. What the daemon sends
/// on its own (updates, diagnostics, authorization changes, prompts for agents) carries an
/// `event` instead of a `reply`. A line that starts with `?` is gpsd's protocol, not this one;
/// the daemon tells the two apart by the first byte a client sends.
public enum WireProtocol {
    /// The version this build speaks; a hello with another is refused with an error naming both.
    public static let version = 1
    /// The longest request line the daemon reads, newline excluded; a longer one is an error and
    /// ends the connection (no request needs a tenth of it).
    public static let maximumRequestLength = 4096
    /// The longest line the daemon sends; a client may refuse longer ones.
    public static let maximumEventLength = 65536
}

/// Why a line could not be understood; the text names the problem and what was expected, and is
/// sent back to the client in an `error` reply.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
