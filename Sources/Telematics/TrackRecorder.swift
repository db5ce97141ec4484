// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
@_spi(FrontEnd) import LocationEngine
import LocationHosting
import Locking
import TrackJournal

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a telematics box records: every location update an app may have (an Always session
/// held: an approximate grant records reduced locations only), and with NMEA the receiver's
/// sentences while it may have precise ones, each record sealed into a track journal before the
/// next is taken. The recorder's two feeds share the journal, one append at a time.
public final class TrackRecorder: @unchecked Sendable {
    private let writer: JournalWriter
    private let say: @Sendable (String) -> Void
    private let lock = Mutex(())
    private var full = false
    private let silence: Mutex<RecordingSilence>

    /// A recorder into `writer`'s journal; what happens (a full disk, recording again, gpslocd's
    /// refusals of NMEA, why nothing is recorded, with `grant`, the command that allows it) is
    /// told to `say`.
    public init(
        _ writer: JournalWriter, grant: String? = nil, say: @escaping @Sendable (String) -> Void
    ) {
        self.writer = writer
        self.say = say
        silence = Mutex(RecordingSilence(grant: grant))
    }

    /// Why this run recorded no location, when a decision kept it from any; nil when it recorded
    /// some, or nothing said why.
    public var refusedAll: String? {
        silence.withLock { $0.recorded ? nil : $0.reason.flatMap { $0.refused ? $0.text : nil } }
    }

    /// Records `context`'s location updates until they end or the task is cancelled (which ends
    /// it with `CancellationError`), and with `nmea` the receiver's NMEA beside them; the journal
    /// stays open for ``close()``.
    public func record(from context: LocationContext, nmea: Bool) async throws {
        let fixes = nmea ? context.subscribePreciseFixes() : nil
        let sentences = nmea ? Task { await recordNMEA(fixes: fixes) } : nil
        var failure: (any Error)?
        do {
            let session = context.holdSession(.always)
            defer { session.invalidate() }
            for await update in context.liveUpdates(for: .default) {
                try Task.checkCancellation()
                if let line = silence.withLock({ $0.note(update, at: .now) }) { say(line) }
                guard let location = update.location else { continue }
                append(.location(Self.record(location, reduced: update.flags.accuracyLimited)))
            }
        } catch {
            failure = error
        }
        // This engine's fixes still waiting are recorded; gpslocd's feed is let go.
        if let fixes { fixes.finish() } else { sentences?.cancel() }
        await sentences?.value
        if let failure { throw failure }
    }

    /// A location as the journal keeps it.
    public static func record(_ location: Location, reduced: Bool) -> JournalLocation {
        var flags: UInt16 = reduced ? 1 : 0
        if location.source?.isSimulatedBySoftware == true { flags |= 2 }
        if location.source?.isProducedByAccessory == true { flags |= 4 }
        return JournalLocation(
            time: location.timestamp.timeIntervalSince1970, latitude: location.coordinate.latitude,
            longitude: location.coordinate.longitude, horizontalAccuracy: Float(location.horizontalAccuracy),
            altitude: Float(location.altitude), verticalAccuracy: Float(location.verticalAccuracy),
            speed: Float(location.speed), speedAccuracy: Float(location.speedAccuracy),
            course: Float(location.course), courseAccuracy: Float(location.courseAccuracy), flags: flags)
    }

    /// Appends a record; a full disk is said once, and again when recording resumes.
    public func append(_ record: JournalRecord) {
        lock.withLock { _ in
            do {
                try writer.append(record)
                if full {
                    full = false
                    say("recording again; a gap record counts what was lost")
                }
            } catch {
                if !full {
                    full = true
                    say("\(error); records are lost until it can write again, the journal is kept")
                }
            }
        }
    }

    /// Closes the journal with its final record.
    public func close() throws(JournalError) {
        try lock.withLock { (_) throws(JournalError) in try writer.close() }
    }

    public var recordsWritten: Int { lock.withLock { _ in writer.recordsWritten } }
    /// Every record this run wrote, by kind (the segments' opening and final records included).
    public var written: JournalCounts { lock.withLock { _ in writer.written } }
}

extension TrackRecorder {
    /// Records the receiver's NMEA while the app may have precise locations, until cancelled or
    /// the feed ends: as gpslocd's gpsd protocol writes it from each fix (a client of gpslocd
    /// asks for it there, and gpslocd sends it only to a precise grant), or written the same way
    /// from `fixes`, this program's own engine's precise fixes (ended by `finish()`, so that what
    /// is waiting is kept). A receiver's own bytes never pass through.
    fileprivate func recordNMEA(fixes: Mailbox<Fix>?) async {
        let journal = self
        if let fixes {
            while let fix = await fixes.next() {
                var bytes: [UInt8] = []
                PseudoNMEA.append(fix, to: &bytes)
                if !bytes.isEmpty { journal.append(.nmea(bytes)) }
            }
            fixes.close()
            return
        }
        guard let path = LocationContext.daemonSocket() else {
            say(
                "--nmea: no gpslocd socket to ask for the receiver's NMEA, and no receiver of this program's: none is recorded"
            )
            return
        }
        let connection: DaemonConnection
        do {
            connection = try DaemonConnection.open(path: path)
        } catch {
            say("--nmea: \(error)")
            return
        }
        guard connection.send(Array(#"?WATCH={"enable":true,"nmea":true};"#.utf8) + [10]) else { return }
        let descriptor = connection.descriptor.rawValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // A thread of its own waits on the socket, so that no thread of Swift's few is held.
                detachThread(named: "gpsloc record") {
                    var pending: [UInt8] = []
                    var said = Set<String>()
                    var buffer = [UInt8](repeating: 0, count: 65536)
                    while true {
                        let count = buffer.withUnsafeMutableBytes {
                            read(descriptor, $0.baseAddress, $0.count)
                        }
                        if count < 0 && errno == EINTR { continue }
                        guard count > 0 else { break }
                        pending += buffer[..<count]
                        guard let end = pending.lastIndex(of: 10) else { continue }
                        var sentences: [UInt8] = []
                        for line in pending[...end].split(separator: 10) {
                            if line.first == UInt8(ascii: "$") {
                                sentences += line
                                if sentences.last != 13 { sentences.append(13) }
                                sentences.append(10)
                            } else if let text = String(bytes: line, encoding: .utf8),
                                text.contains(#""class":"ERROR""#),
                                said.insert(text).inserted
                            {
                                journal.say("--nmea: gpslocd says: \(text.trimmingWhitespace())")
                            }
                        }
                        pending.removeFirst(end + 1)
                        if !sentences.isEmpty { journal.append(.nmea(sentences)) }
                    }
                    continuation.resume()
                }
            }
        } onCancel: {
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
        try? connection.descriptor.close()
    }
}
