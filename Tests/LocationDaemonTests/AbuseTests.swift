// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// gpslocd under abuse by an ordinary user: each attacker is a process of its own uid beside a
/// victim of another uid granted Always and following the receiver at 10 Hz. Each test asserts the
/// victim's longest silence, that a new client of a third uid is served during the attack, and
/// prints one line (`ABUSE …`) that `tools/abuse` collects. `tools/abuse` runs it alone (and
/// `tools/test` runs `tools/abuse`): with `OPENCORELOCATION_ABUSE=1` only.
@Suite(
    "gpslocd under abuse", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: ProcessInfo.processInfo.environment["OPENCORELOCATION_ABUSE"] == "1",
        "its attacks load the whole machine, which other suites' timing would feel: tools/abuse runs it alone"
    ))
struct AbuseTests {
    /// The longest the victim may go without an update while attacked.
    static let longestSilence = 3.0

    @Test("a descriptor flood by one user: refused past its limit; the victim and a newcomer are served")
    func descriptorFlood() async throws {
        var scene = try await Scene(descriptorLimit: 512)
        defer { scene.receiver.stop() }
        try await scene.start()
        let attack = try Attacker.run(
            "flood", count: 2000, seconds: 6, socket: scene.daemon.socket, as: scene.mallory)
        #expect(await attack.waitForOutput(within: 30) { $0.contains("holding") }, "\(attack.errors)")
        let newcomer = try scene.daemon.client(as: scene.bob)
        await newcomer.hello()
        let served = newcomer.identity?.uid == Int(scene.bob.uid)
        #expect(served, "a new client of another uid is served during the flood: \(newcomer.output)")
        _ = await attack.wait(within: 30)
        let result = Attacker.result(attack.output)
        let silence = await scene.victimSilence.stop()
        #expect(silence <= Self.longestSilence, "the victim went \(silence) s without an update")
        #expect(result["refused", default: 0] > 0, "\(attack.output)")
        #expect(
            result["opened", default: 0] - result["refused", default: 0] <= 128,
            "no more than its limit was kept: \(attack.output)")
        #expect(
            scene.daemon.log.contains("reached its connection limit")
                || scene.daemon.log.contains("connections already"))
        #expect(!scene.daemon.log.contains("without a pidfd"), "no client is identified unpinned")
        Self.report(
            "descriptor flood",
            "attacker opened \(result["opened", default: 0]), \(result["refused", default: 0]) refused; "
                + "victim's longest silence \(Self.seconds(silence)); newcomer of a third uid "
                + (served ? "served" : "NOT served"))
        await newcomer.stop()
        await scene.stop()
    }

    @Test("slowloris and silent connections: closed at the hello deadline, the victim unaffected")
    func slowloris() async throws {
        var scene = try await Scene(extra: ["--hello-timeout", "1"])
        defer { scene.receiver.stop() }
        try await scene.start()
        let attack = try Attacker.run(
            "slowloris", count: 50, seconds: 5, socket: scene.daemon.socket, as: scene.mallory)
        _ = await attack.wait(within: 30)
        let result = Attacker.result(attack.output)
        let silence = await scene.victimSilence.stop()
        #expect(result["closed", default: 0] == 50, "every slow connection was closed: \(attack.output)")
        #expect(result["latest", default: 99] <= 3, "within the deadline and a second: \(attack.output)")
        #expect(silence <= Self.longestSilence, "the victim went \(silence) s without an update")
        Self.report(
            "slowloris",
            "\(result["closed", default: 0]) of 50 slow connections closed, the last after "
                + "\(result["latest", default: -1]) s; victim's longest silence \(Self.seconds(silence))")
        await scene.stop()
    }

    @Test("connection churn: thousands of connects and hangs-up; the victim unaffected")
    func churn() async throws {
        var scene = try await Scene()
        defer { scene.receiver.stop() }
        try await scene.start()
        let attack = try Attacker.run(
            "churn", count: 3000, seconds: 0, socket: scene.daemon.socket, as: scene.mallory)
        _ = await attack.wait(within: 120)
        let result = Attacker.result(attack.output)
        let newcomer = try scene.daemon.client(as: scene.bob)
        await newcomer.hello()
        let silence = await scene.victimSilence.stop()
        #expect(result["done", default: 0] == 3000, "\(attack.output)\(attack.errors)")
        #expect(silence <= Self.longestSilence, "the victim went \(silence) s without an update")
        #expect(newcomer.identity != nil)
        Self.report(
            "churn",
            "\(result["done", default: 0]) connections in \(result["seconds", default: -1]) s; "
                + "victim's longest silence \(Self.seconds(silence))")
        await newcomer.stop()
        await scene.stop()
    }

    @Test("stalled readers: subscribers that never read are cut off; the victim unaffected")
    func stalledReaders() async throws {
        var scene = try await Scene(extra: ["--client-buffer", "4096"])
        defer { scene.receiver.stop() }
        try await scene.start()
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        try await scene.daemon.grantAlways(uid: scene.mallory.uid, app: python)
        let attack = try Attacker.run(
            "stall", count: 20, seconds: 15, socket: scene.daemon.socket, as: scene.mallory)
        _ = await attack.wait(within: 60)
        let result = Attacker.result(attack.output)
        let silence = await scene.victimSilence.stop()
        #expect(result["cut", default: 0] == 20, "every stalled reader was cut off: \(attack.output)")
        #expect(silence <= Self.longestSilence, "the victim went \(silence) s without an update")
        Self.report(
            "stalled readers",
            "\(result["cut", default: 0]) of 20 cut off; victim's longest silence \(Self.seconds(silence))")
        await scene.stop()
    }

    @Test("a monitor flood: refused past the app's limit, the victim unaffected; a restart is ready at once")
    func monitorFlood() async throws {
        var scene = try await Scene()
        defer { scene.receiver.stop() }
        try await scene.start()
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
        try await scene.daemon.grantAlways(uid: scene.mallory.uid, app: python)
        let attack = try Attacker.run(
            "monitors", count: 1000, seconds: 0, socket: scene.daemon.socket, as: scene.mallory)
        _ = await attack.wait(within: 120)
        let result = Attacker.result(attack.output)
        let silence = await scene.victimSilence.stop()
        #expect(result["added", default: 0] == 64, "the app's limit: \(attack.output)\(attack.errors)")
        #expect(result["refused", default: 0] == 936, "\(attack.output)")
        #expect(silence <= Self.longestSilence, "the victim went \(silence) s without an update")
        // An unregistered program nobody decided on keeps no monitor at all.
        let stranger = try scene.daemon.client(as: scene.bob)
        await stranger.hello()
        stranger.send(
            #"{"op":"monitor.add","id":1,"monitor":"m","identifier":"x","condition":{"circle":{"lat":52,"lon":4,"radius":200}}}"#
        )
        #expect(
            await stranger.wait {
                $0.contains {
                    if case .error(1, let m) = $0 {
                        m.contains("registered or its user decided")
                    } else {
                        false
                    }
                }
            }, "\(stranger.output)")
        await stranger.stop()
        await scene.victim.stop()
        let restart = try await scene.daemon.restart()
        #expect(restart <= 1, "ready \(restart) s after it was started")
        Self.report(
            "monitor flood",
            "\(result["added", default: 0]) of 1000 monitors kept, \(result["refused", default: 0]) refused; "
                + "victim's longest silence \(Self.seconds(silence)); restart ready in \(Self.seconds(restart))"
        )
        await scene.daemon.stop()
    }

    @Test(
        "10,000 stored monitors: the daemon answers within a second of starting; their evaluation catches up")
    func manyStoredMonitors() async throws {
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let daemon = try DaemonHarness(sources: [receiver.source])
        try await daemon.start()
        // 40 users of 4 apps of 64 monitors: a decision for each app, and its monitors' files.
        let users = (0..<40).map { UInt32(61_000 + $0) }
        let admin = try daemon.client(as: nil)
        await admin.hello()
        var id = 0
        for uid in users {
            for app in 0..<4 {
                id += 1
                admin.send(
                    #"{"op":"auth.grant","id":\#(id),"uid":\#(uid),"app":"/opt/app\#(app)","level":"always"}"#
                )
            }
        }
        let granted = id
        #expect(
            await admin.wait(within: 60) { $0.count { if case .ok = $0 { true } else { false } } >= granted })
        await admin.stop()
        await daemon.stopKeepingState()
        let file =
            #"{"conditions":[{"circle":{"latitude":52.37,"longitude":4.89,"radius":200},"date":0,"identifier":"depot","state":"unknown"}],"version":1}"#
        for uid in users {
            for app in 0..<4 {
                let directory = "\(daemon.state)/decisions/\(uid)/monitors/%2Fopt%2Fapp\(app)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for name in 0..<64 {
                    try Data(file.utf8).write(to: URL(fileURLWithPath: "\(directory)/m\(name).monitor"))
                }
            }
        }
        let started = ContinuousClock.now
        try await daemon.start()
        let client = try daemon.client(as: nil)
        await client.hello()
        let answered = started.duration(to: .now)
        let seconds = Double(answered.components.seconds) + Double(answered.components.attoseconds) * 1e-18
        #expect(seconds <= 1, "the first hello was answered \(seconds) s after the start")
        #expect(
            await waitUntil(within: 120) { daemon.log.contains("evaluating 10240 stored monitors") },
            "\(daemon.log)")
        let opened =
            daemon.log.split(separator: "\n").last { $0.contains("evaluating") }
            .flatMap { line in line.range(of: "opened in ").map { String(line[$0.upperBound...].dropLast()) }
            } ?? "?"
        // What evaluating them all costs, with the receiver at 10 Hz.
        let pid = try #require(daemon.process?.processIdentifier)
        let before = Self.cpuSeconds(pid)
        try await Task.sleep(for: .seconds(5))
        let load = (Self.cpuSeconds(pid) - before) / 5
        Self.report(
            "10,000 stored monitors",
            "first hello answered \(Self.seconds(seconds)) after the start; all opened in \(opened); "
                + "then \(Int((load * 100).rounded())) % of a core to evaluate them at 10 Hz")
        await client.stop()
        await daemon.stop()
    }

    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

    /// The seconds from `start` to now.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// The CPU time a process used so far, from `/proc/<pid>/stat` (user and system).
    static func cpuSeconds(_ pid: Int32) -> Double {
        // utime and stime, fields 14 and 15.
        guard let stat = ProcessStat(pid: pid), let user = stat[field: 14].flatMap({ Double($0) }),
            let system = stat[field: 15].flatMap({ Double($0) })
        else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// One line for `tools/abuse`.
    static func report(_ attack: String, _ figures: String) {
        print("ABUSE \(attack): \(figures)")
    }
}

