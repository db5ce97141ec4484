// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import GNSS
import GNSSSources
import Locking
import Logging
import SystemPackage
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Collects what a source delivers, for checking from the test.
final class Received: Sendable {
    private let fixes = Mutex<[Fix]>([])
    private let lines = Mutex<[String]>([])
    /// The fixes received, without their arrival times (which a decoded log has not), to compare
    /// with decoded ones; ``arrivals`` holds those.
    var all: [Fix] {
        fixes.withLock { fixes in
            fixes.map { fix in
                var bare = fix
                bare.arrival = nil
                return bare
            }
        }
    }
    var arrivals: [UTCTimestamp?] { fixes.withLock { $0.map(\.arrival) } }
    var log: [String] { lines.withLock { $0 } }
    func add(_ fix: Fix) { fixes.withLock { $0.append(fix) } }
    func note(_ line: String) { lines.withLock { $0.append(line) } }

    /// A logger whose messages land in ``log``.
    var logger: Logger {
        Logger(label: "test") { _ in Capture(received: self) }
    }

    private struct Capture: LogHandler {
        let received: Received
        var logLevel = Logger.Level.trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { received.note("\(event.message)") }
    }
}

/// Waits (yielding, bounded by `seconds`) until `condition` holds.
func eventually(
    _ seconds: Double = 10, _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async {
    if await waitUntil(within: seconds, every: .milliseconds(5), condition) { return }
    Issue.record("condition not reached in \(seconds) s", sourceLocation: sourceLocation)
}

@Suite("Serial receivers through a pseudo-terminal")
struct SerialSourceTests {
    @Test(
        "Sentences paced like a UART at 4800, 9600 and 115200 baud become the same fixes as decode",
        arguments: [4800, 9600, 115200])
    func paced(baud: Int) async throws {
        let pty = try PseudoTerminal()
        let received = Received()
        let source = SerialSource(path: pty.slavePath, baud: baud, logger: received.logger)
        let run = Task { try await source.run { received.add($0) } }
        // Generous: with two cores, CPU-bound tests running alongside can hold both threads of the
        // concurrency pool for seconds before the source's task first runs.
        await eventually(60) { received.log.contains { $0.contains("open at \(baud) baud") } }
        let sample = try driveSample(epochs: baud <= 9600 ? 5 : 20, allSentences: baud > 9600)
        await pty.send(sample.bytes, baud: baud)
        // The last epoch is complete only when the next one starts.
        await eventually { received.all.count >= sample.fixes.count - 1 }
        #expect(received.all == Array(sample.fixes.prefix(received.all.count)))
        // Each live fix says when its epoch began to arrive, in the order they came.
        let arrivals = received.arrivals.compactMap { $0 }
        #expect(arrivals.count == received.arrivals.count && arrivals == arrivals.sorted())
        #expect(source.rate == baud)
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        pty.close()
    }

    @Test("A consumer told at once gets the same fixes, in order, on the thread that read them")
    func immediate() async throws {
        let pty = try PseudoTerminal()
        let received = Received()
        let threads = Mutex<Set<String>>([])
        let source = SerialSource(path: pty.slavePath, baud: 115200, logger: received.logger)
        let run = Task {
            try await source.run(
                .immediate { fix in
                    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                    threads.withLock { _ = $0.insert(name.trimmingCharacters(in: .newlines)) }
                    received.add(fix)
                }, connected: { _ in })
        }
        await eventually(60) { received.log.contains { $0.contains("open at 115200 baud") } }
        let sample = try driveSample(epochs: 20, allSentences: true)
        await pty.send(sample.bytes, baud: 115200)
        await eventually { received.all.count >= sample.fixes.count - 1 }
        #expect(received.all == Array(sample.fixes.prefix(received.all.count)))
        #expect(
            threads.withLock { $0 } == ["gnss-reader"], "not awaited from a task: told on the reading thread")
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        pty.close()
    }

    @Test("Without a rate the source tries rates until checksummed sentences arrive, then reads")
    func detection() async throws {
        let pty = try PseudoTerminal()
        let received = Received()
        let source = SerialSource(path: pty.slavePath, probeTime: .milliseconds(800), logger: received.logger)
        let run = Task {
            do {
                try await source.run { received.add($0) }
            } catch {
                received.logger.error("run ended: \(error)")
                throw error
            }
        }
        // 4800 and 9600 are tried first and read noise.
        let receiver = pty.transmitContinuously(try driveSample(epochs: 3).bytes, baud: 38400)
        // Generous, as above.
        await eventually(60) { received.all.count >= 2 }
        #expect(source.rate == 38400)
        #expect(
            received.log.contains { $0.contains("found NMEA at 38400 baud") },
            "the source logged:\n\(received.log.joined(separator: "\n"))")
        run.cancel()
        _ = try? await run.value
        await receiver.stop()
        pty.close()
    }

    @Test("Noise at a wrong rate is told apart from NMEA")
    func probe() throws {
        var generator = SeededGenerator(seed: 3)
        var noise = BaudProbe()
        let bytes = (0..<2048).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { noise.feed($0) }
        #expect(noise.verdict == .noise)
        var nmea = BaudProbe()
        try driveSample(epochs: 2).bytes.withUnsafeBytes { nmea.feed($0) }
        #expect(nmea.verdict == .nmea)
    }

    @Test("Unplugging mid-sentence ends the run with a disconnect; what came before is kept")
    func unplug() async throws {
        let pty = try PseudoTerminal()
        let received = Received()
        let source = SerialSource(path: pty.slavePath, baud: 115200, logger: received.logger)
        let run = Task { try await source.run { received.add($0) } }
        await eventually { received.log.contains { $0.contains("open at") } }
        let sample = try driveSample(epochs: 4)
        pty.write(sample.bytes + Array("$GPRMC,080004.00,A,5222.3".utf8))
        await eventually { received.all.count >= 3 }
        pty.close()
        let error = await #expect(throws: DisconnectError.self) { try await run.value }
        #expect(error?.description.hasPrefix("serial:\(pty.slavePath)") == true)
        #expect(received.all == Array(sample.fixes.prefix(received.all.count)))
        // Each live fix says when its epoch began to arrive, in the order they came.
        let arrivals = received.arrivals.compactMap { $0 }
        #expect(arrivals.count == received.arrivals.count && arrivals == arrivals.sorted())
    }

    @Test("A receiver that comes back under the same link (as udev's by-id links do) is read again")
    func replug() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serial-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let link = directory + "/usb-GPS-if00"
        let received = Received()
        let source = SerialSource(path: link, baud: 9600, logger: received.logger)

        var pty = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
        let first = Task { try await source.run { received.add($0) } }
        await eventually { received.log.count == 1 }
        pty.write(try driveSample(epochs: 3).bytes)
        await eventually { received.all.count >= 2 }
        pty.close()
        try FileManager.default.removeItem(atPath: link)
        await #expect(throws: DisconnectError.self) { try await first.value }

        // Unplugged: opening fails and says so.
        let absent = await #expect(throws: DisconnectError.self) { try await source.run { _ in } }
        #expect(absent?.description.contains("is the receiver plugged in?") == true)
        #expect(absent?.errno == .noSuchFileOrDirectory, "a caller can tell unplugged from refused")

        pty = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
        let before = received.all.count
        let second = Task { try await source.run { received.add($0) } }
        await eventually { received.log.count == 2 }
        pty.write(try driveSample(epochs: 3).bytes)
        await eventually { received.all.count >= before + 2 }
        second.cancel()
        _ = try? await second.value
        pty.close()
    }

    @Test("A second program cannot open a receiver in use")
    func exclusive() async throws {
        let pty = try PseudoTerminal()
        let received = Received()
        let source = SerialSource(path: pty.slavePath, baud: 9600, logger: received.logger)
        let run = Task { try await source.run { _ in } }
        await eventually { received.log.count == 1 }
        let other = SerialSource(path: pty.slavePath, baud: 9600)
        let error = await #expect(throws: DisconnectError.self) { try await other.run { _ in } }
        #expect(error?.description.contains("another program") == true)
        try source.send(Array("$PMTK220,1000*1F\r\n".utf8))
        #expect(pty.readLine() == "$PMTK220,1000*1F\r\n")
        run.cancel()
        _ = try? await run.value
        pty.close()
    }
}

