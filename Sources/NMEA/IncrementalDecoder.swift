// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The one shape of everything in this package that turns a stream of bytes into values: the
/// NMEA framer, the fix decoder, gpsd's JSON decoder and a log's comment filter.
///
/// Bytes arrive in chunks cut anywhere; what a chunk completes comes out at once, and the same
/// bytes give the same values however they are cut (every decoder's tests check this with the
/// drip-feed verifier of the test support). ``finish(_:)`` ends the input: what was waiting for
/// an end that will not come (a last line without its line end) is delivered or counted.
public protocol IncrementalDecoder {
    associatedtype Output
    /// Feeds a chunk; `output` receives each value the chunk completes.
    mutating func append(_ chunk: UnsafeRawBufferPointer, _ output: (Output) -> Void)
    /// Ends the input; `output` receives what the end completes.
    mutating func finish(_ output: (Output) -> Void)
}

extension NMEAFramer: IncrementalDecoder {
    public typealias Output = FramedSentence
}
