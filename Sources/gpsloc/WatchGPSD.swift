// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DescriptorIO
import FoundationEssentials
import GNSS
@_spi(FrontEnd) import LocationEngine
import LocationHosting
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `gpsloc watch --format gpsd`: what a gpsd client of this program would read, each report
/// written as it comes. As gpslocd's client it is one: it speaks gpsd's protocol on the daemon's
/// socket, and gpslocd decides what it gets. With `--source` the program's own engine decides:
/// gpsd's reports of every fix while it may have precise locations, a TPV of each reduced
/// location while it may have approximate ones only, an ERROR naming the flags otherwise.
enum WatchGPSD {
    /// Copies gpslocd's gpsd protocol to standard output until the daemon ends the connection.
    static func relay(socket path: String) async throws {
        let connection: DaemonConnection
        do { connection = try DaemonConnection.open(path: path) } catch { throw failure(error.description) }
        defer { try? connection.descriptor.close() }
        guard connection.send(Array(#"?WATCH={"enable":true,"json":true};"#.utf8) + [10]) else {
            throw failure("gpslocd closed the connection before it was asked to watch")
        }
        let descriptor = connection.descriptor.rawValue
        // A thread of its own waits on the socket, so that no thread of Swift's few is held.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            detachThread(named: "gpsloc watch") {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    do { try writeAll(Array(buffer[..<count]), to: 1) } catch { break }
                }
                continuation.resume()
            }
        }
    }

    /// The program's own engine, on its own receiver, printed as gpsd's reports; the reports
    /// are made and written on `thread` when there is one (it reads a serial receiver).
    static func inProcess(
        context: LocationContext, device: String, activity: ActivityProfile, thread: (any TaskExecutor)?
    ) async throws {
        let lock = Mutex(())
        let quoted = QuotedText(device)
        let write: @Sendable ([UInt8]) -> Void = { bytes in
            lock.withLock { _ in try? writeAll(bytes, to: 1) }
        }
        var first: [UInt8] = []
        FixFormat.appendGPSDDevice(path: device, activated: .now, to: &first)
        write(first + [13, 10])
        let fixes = context.subscribePreciseFixes()
        let printer = Task(executorPreference: thread) {
            while let fix = await fixes?.next() {
                var lines: [UInt8] = []
                FixFormat.appendGPSDReports(fix, device: quoted, crlf: true, to: &lines)
                write(lines)
            }
        }
        do {
            try await withTaskExecutorPreference(thread) {
                try await printUpdates(context: context, activity: activity, device: quoted, write: write)
            }
        } catch {
            printer.cancel()
            fixes?.close()
            throw error
        }
        // The updates ended (a log played to its end): the fixes waiting are printed first.
        fixes?.finish()
        await printer.value
        fixes?.close()
    }

    /// Reduced locations as TPVs, and why there is no location as ERRORs (once per change).
    private static func printUpdates(
        context: LocationContext, activity: ActivityProfile, device quoted: QuotedText,
        write: @Sendable ([UInt8]) -> Void
    ) async throws {
        var lastRefusal: String?
        for await update in context.liveUpdates(for: activity) {
            if let location = update.location {
                lastRefusal = nil
                guard update.flags.accuracyLimited else { continue }  // the fixes print precise ones
                var line: [UInt8] = []
                FixFormat.appendGPSDReducedTPV(
                    latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
                    radius: location.horizontalAccuracy, time: AppOptions.utcTimestamp(location.timestamp),
                    device: quoted, to: &line)
                write(line + [13, 10])
                continue
            }
            let flags = Watch.flags(update).filter(\.1).map { "\($0.0)" }.joined(separator: " ")
            guard !flags.isEmpty, flags != lastRefusal else { continue }
            lastRefusal = flags
            var line: [UInt8] = []
            JSONObjectWriter.append(to: &line, estimate: 256) { json in
                json.add("class", constant: "ERROR")
                json.add("message", string: "no location: \(flags)")
            }
            write(line + [13, 10])
        }
    }

    private static func failure(_ message: String) -> ExitCode {
        printError("gpsloc watch: error: \(message)")
        return ExitCode(1)
    }
}
