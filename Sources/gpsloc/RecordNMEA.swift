// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import GNSSSources
@_spi(FrontEnd) import LocationEngine
import LocationHosting
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A journal shared by the recorder's two feeds (locations, and NMEA with `--nmea`), one append
/// at a time.
final class SharedJournal: @unchecked Sendable {
    private let writer: JournalWriter
    private let lock = Mutex(())
    private var full = false

    init(_ writer: JournalWriter) { self.writer = writer }

    /// Appends a record; a full disk is said once, and again when recording resumes.
    func append(_ record: JournalRecord) {
        lock.withLock { _ in
            do {
                try writer.append(record)
                if full {
                    full = false
                    printError("gpsloc record: recording again; a gap record counts what was lost")
                }
            } catch {
                if !full {
                    full = true
                    printError(
                        "gpsloc record: \(error); records are lost until it can write again, the journal is kept"
                    )
                }
            }
        }
    }

    func close() throws(JournalError) {
        try lock.withLock { (_) throws(JournalError) in try writer.close() }
    }

    var recordsWritten: Int { lock.withLock { _ in writer.recordsWritten } }
}

/// The receiver's NMEA for `gpsloc record --nmea`, while the app may have precise locations: as
/// gpslocd's gpsd protocol writes it from each fix (a client of gpslocd asks for it there, and
/// gpslocd sends it only to a precise grant), or written the same way from this program's own
/// engine's precise fixes (with --source). A receiver's own bytes never pass through.
enum RecordNMEA {
    /// Records NMEA until cancelled or the feed ends: `fixes`, this program's own engine's (ended
    /// by `finish()`, so that what is waiting is kept), else gpslocd's.
    static func record(into journal: SharedJournal, fixes: Mailbox<Fix>?) async {
        if let fixes {
            while let fix = await fixes.next() {
                var bytes: [UInt8] = []
                PseudoNMEA.append(fix, to: &bytes)
                if !bytes.isEmpty { journal.append(.nmea(bytes)) }
            }
            fixes.close()
            return
        }
        guard let path = LocationContext.daemonSocket() else { return }
        let connection: DaemonConnection
        do {
            connection = try DaemonConnection.open(path: path)
        } catch {
            printError("gpsloc record: --nmea: \(error)")
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
                                printError(
                                    "gpsloc record: --nmea: gpslocd says: \(text.trimmingWhitespace())"
                                )
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