extension SerialSourceTests {
    @Test("A receiver that sends only noise at the given rate is explained in the log, once")
    func noiseIsExplained() async throws {
        let pty = try PseudoTerminal()
        let received = Received()
        let source = SerialSource(path: pty.slavePath, baud: 9600, logger: received.logger)
        let run = Task { try await source.run { received.add($0) } }
        await eventually { received.log.contains { $0.contains("open at") } }
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<4 {
            pty.write((0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        await eventually { received.log.contains { $0.contains("not one NMEA sentence") } }
        let explained = received.log.filter { $0.contains("not one NMEA sentence") }
        #expect(explained.count == 1)
        #expect(
            explained.first?.contains("at 9600 baud") == true && explained.first?.contains("?baud=") == true)
        #expect(received.all.isEmpty)
        run.cancel()
        _ = try? await run.value
        pty.close()
    }

    @Test(
        "A closed receiver is left open to others: the exclusive flag goes with the descriptor",
        .enabled(if: getuid() == 0, "needs root to open the port as another user"))
    func exclusiveFlagCleared() async throws {
        let pty = try PseudoTerminal()
        chmod(pty.slavePath, 0o666)
        let received = Received()
        let source = SerialSource(path: pty.slavePath, baud: 9600, logger: received.logger)
        let run = Task { try await source.run { _ in } }
        await eventually { received.log.count == 1 }
        run.cancel()
        _ = try? await run.value
        // What a user's program does next: open the device (root would pass TIOCEXCL anyway).
        let opened = try await Runner.run(
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", "dd", "if=\(pty.slavePath)",
                "of=/dev/null",
                "count=0", "iflag=nonblock",
            ], executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        #expect(opened.status == 0, "\(opened.standardError)")
        pty.close()
    }
}

@Suite("NMEA over TCP and UDP")
struct NetworkSourceTests {
    /// A TCP server on a free loopback port that runs `serve` for its first client.
    final class Server: @unchecked Sendable {
        private(set) var listener: Int32
        let port: Int

        init() throws {
            let listener = socket(AF_INET, SocketType.stream, 0)
            self.listener = listener
            var address = Daemons.loopback()
            var yes: Int32 = 1
            setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(4))
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            listen(listener, 4)
            var bound = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            port = Int(UInt16(bigEndian: bound.sin_port))
        }

        /// Accepts one client, writes `bytes` to it, then closes it, on a thread of its own (the
        /// calls block).
        func serve(_ bytes: [UInt8]) -> Task<Void, Never> {
            let listener = listener
            return Task {
                await onAThreadOfItsOwn {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    var offset = 0
                    while offset < bytes.count {
                        let count = bytes[offset...].withUnsafeBytes {
                            write(client, $0.baseAddress, $0.count)
                        }
                        if count <= 0 { break }
                        offset += count
                    }
                    close(client)
                }
            }
        }

        /// Stops listening (once: a second close could close another test's descriptor).
        func stop() {
            guard listener >= 0 else { return }
            close(listener)
            listener = -1
        }

        deinit { stop() }
    }

    @Test("A server's stream becomes fixes; its closing the connection is a disconnect")
    func tcp() async throws {
        let server = try Server()
        let sample = try driveSample(epochs: 20, allSentences: true)
        let served = server.serve(sample.bytes)
        let received = Received()
        let source = TCPSource(host: "localhost", port: server.port)
        let error = await #expect(throws: DisconnectError.self) { try await source.run { received.add($0) } }
        #expect(error?.description.contains("closed the connection") == true)
        await served.value
        #expect(received.all == Array(sample.fixes.prefix(received.all.count)))
        // Each live fix says when its epoch began to arrive, in the order they came.
        let arrivals = received.arrivals.compactMap { $0 }
        #expect(arrivals.count == received.arrivals.count && arrivals == arrivals.sorted())
        #expect(received.all.count >= sample.fixes.count - 1)
        withExtendedLifetime(server) {}
    }

    @Test("Binary junk and over-long lines from a peer are skipped; the sentences around them count")
    func junk() async throws {
        let server = try Server()
        let sample = try driveSample(epochs: 10)
        var generator = SeededGenerator(seed: 9)
        let junk = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let long = Array(("$GPTXT," + String(repeating: "A", count: 100_000) + "\r\n").utf8)
        let half = sample.bytes.count / 2
        let cut = sample.bytes[..<half].lastIndex(of: 10)! + 1
        let served = server.serve(Array(sample.bytes[..<cut]) + junk + long + Array(sample.bytes[cut...]))
        let received = Received()
        await #expect(throws: DisconnectError.self) {
            try await TCPSource(host: "127.0.0.1", port: server.port).run { received.add($0) }
        }
        await served.value
        #expect(received.all.filter { $0.hasPosition }.count >= sample.fixes.count - 2)
        withExtendedLifetime(server) {}
    }

