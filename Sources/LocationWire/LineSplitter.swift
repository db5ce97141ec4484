// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Cuts a byte stream into lines of at most a given length, as bytes arrive in any pieces.
///
/// A line longer than the limit is an error at the byte that passes it, whether or not its end
/// has arrived: a client cannot make the daemon hold more than `maximumLength` bytes of it.
public struct LineSplitter: Sendable {
    public let maximumLength: Int
    private var pending: [UInt8] = []

    public init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Whether part of a line waits for its end.
    public var hasPartialLine: Bool { !pending.isEmpty }

    /// Appends `bytes` and returns every line they complete (without the `\n`, and without a
    /// `\r` before it). Throws when a line grows past the limit; the splitter is then unusable.
    public mutating func append(_ bytes: some Collection<UInt8>) throws(WireError) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                lines.append(pending)
                pending.removeAll(keepingCapacity: true)
            } else {
                guard pending.count < maximumLength else {
                    throw WireError(
                        "a line is longer than \(maximumLength) bytes; requests are one short JSON object per line"
                    )
                }
                pending.append(byte)
            }
        }
        return lines
    }
}
