// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Dispatch
import GNSS
import Locking
import NMEA

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ReplaySource {
    /// Whether ``decodeAll(onTwoThreads:progress:_:)`` may split its work over two threads by
    /// default: where this process may run on two processors or more (its affinity, which a
    /// container's or a unit's CPU set narrows, not merely the processors online).
    public static let decodesOnTwoThreads: Bool = {
        usableProcessors() >= 2
    }()

    /// The size from which a log file is decoded on two threads by default, 2 MiB: a 1 MB log
    /// took 1.04× the time on two threads and 16 % more CPU, an 8 MB one 0.81× the time, a
    /// 100 MB one 0.55× (`perf stat -r`, `BENCHMARKS.md`).
    public static let twoThreadsFrom = 2 << 20

    /// How many times smaller than its text a compressed log is taken to be, at least, for the
    /// threshold: NMEA shrinks 6.5× with gzip, 7× with zstd and 12× with xz.
    static let compressionAtLeast = 6

    /// About how many bytes of text the log holds, when it is a file that can be read to its end
    /// at any time (a regular file, or a compressed one: its size times
    /// ``compressionAtLeast``); `nil` for standard input, a pipe or a device, whose next read may
    /// wait for bytes not written yet. Only a file is decoded on two threads: a caller that stops
    /// (its output closed) never waits on a read the reading thread began.
    var regularFileText: Int? {
        guard let path, path != "-" else { return nil }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(status.st_size)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return size }
        defer { close(descriptor) }
        var prefix = [UInt8](repeating: 0, count: 8)
        let count = prefix.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        switch LogFormat.detect(prefix.prefix(max(0, count))) {
        case .gzip, .xz, .zstd: return size * Self.compressionAtLeast
        default: return size
        }
    }

    /// ``decodeAll(onTwoThreads:progress:_:)`` over two threads: a thread of its own reads the
    /// log, takes out its comments, frames and parses it (a ``SentenceReader``), a chunk at a
    /// time, while the calling thread assembles the chunk before and calls `body` with its fixes.
    /// The same fixes, in the same order, the same counts and the same errors, at the same
    /// points: a fault in the log still gives every fix read before it, then the error.
    func decodeAllOnTwoThreads(
        progress: ((_ bytesRead: Int, _ size: Int?) -> Void)?, _ body: (Fix) throws -> Void
    ) throws -> DecodeStatistics {
        let queue = ParsedChunkQueue()
        let (path, chunkSize, framing, settled) = (path, chunkSize, framing, referenceDate != nil)
        detachThread(named: "gpsloc-parse") {
            ParsedChunkQueue.read(
                path: path, chunkSize: chunkSize, framing: framing, referenceSettled: settled, into: queue)
        }
        // However this ends, the reading thread is stopped and waited for: nothing of the log is
        // read after decoding has returned.
        defer { queue.stopAndWait() }
        var state = DecodingState(framing: framing, referenceDate: referenceDate)
        var failure: (any Error)?
        let emit: (Fix) -> Void = { fix in
            guard failure == nil else { return }
            do { try body(fix) } catch { failure = error }
        }
        while true {
            var chunk = queue.take()
            if let header = chunk.header { state.settle(header: header) }
            state.decoder.decode(chunk.sentences, emit)
            queue.recycle(&chunk.sentences)
            if let failure { throw failure }
            guard let end = chunk.end else {
                if let position = chunk.position { progress?(position.consumed, position.size) }
                continue
            }
            if case .openFailed(let error) = end.outcome { throw error }
            state.decoder.finish(emit)
            if let failure { throw failure }
            if case .readFailed(let error) = end.outcome { throw error }
            var statistics = state.statistics
            statistics.framer = end.framer
            statistics.unparsable = end.unparsable
            statistics.bytesRead = end.bytesRead
            statistics.commentLines = end.commentLines
            return statistics
        }
    }
}

/// A chunk of a log as the reading thread parsed it.
struct ParsedChunk: Sendable {
    /// The date a `# Date:` header named, for the sentences from this chunk on.
    var header: CivilDate?
    var sentences = ParsedSentences()
    /// The log's bytes read so far and its size, for the progress meter, when the chunk ends
    /// where a read did (a header splits a read into two chunks).
    var position: (consumed: Int, size: Int?)?
    /// Set on the last chunk: how the reading ended and what it counted.
    var end: End?

    struct End: Sendable {
        enum Outcome: Sendable {
            case complete
            /// The log could not be opened: nothing was read.
            case openFailed(any Error)
            /// It failed partway: what came before is in the chunks.
            case readFailed(any Error)
        }
        var outcome: Outcome
        var framer = FramerStatistics()
        var unparsable = 0
        var bytesRead = 0
        var commentLines = 0
    }
}