    @Test("Nobody listening: the connection is refused with a hint")
    func refused() async throws {
        let server = try Server()
        let port = server.port
        server.stop()
        let error = await #expect(throws: DisconnectError.self) {
            try await TCPSource(host: "127.0.0.1", port: port).run { _ in }
        }
        #expect(error?.description.contains("is the server running?") == true)
        #expect(error?.errno == .connectionRefused)
        // A timeout beyond what poll's milliseconds hold waits long; it is no trap.
        await #expect(throws: DisconnectError.self) {
            try await TCPSource(host: "127.0.0.1", port: port, connectTimeout: .seconds(Int64.max)).run { _ in
            }
        }
    }

    @Test("Datagrams of sentences become fixes")
    func udp() async throws {
        let port = Daemons.freePort(datagram: true)

        let received = Received()
        let run = Task { try await UDPSource(port: port).run { received.add($0) } }
        let sample = try driveSample(epochs: 8)
        let sender = socket(AF_INET, SocketType.datagram, 0)
        defer { close(sender) }
        var target = Daemons.loopback(port: port)
        let text = String(decoding: sample.bytes, as: UTF8.self)
        // Keep sending until the listener is up and has the fixes (UDP may drop the first ones).
        for _ in 0..<50 where received.all.count < sample.fixes.count - 1 {
            for line in text.split(separator: "\r\n") {
                let datagram = Array((line + "\r\n").utf8)
                _ = withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(sender, datagram, datagram.count, 0, $0, socklen_t(16))
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(received.all.count >= sample.fixes.count - 1)
        run.cancel()
        _ = try? await run.value
    }
}
