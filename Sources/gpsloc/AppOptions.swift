// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import FoundationEssentials
import GNSS
import GNSSSources
import LocationEngine
import LocationHosting
import Logging

#if Journal
    import TrackJournal
#endif

/// The command's logging: to standard error, at the level named by `GPSLOC_LOG_LEVEL` (trace,
/// debug, info, notice, warning, error or critical; info when unset).
enum CommandLog {
    private static let bootstrapped: Logger.Level? = {
        let name = ProcessInfo.processInfo.environment["GPSLOC_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: name.lowercased()) else { return nil }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return TerminalSafeLogHandler(handler)
        }
        return level
    }()

    /// Where the library's messages for `command` go (authorization, the receiver, prompts):
    /// swift-log, at `notice`, so that `GPSLOC_LOG_LEVEL` governs them with everything else.
    static func messages(of command: String) -> @Sendable (String) -> Void {
        let logger = Logger(label: "gpsloc.\(command)")
        return { logger.notice("\($0)") }
    }

    /// Sets logging up; later calls do nothing. A `GPSLOC_LOG_LEVEL` that names no level is a
    /// usage error (status 64), not a silent `info`.
    static func bootstrap() throws {
        guard bootstrapped == nil else { return }
        let name = ProcessInfo.processInfo.environment["GPSLOC_LOG_LEVEL"] ?? ""
        printError(
            "gpsloc: error: GPSLOC_LOG_LEVEL '\(name)' is not a level; use one of "
                + Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
        throw ExitCode.validationFailure
    }
}

/// The options that make `gpsloc` act as an app: where fixes come from, which app it is, its
/// manifest, how it is asked for authorization and where the decisions are stored.
struct AppOptions: ParsableArguments {
    @Option(
        help: """
            Where fixes come from: file:PATH[?speed=N|max], - (standard input), \
            serial:/dev/ttyUSB0[?baud=N], gpsd://[host[:port]][/device], tcp://host:port, \
            udp://:port (this machine) or udp://0.0.0.0:port (the network), \
            or (built with the LibGPS trait) gpsd+libgps://[host[:port]][/device] and gpsd+shm:. \
            Without it, from gpslocd (its socket: $OPENCORELOCATION_SOCKET, else \
            /run/opencorelocation/gpslocd.sock), which knows this program by the kernel's word.
            """)
    var source: String?

    @Option(help: "The app's client identifier, e.g. com.example.tracker (with --source only).")
    var app: String?

    @Option(
        help: """
            The app's Info.plist with its NSLocation*UsageDescription keys (with --source; examples/Info.plist is one). \
            Without it the app has no NSLocationWhenInUseUsageDescription, and every request is \
            refused, as Apple refuses such an app.
            """)
    var manifest: String?

    enum Prompt: String, ExpressibleByArgument, CaseIterable {
        case auto, terminal, pending
    }

    @Option(
        help: """
            How an undetermined app is asked: terminal (on /dev/tty), pending (until `gpsloc auth \
            grant|deny` answers), or auto (terminal when there is one).
            """)
    var prompt: Prompt = .auto

    @Option(
        name: .customLong("store"),
        help: "The authorization store's directory (default: see docs/core-location.md).")
    var storeDirectory: String?

    func validate() throws {
        if source == nil {
            if app != nil || manifest != nil || storeDirectory != nil || prompt != .auto {
                throw ValidationError(
                    "--app, --manifest, --store and --prompt apply with --source only: gpslocd knows this "
                        + "program by the kernel's word and keeps the decisions; drop them or pass --source")
            }
        } else if app == nil {
            throw ValidationError(
                "--source needs --app, the app's client identifier (e.g. --app com.example.tracker)")
        }
        if let source {
            do { _ = try SourceAddress(parsing: source) } catch { throw ValidationError("--source \(error)") }
        }
    }

    /// Whether `--source` names a serial receiver, which a `ReceiverHost` may read.
    var readsSerialReceiver: Bool {
        guard let source, case .serial? = try? SourceAddress(parsing: source) else { return false }
        return true
    }