/// The chunks between the reading thread and the assembling one: at most `capacity` wait, so a
/// reader faster than the assembler holds a bounded amount of memory.
final class ParsedChunkQueue: Sendable {
    private static let capacity = 4

    private struct State {
        var chunks: [ParsedChunk] = []
        /// Emptied chunks' storage, for the reader's next ones: each chunk's arrays would
        /// otherwise be allocated anew, and arrays that large come fresh from the kernel, every
        /// page of them faulted in.
        var spare: [ParsedSentences] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let waiting = DispatchSemaphore(value: 0)
    private let room = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init() {
        // Given its room by signals rather than as its starting value: libdispatch stops the
        // program when a semaphore is released holding less than it started with, which a queue
        // stopped early does.
        for _ in 0..<Self.capacity { room.signal() }
    }

    /// Hands `chunk` on, waiting while the queue is full; `false` once the assembler stopped.
    fileprivate func put(_ chunk: ParsedChunk) -> Bool {
        if state.withLock({ $0.stopped }) { return false }
        room.wait()
        let stopped = state.withLock { state in
            if !state.stopped { state.chunks.append(chunk) }
            return state.stopped
        }
        if !stopped { waiting.signal() }
        return !stopped
    }

    /// The next chunk, waiting for it.
    func take() -> ParsedChunk {
        waiting.wait()
        let chunk = state.withLock { $0.chunks.removeFirst() }
        room.signal()
        return chunk
    }

    /// Gives `sentences`' storage back for another chunk, leaving it empty.
    func recycle(_ sentences: inout ParsedSentences) {
        var emptied = ParsedSentences()
        swap(&emptied, &sentences)
        emptied.removeAll()
        state.withLock { $0.spare.append(emptied) }
    }

    /// A chunk to fill, with storage used before when there is some.
    fileprivate func emptyChunk() -> ParsedChunk {
        ParsedChunk(sentences: state.withLock { $0.spare.popLast() } ?? ParsedSentences())
    }

    /// Stops the reading thread (its next `put` returns `false`) and waits until it has ended.
    func stopAndWait() {
        state.withLock { $0.stopped = true }
        // A reader waiting for room gets it, finds the queue stopped and ends; it puts nothing
        // more after that.
        room.signal()
        finished.wait()
    }

    /// The reading thread's work: the log read, its comments taken out, framed and parsed, a
    /// chunk at a time, until its end, a failure or `queue` is stopped; then the log closed, and
    /// only then the assembler told that the reader has ended.
    static func read(
        path: String?, chunkSize: Int, framing: NMEAFramer.Configuration, referenceSettled: Bool,
        into queue: ParsedChunkQueue
    ) {
        readAndParse(
            path: path, chunkSize: chunkSize, framing: framing, referenceSettled: referenceSettled,
            into: queue)
        queue.finished.signal()
    }

    private static func readAndParse(
        path: String?, chunkSize: Int, framing: NMEAFramer.Configuration, referenceSettled: Bool,
        into queue: ParsedChunkQueue
    ) {
        var reader: ChunkReader
        do {
            reader = try ChunkReader(path: path, chunkSize: chunkSize)
        } catch {
            _ = queue.put(ParsedChunk(end: .init(outcome: .openFailed(error))))
            return
        }
        var filter = CommentFilter()
        var parser = SentenceReader(configuration: framing)
        var settled = referenceSettled
        var chunk = queue.emptyChunk()
        var bytesRead = 0
        var stopped = false
        var outcome = ParsedChunk.End.Outcome.complete
        do {
            while !stopped,
                try reader.next({ (bytes: UnsafeRawBufferPointer) -> Void in
                    bytesRead += bytes.count
                    filter.append(bytes) { segment in
                        if !settled, let header = segment.headerDate {
                            // The sentences before the header are assembled with the date before.
                            settled = true
                            if !chunk.sentences.isEmpty {
                                if !queue.put(chunk) { stopped = true }
                                chunk = queue.emptyChunk()
                            }
                            chunk.header = header
                        }
                        parser.read(segment.bytes, into: &chunk.sentences)
                    }
                }) != nil
            {
                chunk.position = (reader.bytesConsumed, reader.size)
                if stopped || !queue.put(chunk) { return }
                chunk = queue.emptyChunk()
            }
        } catch {
            outcome = .readFailed(error)
        }
        if stopped { return }
        filter.finish { _ in }
        parser.finish(into: &chunk.sentences)
        chunk.end = .init(
            outcome: outcome, framer: parser.framerStatistics, unparsable: parser.unparsable,
            bytesRead: bytesRead, commentLines: filter.commentLines)
        _ = queue.put(chunk)
    }
}
