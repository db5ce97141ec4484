// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The receiver's time for clock discipline: Debian's chronyd reads gpslocd's samples through its
/// SOCK refclock (never setting the clock: `-x`), and a gpsd client that watches with `pps` gets
/// TOFF reports.
@Suite(
    "gpslocd: the receiver's time for chrony and TOFF", .serialized,
    .enabled(if: getuid() == 0, "chronyd's test instance runs as root"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/chronyd"), "chrony is not installed")
)
struct ChronyFeedTests {
    /// chronyc's line for the refclock named GPS: its reach and last sample's offset in seconds.
    static func refclock(_ sources: String) -> (reach: Int, offset: Double)? {
        guard let line = sources.split(separator: "\n").first(where: { $0.contains(" GPS ") }) else {
            return nil
        }
        let fields = line.split(separator: " ")
        guard fields.count >= 7, let reach = Int(fields[4], radix: 8) else { return nil }
        // "Last sample" reads like "-123us[ -123us] +/- 45us": its first measure is the offset.
        guard let sample = line.range(of: #"[+-]?\d+(\.\d+)?(ns|us|ms|s)\["#, options: .regularExpression)
        else { return nil }
        let text = line[sample].dropLast()
        let unit = text.drop { "+-0123456789.".contains($0) }
        guard let number = Double(text.prefix(text.count - unit.count)) else { return nil }
        let scales: [String: Double] = ["ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1]
        let scale = scales[String(unit)] ?? 1
        return (reach, number * scale)
    }

    /// A stand-in for chronyd's SOCK refclock: a datagram socket bound at `path` by `user` (root when
    /// `nil`), mode `mode`, that counts the samples it receives for `seconds` and prints the count.
    static func listener(at path: String, as user: Account?, mode: Int = 0o755, seconds: Double) throws
        -> RunningProcess
    {
        let script = """
            import os, socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(sys.argv[1]); os.chmod(sys.argv[1], int(sys.argv[2], 8)); s.settimeout(0.2)
            print("bound", flush=True)
            n, end = 0, time.time() + float(sys.argv[3])
            while time.time() < end:
                try:
                    s.recv(64); n += 1
                except socket.timeout:
                    pass
            print("samples", n, flush=True)
            s.close(); os.unlink(sys.argv[1])
            """
        let arguments = ["/usr/bin/python3", "-c", script, path, String(mode, radix: 8), "\(seconds)"]
        if let user {
            return try RunningProcess(user.setpriv() + arguments, executable: setprivPath)
        }
        return try RunningProcess(
            Array(arguments.dropFirst()), executable: URL(fileURLWithPath: "/usr/bin/python3"))
    }

    /// How many samples a listener counted, once it ended.
    static func samples(_ listener: RunningProcess) async -> Int? {
        _ = await listener.wait(within: 30)
        return listener.output.split(separator: "\n").first { $0.hasPrefix("samples ") }.flatMap {
            Int($0.dropFirst(8))
        }
    }

    @Test(
        "in a directory others may write to, nothing is sent; once chronyd is gone, a socket another user binds in its place gets nothing"
    )
    func socketPathTakenOver() async throws {
        var template = Array("/tmp/ocl-chrony-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try CurrentTimeReceiver()
        defer { receiver.stop() }
        let device = receiver.terminal.slavePath.split(separator: "/").last.map(String.init) ?? ""
        let path = "\(directory)/chrony.\(device).sock"
        let bob = try await Account.ensure("ocl-bob")
        chmod(directory, 0o777)
        let daemon = try DaemonHarness(sources: [receiver.source], extra: ["--chrony-sockets", directory])
        try await daemon.start()

        // World-writable and not sticky: even root's socket is not fed, and the log says why, once.
        let root = try Self.listener(at: path, as: nil, seconds: 4)
        #expect(await Self.samples(root) == 0, "\(root.output)\(root.errors)")
        #expect(daemon.log.contains("writable by other users and not sticky"), "\(daemon.log)")

        // Sticky, as /tmp is: root's socket is chronyd's, and is fed.
        chmod(directory, 0o1777)
        let chronyd = try Self.listener(at: path, as: nil, seconds: 4)
        #expect((await Self.samples(chronyd) ?? 0) > 5, "\(chronyd.output)\(chronyd.errors)\n\(daemon.log)")

        // chronyd gone, its socket unlinked: bob binds the same path at once, and gets nothing.
        let taker = try Self.listener(at: path, as: bob, mode: 0o777, seconds: 5)
        #expect(await Self.samples(taker) == 0, "\(taker.output)\(taker.errors)\n\(daemon.log)")
        #expect(daemon.log.contains("belongs to uid \(bob.uid)"), "\(daemon.log)")
        await daemon.stop()
    }

    @Test("chronyd's SOCK refclock samples the receiver's time, and TOFF reports the same offset")
    func chronySamplesTheReceiver() async throws {
        // chronyd takes a path without spaces, in a directory only its user may enter.
        var template = Array("/tmp/ocl-chrony-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try CurrentTimeReceiver()
        defer { receiver.stop() }
        let device = receiver.terminal.slavePath.split(separator: "/").last.map(String.init) ?? ""
        let configuration = """
            refclock SOCK \(directory)/chrony.\(device).sock refid GPS poll 0
            bindcmdaddress \(directory)/chronyd.sock
            cmdport 0
            pidfile \(directory)/chronyd.pid
            """
        try configuration.write(toFile: directory + "/chrony.conf", atomically: true, encoding: .utf8)
        let chronyd = try RunningProcess(
            ["-x", "-d", "-u", "root", "-f", directory + "/chrony.conf"],
            executable: URL(fileURLWithPath: "/usr/sbin/chronyd"))
        defer { chronyd.signal(SIGKILL) }
        #expect(
            await waitUntil(within: 10) {
                FileManager.default.fileExists(atPath: "\(directory)/chrony.\(device).sock")
            },
            "\(chronyd.errors)")

        let daemon = try DaemonHarness(sources: [receiver.source], extra: ["--chrony-sockets", directory])
        try await daemon.start()
        #expect(
            await waitUntil(within: 10) {
                daemon.log.contains("feeding chrony at \(directory)/chrony.\(device).sock")
            },
            "\(daemon.log)")
        // A pseudo-terminal has no DCD line: no pulses, and the log says so once. The pulses are
        // looked for beside the feed, so the line may come just after the feed's.
        let noPulses = "no pulse per second: the port does not report its DCD line"
        #expect(await waitUntil(within: 10) { daemon.log.contains(noPulses) }, "\(daemon.log)")
        #expect(daemon.log.components(separatedBy: noPulses).count == 2, "\(daemon.log)")

        var last = ""
        func readRefclock() async throws -> (reach: Int, offset: Double)? {
            let sources = try await Runner.run(
                ["-h", "\(directory)/chronyd.sock", "-n", "sources"],
                executable: URL(fileURLWithPath: "/usr/bin/chronyc"))
            last = sources.standardOutput + sources.standardError
            return Self.refclock(last)
        }
        var sampled: (reach: Int, offset: Double)?
        for _ in 0..<40 {
            if let found = try await readRefclock(), found.reach >= 0o7 {
                sampled = found
                break
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        guard let refclock = sampled else {
            Issue.record("chronyc sources:\n\(last)\n\(chronyd.errors)\n\(daemon.log)")
            await daemon.stop()
            return
        }
        // The receiver writes each epoch at the time it names (to 10 ms): an offset is that and
        // the read's delay, which on a machine loaded by the suites beside it was once 130 ms.
        // A sample given the wrong epoch is 100 ms off every time, and one given the wrong
        // second a whole second: so the best of five samples (chronyd takes one a second) is
        // within 100 ms, and none is half a second off.
        var samples = [refclock.offset]
        for _ in 0..<4 {
            try await Task.sleep(for: .milliseconds(1100))
            if let found = try await readRefclock() { samples.append(found.offset) }
        }
        let best = samples.map(abs).min() ?? .infinity
        #expect(best < 0.1 && samples.allSatisfy { abs($0) < 0.5 }, "\(samples)\n\(last)")
        print("chronyd's refclock: reach \(String(refclock.reach, radix: 8)), offsets \(samples) s")

        // TOFF: the receiver's time and the system clock at the epoch's arrival, as gpsd reports them.
        let socat = URL(fileURLWithPath: "/usr/bin/socat").resolvingSymlinksInPath().path
        try await daemon.grantAlways(uid: 0, app: socat)
        let client = try daemon.client(as: nil)
        client.send(#"?WATCH={"enable":true,"json":true,"pps":true};"#)
        func offsets() -> [Double] {
            GPSDProtocolTests.reports(client.output).filter { $0["class"] as? String == "TOFF" }.compactMap {
                report in
                guard let realSeconds = report["real_sec"] as? Int,
                    let realNanoseconds = report["real_nsec"] as? Int,
                    let clockSeconds = report["clock_sec"] as? Int,
                    let clockNanoseconds = report["clock_nsec"] as? Int
                else { return nil }
                return Double(realSeconds - clockSeconds) + Double(realNanoseconds - clockNanoseconds) * 1e-9
            }
        }
        guard await waitUntil(within: 10, { offsets().count >= 10 }) else {
            Issue.record("\(offsets().count) TOFF reports: \(client.output.suffix(600))\n\(daemon.log)")
            await client.stop()
            await daemon.stop()
            return
        }
        let toff = offsets()
        let sorted = toff.sorted()
        // The median, for the reason above: a late read moves one report, the wrong epoch all.
        #expect(abs(sorted[sorted.count / 2]) < 0.05 && toff.allSatisfy { abs($0) < 0.5 }, "\(toff)")
        print(
            "TOFF offsets over \(toff.count) epochs: median \(sorted[sorted.count / 2]) s, "
                + "range \(sorted.first ?? 0)…\(sorted.last ?? 0) s")
        await client.stop()

        // An approximate client that asks for the same gets its reduced TPV and no TOFF.
        let bob = try await Account.ensure("ocl-bob")
        try await GPSDProtocolTests.grant(daemon, uid: bob.uid, app: socat, approximate: true)
        let reduced = try daemon.client(as: bob)
        reduced.send(#"?WATCH={"enable":true,"json":true,"pps":true};"#)
        #expect(
            await waitUntil(within: 10) {
                GPSDProtocolTests.reports(reduced.output).contains { $0["class"] as? String == "TPV" }
            }, "\(reduced.output)")
        try await Task.sleep(for: .seconds(1))
        let classes = Set(GPSDProtocolTests.reports(reduced.output).compactMap { $0["class"] as? String })
        #expect(
            !classes.contains("TOFF") && !classes.contains("PPS") && !classes.contains("SKY"), "\(classes)")
        #expect(reduced.output.contains("has approximate location only"), "\(reduced.output)")
        await reduced.stop()
        await daemon.stop()
    }
}

/// A receiver on a pseudo-terminal that sends RMC and GGA about 10 times a second, each epoch
/// named for the moment it is written (as a receiver writes its epoch at the top of its time).
final class CurrentTimeReceiver: Sendable {
    let terminal: PseudoTerminal
    private let stopped = Atomic<Bool>(false)

    var source: String { "serial:\(terminal.slavePath)?baud=115200" }

    init() throws {
        terminal = try PseudoTerminal()
        Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                let tenths = (Int(now.tv_sec) * 10 + Int(now.tv_nsec) / 100_000_000) + 1
                let wait = Double(tenths) / 10 - (Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9)
                usleep(UInt32(max(0, wait) * 1e6))
                // Named for the moment it is written (to the hundredth of a second, as NMEA writes
                // it), however late this thread woke on a loaded machine.
                clock_gettime(CLOCK_REALTIME, &now)
                var seconds = time_t(now.tv_sec)
                var parts = tm()
                gmtime_r(&seconds, &parts)
                let time = String(
                    format: "%02d%02d%02d.%02d", parts.tm_hour, parts.tm_min, parts.tm_sec,
                    Int(now.tv_nsec) / 10_000_000)
                let date = String(
                    format: "%02d%02d%02d", parts.tm_mday, parts.tm_mon + 1, parts.tm_year % 100)
                let epoch =
                    SentenceBuilder.sentence("GPRMC,\(time),A,5222.3820,N,00453.5640,E,0.1,114.5,\(date),,,A")
                    + SentenceBuilder.sentence(
                        "GPGGA,\(time),5222.3820,N,00453.5640,E,1,09,0.9,12.0,M,46.9,M,,")
                terminal.write(Array(epoch.utf8))
            }
        }.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
