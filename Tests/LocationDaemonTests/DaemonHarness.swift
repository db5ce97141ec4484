// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import LocationWire
import Locking
import TestSupport
import Testing

/// A local user of the machine, made for the daemon's tests (they run as root, as CI does).
struct Account: Sendable {
    var name: String
    var uid: UInt32
    var gid: UInt32

    /// The user `name`, made with `useradd` the first time (a system user, no home, no shell).
    static func ensure(_ name: String, groups: [String] = []) async throws -> Account {
        for group in groups where UserDatabase.groupID(named: group) == nil {
            _ = try await Runner.run(
                ["--system", group], executable: URL(fileURLWithPath: "/usr/sbin/groupadd"))
        }
        if UserDatabase.user(named: name) == nil {
            let result = try await Runner.run(
                ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name],
                executable: URL(fileURLWithPath: "/usr/sbin/useradd"))
            // Suites run in parallel: another test may have made the same user meanwhile
            // (useradd then says it exists), which is as good.
            if result.status != 0, UserDatabase.user(named: name) == nil {
                Issue.record("useradd \(name): \(result.standardError)")
            }
        }
        if !groups.isEmpty {
            _ = try await Runner.run(
                ["-a", "-G", groups.joined(separator: ","), name],
                executable: URL(fileURLWithPath: "/usr/sbin/usermod"))
        }
        // Suites run in parallel, and getpwnam's answer is one buffer for every thread: read
        // while another suite looks up another user, it can be that user's.
        let entry = try #require(UserDatabase.user(named: name))
        return Account(name: name, uid: entry.uid, gid: entry.gid)
    }

    /// `setpriv` arguments that run a program as this user, with no supplementary group but `groups`.
    func setpriv(groups: [String] = [], capabilities: [String] = []) -> [String] {
        var arguments = ["--reuid=\(uid)", "--regid=\(gid)"]
        if groups.isEmpty {
            arguments.append("--clear-groups")
        } else {
            arguments.append(
                "--groups="
                    + groups.map { String(UserDatabase.groupID(named: $0) ?? UInt32.max) }.joined(
                        separator: ","))
        }
        if !capabilities.isEmpty {
            let list = capabilities.map { "+" + $0 }.joined(separator: ",")
            arguments += ["--inh-caps=\(list)", "--ambient-caps=\(list)"]
        }
        return arguments
    }
}

let setprivPath = URL(fileURLWithPath: "/usr/bin/setpriv")
let socatPath = URL(fileURLWithPath: "/usr/bin/socat")

/// The gpslocd binary built next to the tests.
var gpslocdBinary: URL { Runner.gpsloc.deletingLastPathComponent().appendingPathComponent("gpslocd") }