/// A daemon on a 10 Hz receiver, a victim (ocl-alice) granted Always and subscribed, and the
/// attacker's and a newcomer's uids.
struct Scene {
    let alice: Account
    let bob: Account
    let mallory: Account
    let receiver: TenHertzReceiver
    let daemon: DaemonHarness
    var victim: WireClient!
    var victimSilence: SilenceMeter!

    init(descriptorLimit: Int? = nil, extra: [String] = []) async throws {
        alice = try await Account.ensure("ocl-alice")
        bob = try await Account.ensure("ocl-bob")
        mallory = try await Account.ensure("ocl-mallory")
        receiver = try TenHertzReceiver()
        daemon = try DaemonHarness(sources: [receiver.source], extra: extra, descriptorLimit: descriptorLimit)
    }

    mutating func start() async throws {
        try await daemon.start()
        try await daemon.grantAlways(uid: alice.uid, app: socatPath.path)
        let victim = try daemon.client(as: alice)
        await victim.hello()
        victim.send(#"{"op":"session.open","session":1,"authorization":"always"}"#)
        victim.send(#"{"op":"updates.subscribe","subscription":1}"#)
        #expect(await victim.wait { _ in victim.locations.count >= 5 }, "\(victim.output)\n\(daemon.log)")
        self.victim = victim
        victimSilence = SilenceMeter { victim.locations.count }
    }

    func stop() async {
        await victim.stop()
        await daemon.stop()
    }
}

/// The longest time a count stood still, sampled every 20 ms until stopped.
final class SilenceMeter: Sendable {
    private final class Shared: Sendable {
        let longest = Mutex<Double>(0)
        let running = Atomic<Bool>(true)
    }

    private let shared = Shared()
    private let task: Task<Void, Never>

    init(_ count: @escaping @Sendable () -> Int) {
        let shared = shared
        task = Task.detached {
            var last = count()
            var since = ContinuousClock.now
            while shared.running.load(ordering: .relaxed) {
                try? await Task.sleep(for: .milliseconds(20))
                let now = count()
                if now != last {
                    last = now
                    since = .now
                } else {
                    let still = since.duration(to: .now)
                    let seconds =
                        Double(still.components.seconds) + Double(still.components.attoseconds) * 1e-18
                    shared.longest.withLock { $0 = max($0, seconds) }
                }
            }
        }
    }

    /// Stops sampling; the longest silence seen, in seconds.
    func stop() async -> Double {
        shared.running.store(false, ordering: .relaxed)
        await task.value
        return shared.longest.withLock { $0 }
    }
}

/// The attacker: a Python program run as its own uid, speaking to the socket directly.
enum Attacker {
    /// Runs attack `mode` as `account`; in network namespace `namespace` when one is named, its
    /// connections made from each of `sources` in turn when any are.
    static func run(
        _ mode: String, count: Int, seconds: Double, socket: String, as account: Account,
        namespace: String? = nil, sources: [String] = []
    ) throws -> RunningProcess {
        let command =
            account.setpriv() + ["/usr/bin/python3", "-c", script, mode, "\(count)", "\(seconds)", socket]
        let environment = sources.isEmpty ? [:] : ["OCL_SOURCES": sources.joined(separator: ",")]
        guard let namespace else {
            return try RunningProcess(command, executable: setprivPath, environment: environment)
        }
        return try RunningProcess(
            ["netns", "exec", namespace, setprivPath.path] + command,
            executable: URL(fileURLWithPath: "/usr/sbin/ip"), environment: environment)
    }

    /// The `key=value` figures of the attacker's last line.
    static func result(_ output: String) -> [String: Int] {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("result ") }) else {
            return [:]
        }
        var figures: [String: Int] = [:]
        for pair in line.dropFirst("result ".count).split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) {
                figures[String(parts[0])] = Int(value.rounded(.up))
            }
        }
        return figures
    }

    static let script = #"""
        import os, socket, sys, time, select, resource
        mode, count, seconds, path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

        def connect():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s

        sources = [a for a in os.environ.get("OCL_SOURCES", "").split(",") if a]
        made = 0

        def connect_tcp():
            global made
            host, port = path.rsplit(":", 1)
            source = (sources[made % len(sources)], 0) if sources else None
            made += 1
            s = socket.create_connection((host.strip("[]"), int(port)), timeout=1, source_address=source)
            s.settimeout(None)
            return s

        # The same attacks on gpsd's TCP port: tcpslowloris, tcpchurn.
        tcp = mode in ("tcpslowloris", "tcpchurn")
        if tcp:
            connect, mode = connect_tcp, mode[3:]

        def closed_or_refused(s, wait):
            poller = select.poll()
            poller.register(s, select.POLLIN | select.POLLHUP)
            if not poller.poll(wait * 1000):
                return False
            try:
                data = s.recv(65536)
            except OSError:
                return True
            return data == b"" or b"error" in data.lower()

        if mode == "flood":
            held, refused, opened = [], 0, 0
            for i in range(count):
                try:
                    s = connect()
                except OSError:
                    refused += 1
                    continue
                opened += 1
                held.append(s)
            time.sleep(1)
            for s in held:
                if closed_or_refused(s, 0):
                    refused += 1
            print("holding", flush=True)
            time.sleep(seconds)
            print(f"result opened={opened} refused={refused}", flush=True)
        elif mode == "tcpflood":
            held, refused, opened = [], 0, 0
            for i in range(count):
                try:
                    s = connect_tcp()
                except OSError:
                    refused += 1
                    continue
                opened += 1
                held.append(s)
            time.sleep(2)
            # Refused: closed, or an ERROR after gpsd's VERSION; a held one is greeted with VERSION.
            for s in held:
                poller = select.poll()
                poller.register(s, select.POLLIN | select.POLLHUP)
                data = b""
                while poller.poll(0):
                    try:
                        chunk = s.recv(65536)
                    except OSError:
                        chunk = b""
                    if not chunk:
                        data += b"<closed>"
                        break
                    data += chunk
                if b"<closed>" in data or b'"class":"ERROR"' in data:
                    refused += 1
            print("holding", flush=True)
            time.sleep(seconds)
            print(f"result opened={opened} refused={refused}", flush=True)
        elif mode == "slowloris":
            conns = [(connect(), time.monotonic()) for _ in range(count)]
            closed, latest, deadline = 0, 0.0, time.monotonic() + seconds
            live = list(conns)
            while live and time.monotonic() < deadline:
                for s, start in list(live):
                    try:
                        s.send(b"{")
                    except OSError:
                        pass
                    if closed_or_refused(s, 0):
                        closed += 1
                        latest = max(latest, time.monotonic() - start)
                        live.remove((s, start))
                time.sleep(0.1)
            print(f"result closed={closed} latest={latest:.2f}", flush=True)
        elif mode == "churn":
            start, done, failed = time.monotonic(), 0, 0
            for i in range(count):
                try:
                    s = connect()
                except OSError:
                    # A full accept queue drops the connection's SYN: the port is slowed, not lost.
                    failed += 1
                    continue
                if i % 2:
                    s.send(b'?WATCH={"enable":true}\n' if tcp else b'{"op":"hello","version":1}\n')
                s.close()
                done += 1
            print(f"result done={done} failed={failed} seconds={time.monotonic() - start:.2f}", flush=True)
        elif mode == "monitors":
            s = connect()
            s.send(b'{"op":"hello","version":1}\n')
            reader = s.makefile("rb")
            reader.readline()
            added = refused = 0
            for i in range(count):
                s.send(('{"op":"monitor.add","id":%d,"monitor":"m%d","identifier":"x","condition":'
                        '{"circle":{"lat":52.37,"lon":4.89,"radius":200}}}\n' % (i, i)).encode())
                while True:
                    line = reader.readline()
                    if not line:
                        break
                    if b'"reply":"ok"' in line:
                        added += 1
                        break
                    if b'"reply":"error"' in line:
                        refused += 1
                        break
            print(f"result added={added} refused={refused}", flush=True)
        elif mode == "stall":
            conns = []
            for _ in range(count):
                s = connect()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.send(b'{"op":"hello","version":1}\n{"op":"session.open","session":1,"authorization":"always"}\n'
                       b'{"op":"updates.subscribe","subscription":1}\n')
                conns.append(s)
            time.sleep(seconds)
            cut = 0
            for s in conns:
                s.setblocking(False)
                try:
                    while True:
                        data = s.recv(1 << 20)
                        if data == b"":
                            cut += 1
                            break
                except BlockingIOError:
                    pass
                except OSError:
                    cut += 1
            print(f"result cut={cut}", flush=True)
        """#
}
