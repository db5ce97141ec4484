// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import NMEA

/// How fast a log is replayed.
public enum ReplaySpeed: Sendable, Hashable {
    /// As fast as the log can be read.
    case maximum
    /// Paced by the sentences' own UTC times, `factor` times faster than real time.
    case factor(Double)

    /// Real time.
    public static let realTime = ReplaySpeed.factor(1)
}

/// Replays a recorded NMEA log (a file or standard input) as fixes.
///
/// `#` comment lines are skipped, and a `# Date: YYYY-MM-DD` header is taken as the day the log
/// was recorded (`ReferenceDate.recordedOn(_:)`) for GPS week-rollover correction, unless a
/// reference date was given. Replayed at ``ReplaySpeed/maximum``,
/// fixes come as fast as they decode; at a ``ReplaySpeed/factor(_:)`` each fix is delivered when
/// the injected clock reaches its time relative to the first fix, so a replay behaves exactly as
/// the live receiver did.
public struct ReplaySource: Sendable {
    /// The log's path; `nil` or `"-"` for standard input.
    public var path: String?
    public var speed: ReplaySpeed
    public var framing: NMEAFramer.Configuration
    /// Overrides the log's `# Date:` header; without either, the assembler's default applies.
    public var referenceDate: ReferenceDate?
    public var chunkSize: Int

    public init(
        path: String?, speed: ReplaySpeed = .maximum, framing: NMEAFramer.Configuration = .init(),
        referenceDate: ReferenceDate? = nil, chunkSize: Int = 1 << 18
    ) {
        self.path = path
        self.speed = speed
        self.framing = framing
        self.referenceDate = referenceDate
        self.chunkSize = chunkSize
    }

    /// Decodes the whole log as fast as possible, calling `body` for every fix, and returns the
    /// decoder's counts. `progress`, after each chunk, gets the bytes read from the file so far
    /// (compressed, for a compressed log) and the file's size when it has one.
    ///
    /// `onTwoThreads`: a log file (not standard input, a pipe or a device) is read and parsed on
    /// a thread of its own while this one assembles the fixes and calls `body`, a long log in a
    /// little over half the time; the same fixes, counts and errors either way. `nil`, the
    /// default: for a file of ``twoThreadsFrom`` bytes of text or more (a gzip, xz or zstd one
    /// counted as six times its size), where this process may run on two processors (below that
    /// the second thread costs more than it saves).
    @discardableResult
    public func decodeAll(
        onTwoThreads: Bool? = nil,
        progress: ((_ bytesRead: Int, _ size: Int?) -> Void)? = nil, _ body: (Fix) throws -> Void
    ) throws -> DecodeStatistics {
        if let text = regularFileText,
            onTwoThreads ?? (Self.decodesOnTwoThreads && text >= Self.twoThreadsFrom)
        {
            return try decodeAllOnTwoThreads(progress: progress, body)
        }
        var reader = try ChunkReader(path: path, chunkSize: chunkSize)
        var state = DecodingState(framing: framing, referenceDate: referenceDate)
        var failure: (any Error)?
        // A log that turns out damaged or cut short still gives every fix read before the fault:
        // the epoch in progress is handed out, then the error is thrown.
        var readError: (any Error)?
        do {
            while try reader.next({ chunk in
                state.append(chunk) { fix in
                    guard failure == nil else { return }
                    do { try body(fix) } catch { failure = error }
                }
            }) != nil {
                if let failure { throw failure }
                progress?(reader.bytesConsumed, reader.size)
            }
        } catch  where failure == nil {
            readError = error
        }
        state.finish { fix in
            guard failure == nil else { return }
            do { try body(fix) } catch { failure = error }
        }
        if let failure { throw failure }
        if let readError { throw readError }
        return state.statistics
    }

    /// Replays the log, pacing fixes by their UTC times on `clock` (unless the speed is
    /// ``ReplaySpeed/maximum``), and returns the decoder's counts.
    @discardableResult
    public func run<C: Clock>(
        clock: C, _ body: (Fix) async throws -> Void
    ) async throws -> DecodeStatistics where C.Duration == Duration {
        var reader = try ChunkReader(path: path, chunkSize: chunkSize)
        var state = DecodingState(framing: framing, referenceDate: referenceDate)
        var pacer = Pacer<C>(speed: speed)
        var batch: [Fix] = []
        while try reader.next({ chunk in state.append(chunk) { batch.append($0) } }) != nil {
            for fix in batch {
                try await pacer.wait(for: fix, on: clock)
                try await body(fix)
            }
            batch.removeAll(keepingCapacity: true)
        }
        state.finish { batch.append($0) }
        for fix in batch {
            try await pacer.wait(for: fix, on: clock)
            try await body(fix)
        }
        return state.statistics
    }
}

