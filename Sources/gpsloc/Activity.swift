// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DescriptorIO
import FoundationEssentials
import GNSS
import LocationEngine
import LocationHosting
import LocationWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `gpsloc activity`: which programs used location, when, how precisely and through which
/// protocol, and which were refused and why, from gpslocd's access history; or, with `--watch`,
/// who uses location now, as it changes.
struct Activity: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show which programs used location, when and how precisely, and who was refused.",
        discussion: """
            gpslocd keeps, for seven days by default, each period in which a program was given \
            location (its verified identity, the protocol, precise or approximate, how many \
            updates) and each refusal with its reason; never a coordinate. You see your own \
            programs; root and the administrators' group see anyone's (--uid, --all). --json \
            writes NDJSON in the shape of Apple's App Privacy Report (type "access", category \
            "location", kind "intervalBegin"/"intervalEnd"), refusals as type "refusal". \
            --watch prints programs as they start and stop using location.
            """)

    @Option(
        help:
            "Only what happened since WHEN: a duration back from now (30m, 24h, 7d) or a date (2026-12-01, 2026-12-01T08:00)."
    )
    var since: String?

    @Option(help: "Only this app, as gpslocd names it (desktop:org.gnome.Maps, /usr/bin/cgps, …).")
    var app: String?

    @Option(
        parsing: .unconditional, help: "Another user's history (an administrator's option; default: yours).")
    var uid: Int?

    @Flag(help: "Every user's (an administrator's option).")
    var all = false

    @Flag(help: "Write NDJSON in the shape of Apple's App Privacy Report instead of a table.")
    var json = false

    @Flag(help: "Print who uses location now, then each start and stop as it happens, until Ctrl-C.")
    var watch = false

    func validate() throws {
        if watch && (since != nil || app != nil || uid != nil) {
            throw ValidationError("--watch shows what happens from now on: drop --since, --app and --uid")
        }
        if all && uid != nil { throw ValidationError("--all and --uid say different things: give one") }
        if let since, Self.start(of: since, now: Date()) == nil {
            throw ValidationError(
                "--since '\(since)' is neither a duration (30m, 24h, 7d) nor a date (2026-12-01 or 2026-12-01T08:00)"
            )
        }
    }

    func run() throws {
        guard let socket = LocationContext.daemonSocket() else {
            printError(
                "gpsloc activity: error: gpslocd is not running (no socket at "
                    + "\(ProcessInfo.processInfo.environment["OPENCORELOCATION_SOCKET"] ?? LocationContext.defaultDaemonSocket)); "
                    + "the access history is the daemon's")
            throw ExitCode(1)
        }
        let connection: DaemonConnection
        do { connection = try DaemonConnection.open(path: socket) } catch {
            printError("gpsloc activity: error: \(error)")
            throw ExitCode(1)
        }
        defer { connection.close() }
        let request: WireRequest =
            watch
            ? .watchActivity(all: all)
            : .showActivity(
                uid: uid, all: all,
                since: since.flatMap { Self.start(of: $0, now: Date()) }?.timeIntervalSince1970,
                app: app)
        guard connection.send(WireRequest.hello(version: WireProtocol.version, receiver: nil).encoded()),
            connection.send(request.encoded(id: 1))
        else {
            printError("gpsloc activity: error: gpslocd at \(socket) closed the connection")
            throw ExitCode(1)
        }
        var output = OutputBuffer(descriptor: 1)
        var entries: [WireAccess] = []
        var reader = EventReader(connection: connection)
        while let event = reader.next(waiting: watch) {
            switch event {
            case .error(let id, let message) where id == 1 || id == nil:
                printError("gpsloc activity: error: gpslocd refused: \(message)")
                throw ExitCode(1)
            case .ok(1, let note):
                if let note { printError("gpsloc activity: warning: \(note)") }
                if watch {
                    printError("gpsloc activity: watching who uses location (Ctrl-C ends it)")
                    output.flush()
                } else {
                    return finish(entries, &output)
                }
            case .access(_, let entry):
                if watch {
                    output.line(terminalSafe(ActivityReport.watchLine(entry, showingUser: all)))
                    output.flush()
                } else {
                    entries.append(entry)
                }
            default:
                continue
            }
        }
        if let failure = reader.failure {
            printError("gpsloc activity: error: \(failure)")
            throw ExitCode(1)
        }
        printError("gpsloc activity: error: gpslocd at \(socket) did not answer")
        throw ExitCode(1)
    }

    private func finish(_ entries: [WireAccess], _ output: inout OutputBuffer) {
        if json {
            for entry in entries { output.line(ActivityReport.privacyReportLine(entry)) }
            return
        }
        guard !entries.isEmpty else {
            let whose =
                all
                ? "no program of any user" : uid.map { "no program of uid \($0)" } ?? "none of your programs"
            let what = app.map { " (\($0))" } ?? ""
            let when =
                since.map { " since \($0)" } ?? " in the access history (the last seven days by default)"
            printError("gpsloc activity: \(whose)\(what) used location or was refused\(when)")
            return
        }
        for line in ActivityReport.table(entries, showingUser: all || uid != nil) {
            output.line(terminalSafe(line))
        }
    }

    /// The moment `text` names: a duration back from `now` (`30m`, `24h`, `7d`, `90s`) or a date
    /// (`2026-12-01`, `2026-12-01T08:00`, in local time).
    static func start(of text: String, now: Date) -> Date? {
        if let unit = text.last, let number = Double(text.dropLast()), number >= 0 {
            let seconds: Double? =
                switch unit {
                case "s": 1
                case "m": 60
                case "h": 3600
                case "d": 86400
                default: nil
                }
            if let seconds { return now.addingTimeInterval(-number * seconds) }
        }
        let parts = text.split(separator: "T", maxSplits: 1)
        let day = parts.first?.split(separator: "-").compactMap { Int($0) } ?? []
        let time = parts.count > 1 ? parts[1].split(separator: ":").compactMap { Int($0) } : [0, 0]
        guard day.count == 3, (1...12).contains(day[1]), (1...31).contains(day[2]),
            (1...3).contains(time.count),
            (0...23).contains(time[0])
        else { return nil }
        var fields = tm()
        fields.tm_year = Int32(day[0] - 1900)
        fields.tm_mon = Int32(day[1] - 1)
        fields.tm_mday = Int32(day[2])
        fields.tm_hour = Int32(time[0])
        fields.tm_min = Int32(time.count > 1 ? time[1] : 0)
        fields.tm_sec = Int32(time.count > 2 ? time[2] : 0)
        fields.tm_isdst = -1
        let seconds = mktime(&fields)
        return seconds == -1 ? nil : Date(timeIntervalSince1970: Double(seconds))
    }
}

/// The daemon's events on a connection, read in large pieces (a history is thousands of lines).
private struct EventReader {
    let connection: DaemonConnection
    var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
    var pending: [[UInt8]] = []
    var taken = 0
    var failure: String?

    init(connection: DaemonConnection) { self.connection = connection }

    /// The next event; `nil` when the connection ends (or, when not `waiting`, nothing came for
    /// ten seconds).
    mutating func next(waiting: Bool) -> WireEvent? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var quiet = 0
        while true {
            while taken < pending.count {
                taken += 1
                if let event = try? WireEvent.parse(pending[taken - 1]) { return event }
            }
            pending.removeAll(keepingCapacity: true)
            taken = 0
            var entry = pollfd(fd: connection.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 1000)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                quiet += 1
                if !waiting && quiet >= 10 { return nil }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { (try? connection.descriptor.read(into: $0)) ?? 0 }
            guard count > 0 else { return nil }
            do { pending += try splitter.append(buffer[..<count]) } catch {
                failure = "gpslocd sent a line longer than \(splitter.maximumLength) bytes"
                return nil
            }
        }
    }
}