/// A gpslocd of the test's own: its state, registrations and socket in a directory of its own.
final class DaemonHarness: Sendable {
    let root: String
    let sources: [String]
    let extra: [String]
    /// The capabilities `dist/systemd/gpslocd.service` gives the daemon (its
    /// `AmbientCapabilities=`), read from the unit itself, as `setpriv` names them.
    static let unitCapabilities: [String] = {
        let unit = Fixtures.packageRoot.appendingPathComponent("dist/systemd/gpslocd.service")
        guard let text = try? String(contentsOf: unit, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("AmbientCapabilities=") })
        else { preconditionFailure("no AmbientCapabilities= in \(unit.path)") }
        return line.dropFirst("AmbientCapabilities=".count).split(separator: " ").map {
            $0.lowercased().replacingOccurrences(of: "cap_", with: "")
        }
    }()

    /// Runs the daemon as this user (in `groups`, with `capabilities`: by default those its unit
    /// gives it).
    let account: Account?
    let groups: [String]
    let capabilities: [String]
    /// Runs the daemon with at most this many open files (`prlimit --nofile`), when set.
    let descriptorLimit: Int?
    /// Added to the daemon's environment.
    let environment: [String: String]
    private let running = Mutex<RunningProcess?>(nil)

    var socket: String { root + "/run/gpslocd.sock" }
    var state: String { root + "/state" }
    var apps: String { root + "/apps.d" }
    /// The application directory the daemon reads desktop entries from (none of the machine's,
    /// unless a test names them with `--applications-dir`).
    var applications: String { root + "/applications" }

    init(
        sources: [String], extra: [String] = [], account: Account? = nil, groups: [String] = [],
        capabilities: [String] = DaemonHarness.unitCapabilities, descriptorLimit: Int? = nil,
        environment: [String: String] = [:]
    ) throws {
        self.descriptorLimit = descriptorLimit
        self.environment = environment
        root = NSTemporaryDirectory() + "gpslocd-test-\(UUID().uuidString.prefix(8))"
        self.sources = sources
        self.extra = extra
        self.account = account
        self.groups = groups
        self.capabilities = capabilities
        try FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: applications, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: root + "/gpslocd.conf"))
        if let account { chown(root, account.uid, account.gid) }
    }

    /// The daemon's arguments: an empty configuration file of its own, so that one installed on
    /// the machine does not change the test.
    var arguments: [String] {
        ["--config", root + "/gpslocd.conf", "--socket", socket, "--state-dir", state, "--apps-dir", apps]
            + (extra.contains("--applications-dir") ? [] : ["--applications-dir", applications])
            // The indicator on a private bus only: never on the machine's own.
            + (environment["DBUS_SYSTEM_BUS_ADDRESS"] == nil ? ["--no-indicator"] : [])
            + sources.flatMap { ["--source", $0] } + extra
    }

    /// Registers an app: `keys` are its Info.plist keys.
    func register(_ name: String, _ keys: [String: Any]) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: keys, format: .xml, options: 0)
        try data.write(to: URL(fileURLWithPath: "\(apps)/\(name).plist"))
    }

    /// Writes a desktop entry, `name`.desktop, into the daemon's application directory (or `directory`).
    @discardableResult
    func installDesktopEntry(_ name: String, _ text: String, in directory: String? = nil) throws -> String {
        let path = "\(directory ?? applications)/\(name).desktop"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts the daemon and waits until every socket it serves is bound.
    @discardableResult
    func start() async throws -> RunningProcess {
        let process: RunningProcess
        if let descriptorLimit {
            process = try RunningProcess(
                ["--nofile=\(descriptorLimit):\(descriptorLimit)", gpslocdBinary.path] + arguments,
                executable: URL(fileURLWithPath: "/usr/bin/prlimit"), environment: environment)
        } else if let account {
            process = try RunningProcess(
                account.setpriv(groups: groups, capabilities: capabilities) + [
                    gpslocdBinary.path
                ]
                    + arguments,
                executable: setprivPath, environment: environment)
        } else {
            process = try RunningProcess(arguments, executable: gpslocdBinary, environment: environment)
        }
        running.withLock { $0 = process }
        let listening = await waitUntil(within: 20) {
            process.errors.contains("ready: serving") || !process.isRunning
        }
        #expect(listening && process.isRunning, "gpslocd did not start: \(process.errors)")
        return process
    }

    var process: RunningProcess? { running.withLock { $0 } }
    var log: String { process?.errors ?? "" }

    /// Whether the log says `text` within `seconds`: a line written as a client is answered may
    /// reach the test just after the answer does.
    func logs(_ text: String, within seconds: Double = 10) async -> Bool {
        await waitUntil(within: seconds) { log.contains(text) }
    }

    func kill9() async {
        guard let process else { return }
        process.signal(SIGKILL)
        _ = await process.wait(within: 10)
    }

    func stop() async {
        await process?.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Stops the daemon and keeps its state, to start it again.
    func stopKeepingState() async {
        await process?.stop()
    }

    /// Stops the daemon (SIGTERM) and starts it again; the seconds from the start to its socket
    /// answering a hello.
    func restart() async throws -> Double {
        await stopKeepingState()
        let started = ContinuousClock.now
        try await start()
        let client = try client(as: nil)
        await client.hello()
        let elapsed = started.duration(to: .now)
        await client.stop()
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// Root, as an administrator, grants `app` of user `uid` Always, and waits for the daemon to say so.
    func grantAlways(uid: UInt32, app: String) async throws {
        try await grant(uid: uid, app: app, level: "always")
    }

    /// Root, as an administrator, grants `app` of user `uid` `level` (`always`, `whenInUse`),
    /// approximate when asked, and waits for the daemon to say so.
    func grant(uid: UInt32, app: String, level: String, approximate: Bool = false) async throws {
        let admin = try client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":1,"uid":\#(uid),"app":"\#(app)","level":"\#(level)","approximate":\#(approximate)}"#
        )
        #expect(
            await admin.wait { $0.contains(.ok(id: 1)) },
            "the grant: \(admin.output)\(admin.process.errors)\ngpslocd's log:\n\(log)")
        await admin.stop()
    }

    /// A client speaking the wire through socat, as `account` (root when `nil`).
    func client(as account: Account?) throws -> WireClient {
        try WireClient(socket: socket, account: account)
    }
}

