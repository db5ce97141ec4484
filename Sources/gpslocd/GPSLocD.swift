// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import BuildInfo
import FoundationEssentials
import GNSS
import GNSSSources
import LocationDaemon
import Logging
import NIOPosix
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@main
struct GPSLocD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpslocd",
        abstract:
            "The location daemon: owns the receivers and serves each program what its authorization allows.",
        discussion: """
            Clients connect to the Unix socket; the daemon knows each by the kernel's word (uid, pid, \
            cgroup, executable), never by what it says. Options on the command line override the \
            configuration file. SIGTERM shuts it down gracefully. See docs/daemon.md.

            Exit status: 0 stopped by SIGTERM or SIGINT, gracefully; 1 it could not start (a \
            receiver's address, the state directory or the socket: the log says which); 64 a \
            usage error (an option, the configuration file or GPSLOCD_LOG_LEVEL).
            """,
        version: BuildInfo.version)

    @Option(
        name: .customLong("source"),
        help: """
            A receiver, as gpsloc names sources (serial:/dev/ttyUSB0, gpsd://HOST:PORT, \
            tcp://HOST:PORT, udp://:PORT, file:PATH); repeat for several. The first is the clients' \
            default.
            """)
    var sources: [String] = []

    @Option(help: "The configuration file (JSON); read when it exists.")
    var config: String = DaemonSettings.defaultConfigurationPath

    @Option(help: "The socket clients connect to (default \(DaemonSettings.defaults.socket)).")
    var socket: String?

    @Option(
        name: .customLong("state-dir"),
        help: "Where decisions are kept (default \(DaemonSettings.defaults.stateDirectory)).")
    var stateDirectory: String?

    @Option(
        name: .customLong("apps-dir"),
        help: "App registrations, *.plist (default \(DaemonSettings.defaults.appsDirectory)).")
    var appsDirectory: String?

    @Option(
        name: .customLong("applications-dir"),
        help: ArgumentHelp(
            "Where the desktop entries that prove packaged desktop apps are; repeat for several, in the order "
                + "looked in, or give '' for none (default \(DaemonSettings.defaults.applicationDirectories.joined(separator: " and "))).",
            valueName: "DIR"))
    var applicationDirectories: [String] = []

    @Option(
        name: .customLong("admin-group"),
        help:
            "Members of this group may change decisions, as root may (default \(DaemonSettings.defaults.administratorGroup))."
    )
    var administratorGroup: String?

    @Option(
        parsing: .unconditional,
        help: "Seconds a vanished client's sessions are kept for it to take back, 0 to 600 (default 10).")
    var grace: Double?

    @Option(
        name: .customLong("history-days"),
        help: ArgumentHelp(
            "Days the access history keeps who used location when, 0 (none kept) to 366 (default 7).",
            valueName: "DAYS"))
    var historyDays: Double?

    @Flag(
        name: .customLong("no-indicator"),
        help: "Do not serve the activity indicator (org.opencorelocation.Activity) on the system bus.")
    var noIndicator = false

    @Option(
        name: .customLong("client-buffer"), parsing: .unconditional,
        help:
            "Bytes of unsent lines a client may have before it is cut off (a log replayed at maximum speed waits up to 10 s for the client instead), 4096 to 16777216 (default 65536)."
    )
    var clientBuffer: Int?

    @Option(
        name: .customLong("connections-per-user"), parsing: .unconditional,
        help:
            "Connections one user may hold at once, 1 to 65536 (default 128; fewer where the daemon's descriptors are few)."
    )
    var connectionsPerUser: Int?

    @Option(
        name: .customLong("hello-timeout"), parsing: .unconditional,
        help: "Seconds a new connection may stay silent before its first request, 0.5 to 600 (default 10).")
    var helloTimeout: Double?

    @Option(
        name: .customLong("gpsd-listen"),
        help:
            "Also serve gpsd's protocol on TCP at HOST:PORT (a port alone: on the loopback), such as 127.0.0.1:2947."
    )
    var gpsdListen: String?

    @Option(
        name: .customLong("chrony-sockets"),
        help: ArgumentHelp(
            "Feed the receiver's time to chronyd's SOCK refclock at DIR/chrony.<device>.sock while it listens (default /run; \"\" for none).",
            valueName: "DIR"))
    var chronySockets: String?

    @Flag(
        name: .customLong("geoclue"),
        help:
            "Also serve GeoClue2's API (org.freedesktop.GeoClue2) on the system bus, or on DBUS_SYSTEM_BUS_ADDRESS when set."
    )
    var geoclue = false

    @Option(
        parsing: .unconditional,
        help: """
            The nice value of the event loops, which read the receivers and write every client's \
            update, -20 to 19 (default -10, as gpsd runs; lowering it needs LimitNICE= or \
            CAP_SYS_NICE).
            """)
    var nice: Int?

    func run() async throws {
        let name = ProcessInfo.processInfo.environment["GPSLOCD_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            throw ValidationError(
                "GPSLOCD_LOG_LEVEL '\(name)' is not a level; use one of "
                    + Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
        }
        // Under systemd, lines go to the journal with their priorities and its timestamps.
        let journal = SystemdJournalLogHandler.isJournalStream(ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { label in
            if journal {
                return TerminalSafeLogHandler(SystemdJournalLogHandler(label: label, logLevel: level))
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return TerminalSafeLogHandler(handler)
        }
        let logger = Logger(label: "gpslocd")
        let settings: DaemonSettings
        var warnings: [String] = []
        do {
            settings = try DaemonSettings.load(configuration: config, warnings: &warnings).overridden(
                sources: sources, socket: socket, stateDirectory: stateDirectory,
                appsDirectory: appsDirectory, applicationDirectories: applicationDirectories,
                administratorGroup: administratorGroup, grace: grace, clientBuffer: clientBuffer,
                connectionsPerUser: connectionsPerUser, helloTimeout: helloTimeout, gpsdListen: gpsdListen,
                chronySockets: chronySockets, geoclue: geoclue, nice: nice, historyDays: historyDays,
                noIndicator: noIndicator)
        } catch {
            // A mistake in the file, not in the command: no usage text, the status of a usage error.
            _ = try? FileDescriptor.standardError.writeAll("gpslocd: error: \(error.description)\n".utf8)
            throw ExitCode(64)
        }
        for warning in warnings { logger.warning("\(warning)") }
        logger.debug("settings, the file's with the command line's over them: \(settings.summary)")
        let log: @Sendable (String) -> Void = { logger.notice("\($0)") }
        let service: DaemonService
        do {
            service = try DaemonService(settings: settings, log: log)
        } catch {
            logger.critical("\(error.description)")
            throw ExitCode(error.isUsage ? 64 : 1)
        }
        let signals = await ShutdownSignals.watch()
        do {
            try await service.run(until: signals)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
    }
}