/// The comment filter and decoder together: a log's bytes in, fixes out.
struct DecodingState: IncrementalDecoder {
    var filter = CommentFilter()
    var decoder: FixDecoder
    /// Whether the reference date is settled: given by the caller, or read from a header.
    private var referenceSettled: Bool
    /// What the reference date is, in words, for the summary.
    private var referenceBasis: String

    init(framing: NMEAFramer.Configuration, referenceDate: ReferenceDate?) {
        decoder = FixDecoder(
            configuration: framing, referenceDate: referenceDate ?? FixAssembler.defaultReferenceDate)
        referenceSettled = referenceDate != nil
        referenceBasis =
            switch referenceDate {
            case .recordedOn(let date): "the date given, \(date)"
            case .notBefore(let date): "no date earlier than \(date)"
            case nil: "this release's date, \(Self.defaultDate)"
            }
    }

    private static var defaultDate: String {
        if case .notBefore(let date) = FixAssembler.defaultReferenceDate { return "\(date)" }
        return "the default"
    }

    private var bytesRead = 0

    /// The decoder's counts with what the comment filter removed.
    var statistics: DecodeStatistics {
        var result = decoder.statistics
        result.bytesRead = bytesRead
        result.commentLines = filter.commentLines
        result.referenceBasis = referenceBasis
        return result
    }

    mutating func append(_ chunk: UnsafeRawBufferPointer, _ emit: (Fix) -> Void) {
        bytesRead += chunk.count
        Self.decode(&filter, &decoder, &referenceSettled, &referenceBasis, chunk, emit)
    }

    private static func decode(
        _ filter: inout CommentFilter, _ decoder: inout FixDecoder, _ referenceSettled: inout Bool,
        _ referenceBasis: inout String, _ chunk: UnsafeRawBufferPointer, _ emit: (Fix) -> Void
    ) {
        filter.append(chunk) { segment in
            if let header = segment.headerDate {
                settle(header: header, &decoder, &referenceSettled, &referenceBasis)
            }
            decoder.decode(segment.bytes, emit)
        }
    }

    /// A log's `# Date:` header: the reference date from here on, unless one is settled already.
    mutating func settle(header: CivilDate) {
        Self.settle(header: header, &decoder, &referenceSettled, &referenceBasis)
    }

    private static func settle(
        header: CivilDate, _ decoder: inout FixDecoder, _ referenceSettled: inout Bool,
        _ referenceBasis: inout String
    ) {
        guard !referenceSettled else { return }
        decoder.assembler.referenceDate = .recordedOn(header)
        referenceSettled = true
        referenceBasis = "the log's '# Date' header, \(header)"
    }

    mutating func finish(_ emit: (Fix) -> Void) {
        filter.finish { _ in }
        decoder.finish(emit)
    }
}

/// Schedules fixes on a clock relative to the first one, so that pacing does not drift.
struct Pacer<C: Clock> where C.Duration == Duration {
    let speed: ReplaySpeed
    private var origin: (instant: C.Instant, time: UTCTimestamp)?

    init(speed: ReplaySpeed) { self.speed = speed }

    mutating func wait(for fix: Fix, on clock: C) async throws {
        guard case .factor(let factor) = speed, factor > 0, let time = fix.time else { return }
        guard let origin else {
            origin = (clock.now, time)
            return
        }
        let elapsed = time.seconds(since: origin.time) / factor
        guard elapsed > 0 else { return }
        // A very slow factor puts the deadline beyond what a Duration's nanoseconds hold: wait
        // at most a century, which no replay outlives.
        let nanoseconds = min(elapsed * 1e9, 100 * 365.25 * 86_400 * 1e9)
        let deadline = origin.instant.advanced(by: .nanoseconds(Int64(nanoseconds)))
        if clock.now < deadline { try await clock.sleep(until: deadline, tolerance: nil) }
    }
}

extension ReplaySource: FixSource {
    /// A replay at maximum speed has no pace of its own: its consumers set it.
    public var isRealTime: Bool { speed != .maximum }

    public var origin: FixOrigin { .replay }
    public var name: String { path.map { $0 == "-" ? "stdin" : "file:\($0)" } ?? "stdin" }

    /// Replays the log on the continuous clock at the configured speed.
    public func run(_ deliver: @escaping @Sendable (Fix) async -> Void) async throws {
        try await run(clock: ContinuousClock()) { fix in
            try Task.checkCancellation()
            await deliver(fix)
        }
    }
}