    /// The context of the app these options describe; errors are reported as `command`'s. A
    /// serial receiver is read on `host` when one is given.
    func makeContext(command: String, host: (any ReceiverHost)? = nil) throws -> LocationContext {
        try CommandLog.bootstrap()
        guard let source, let app else { return try daemonContext(command: command) }
        let address: SourceAddress
        do { address = try SourceAddress(parsing: source) } catch {
            throw ValidationError("--source \(error)")
        }
        let fixSource: any FixSource
        do { fixSource = try address.open(host: host, journals: Self.journals) } catch {
            printError("gpsloc \(command): error: \(error)")
            throw ExitCode(1)
        }
        var appManifest = Manifest()
        if let manifest {
            do { appManifest = try Manifest(contentsOf: manifest) } catch {
                printError("gpsloc \(command): error: \(error)")
                throw ExitCode(1)
            }
        } else {
            let hint =
                "no --manifest, so \(app) has no NSLocationWhenInUseUsageDescription and its requests are "
                + "refused unless `gpsloc auth grant \(app)` decided already; pass --manifest with its "
                + "Info.plist (examples/Info.plist is one)"
            Logger(label: "gpsloc.\(command)").warning("\(hint)")
        }
        let store = AuthorizationStore(directory: storeDirectory ?? AuthorizationStore.defaultDirectory())
        let log = CommandLog.messages(of: command)
        let useTerminal: Bool
        switch prompt {
        case .auto: useTerminal = TerminalPrompter.isAvailable
        case .terminal:
            guard TerminalPrompter.isAvailable else {
                throw ValidationError("--prompt terminal needs a terminal; use --prompt pending")
            }
            useTerminal = true
        case .pending: useTerminal = false
        }
        let prompter: any Prompter =
            useTerminal ? TerminalPrompter() : PendingPrompter(store: store, log: log)
        let service = LocationService(source: fixSource, clock: ContinuousClock(), log: log)
        // Failures are logged by the service itself; say when the receiver is reached.
        let events = service.sourceEvents()
        Task {
            for await event in events {
                if case .connected(let what) = event, fixSource.origin == .receiver {
                    log("connected to \(what)")
                }
            }
        }
        return LocationContext(
            .init(
                client: app, manifest: appManifest, store: store, prompter: prompter,
                activity: .terminalForeground(), service: service, log: log))
    }

    /// Ends the command with status 1 when its source failed for good (the service said why).
    static func checkSource(of context: LocationContext) throws {
        if context.configuration.service?.failure != nil { throw ExitCode(1) }
    }

    /// A client of gpslocd, or an error saying how to start it or what to pass instead.
    private func daemonContext(command: String) throws -> LocationContext {
        let log = CommandLog.messages(of: command)
        guard let socket = LocationContext.daemonSocket() else {
            let path =
                ProcessInfo.processInfo.environment["OPENCORELOCATION_SOCKET"]
                ?? LocationContext.defaultDaemonSocket
            printError(
                "gpsloc \(command): error: gpslocd is not running (no socket at \(path)); start it "
                    + "(systemctl start gpslocd.socket) or pass --source and --app to read a receiver directly"
            )
            throw ExitCode(1)
        }
        let activity = AppActivity(inUse: AppActivity.isTerminalForeground)
        let context: LocationContext
        do {
            context = try LocationContext.daemonClient(
                socket: socket, activity: activity, quietly: true, log: log)
        } catch {
            printError("gpsloc \(command): error: cannot use gpslocd at \(socket): \(error)")
            throw ExitCode(1)
        }
        // A socket file nobody listens on (a daemon that was killed left it): said at once, as
        // `auth` says it, rather than waiting in silence for a daemon that may never come.
        if let unreachable = context.daemonUnreachable {
            printError(
                "gpsloc \(command): error: \(unreachable); start it (systemctl start gpslocd.socket) "
                    + "or pass --source and --app to read a receiver directly")
            throw ExitCode(1)
        }
        return context
    }

    /// The app's name in messages: what gpslocd verified, or `--app`.
    func appName(_ context: LocationContext) -> String { app ?? context.configuration.client }

    /// A date as printed by `watch` and `monitor`: ISO 8601 in UTC.
    static func timestamp(_ date: Date) -> String { utcTimestamp(date).iso8601 }

    /// A date as a timestamp; a date beyond what a timestamp holds is clamped to its range.
    static func utcTimestamp(_ date: Date) -> UTCTimestamp {
        let nanoseconds = (date.timeIntervalSince1970 * 1e9).rounded()
        guard nanoseconds.isFinite else { return UTCTimestamp(nanosecondsSinceEpoch: 0) }
        return UTCTimestamp(
            nanosecondsSinceEpoch: nanoseconds >= 0x1p63
                ? .max : nanoseconds < -0x1p63 ? .min : Int64(nanoseconds))
    }
}

/// The output formats of `watch` and `monitor`.
enum LineFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl
}

extension AppOptions {
    /// What opens a track journal named by `--source 'file:JOURNAL?key=FILE'`: none in a gpsloc
    /// built without the Journal trait, whose source then says so.
    static var journals: (any JournalOpening)? {
        #if Journal
            JournalReplay()
        #else
            nil
        #endif
    }
}