/// A client of the daemon that writes requests and reads lines through `socat`, as a real
/// process under a real uid: what the daemon sees is what the kernel says of that process.
final class WireClient: Sendable {
    let process: RunningProcess

    /// A client that is `process`, which speaks to the daemon on its standard input and output.
    init(process: RunningProcess) {
        self.process = process
    }

    init(socket: String, account: Account?, standardInput: FileHandle? = nil) throws {
        if let account {
            process = try RunningProcess(
                account.setpriv() + [socatPath.path, "-", "UNIX-CONNECT:\(socket)"], executable: setprivPath,
                input: true)
        } else {
            process = try RunningProcess(["-", "UNIX-CONNECT:\(socket)"], executable: socatPath, input: true)
        }
    }

    func send(_ line: String) { process.write(line + "\n") }

    /// Every line the daemon sent so far, parsed.
    var events: [WireEvent] {
        process.output.split(separator: "\n").compactMap { try? WireEvent.parse(Array($0.utf8)) }
    }

    var output: String { process.output }

    var locations: [WireLocation] {
        events.compactMap { if case .update(_, let update) = $0 { update.location } else { nil } }
    }

    var identity: WireIdentity? {
        events.lazy.compactMap { if case .hello(_, let identity, _) = $0 { identity } else { nil } }.first
    }

    /// Waits until the events so far satisfy `condition`.
    @discardableResult
    func wait(within seconds: Double = 20, _ condition: ([WireEvent]) -> Bool) async -> Bool {
        await waitUntil(within: seconds, every: .milliseconds(20)) { condition(events) }
    }

    func hello() async {
        send(#"{"op":"hello","version":1}"#)
        await wait { $0.contains { if case .hello = $0 { true } else { false } } }
    }

    /// Ends the client: its input closes (socat then ends by itself), and it is killed if not.
    /// SIGTERM is not enough, as the test runner's children inherit it blocked.
    func stop() async {
        process.closeInput()
        if await process.wait(within: 2) == nil { _ = await process.wait(within: 2) }
    }
}

/// A receiver on a pseudo-terminal sending the drive's epochs (RMC and GGA) at 10 Hz until stopped.
final class TenHertzReceiver: Sendable {
    let terminal: PseudoTerminal
    let fixes: [(latitude: Double, longitude: Double)]
    private let stopped = Atomic<Bool>(false)
    private let sent = Atomic<Int>(0)
    /// While set, the receiver keeps its 10 Hz schedule but writes nothing, as one without a sky.
    private let silent: Atomic<Bool>

    init(epochs: Int = 3000, silent: Bool = false) throws {
        self.silent = Atomic(silent)
        terminal = try PseudoTerminal()
        let sample = try driveSample(epochs: epochs)
        fixes = sample.fixes.compactMap { fix in
            fix.latitude.flatMap { lat in fix.longitude.map { (lat, $0) } }
        }
        let lines = String(decoding: sample.bytes, as: UTF8.self).split(separator: "\r\n")
        var epochs: [[UInt8]] = []
        var current = ""
        for line in lines {
            if line.dropFirst(3).hasPrefix("RMC"), !current.isEmpty {
                epochs.append(Array(current.utf8))
                current = ""
            }
            current += line + "\r\n"
        }
        epochs.append(Array(current.utf8))
        let all = epochs
        Thread { [self] in
            let start = ContinuousClock.now
            var index = 0
            var written = 0
            while !stopped.load(ordering: .relaxed) {
                if !self.silent.load(ordering: .relaxed) {
                    terminal.write(all[written % all.count])
                    written += 1
                    sent.store(written, ordering: .relaxed)
                }
                index += 1
                let due = start.advanced(by: .milliseconds(100 * index))
                let wait = due - ContinuousClock.now
                if wait > .zero { usleep(UInt32(wait.components.attoseconds / 1_000_000_000_000)) }
            }
        }.start()
    }

    var source: String { "serial:\(terminal.slavePath)?baud=115200" }

    /// Stops (`true`) or resumes sending epochs.
    func silence(_ silent: Bool) { self.silent.store(silent, ordering: .relaxed) }
    var epochsSent: Int { sent.load(ordering: .relaxed) }

    /// Whether `location` is one of the precise positions this receiver sent.
    func isPrecise(_ location: WireLocation) -> Bool {
        fixes.contains {
            abs($0.latitude - location.latitude) < 1e-7 && abs($0.longitude - location.longitude) < 1e-7
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        terminal.close()
    }
}
