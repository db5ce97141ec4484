// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import GNSS
import LocationEngine
import LocationHosting
import LocationWire

/// Options shared by the `auth` subcommands: gpslocd's decisions when the daemon runs, else
/// (or with `--store`) an in-process authorization store.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help:
            "An in-process authorization store's directory, instead of gpslocd's decisions (default: see docs/core-location.md)."
    )
    var directory: String?

    // `.unconditional`: a negative value is read as the value it is, and refused with a reason,
    // rather than taken for an option ("Missing value").
    @Option(
        parsing: .unconditional,
        help: "The user whose decisions gpslocd changes (an administrator's option; default: yours).")
    var uid: Int?

    /// The daemon's socket, when the command talks to gpslocd.
    var daemonSocket: String? { directory == nil ? LocationContext.daemonSocket() : nil }

    func validate() throws {
        if uid != nil && daemonSocket == nil {
            throw ValidationError(
                "--uid names a user of gpslocd's decisions, and gpslocd is not running; drop --uid or start the daemon"
            )
        }
    }

    var store: AuthorizationStore {
        AuthorizationStore(directory: directory ?? AuthorizationStore.defaultDirectory())
    }

    /// Asks gpslocd; its refusal or failure is a message and exit status 1.
    func call(_ socket: String, _ request: WireRequest) throws -> WireEvent {
        let reply: WireEvent
        do { reply = try DaemonConnection.call(path: socket, request) } catch {
            printError("gpsloc auth: error: \(error)")
            throw ExitCode(1)
        }
        if case .error(_, let message) = reply {
            printError("gpsloc auth: error: gpslocd refused: \(message)")
            throw ExitCode(1)
        }
        return reply
    }

    /// Makes a change through gpslocd, or on the store.
    func perform(_ change: AuthorizationChange) throws {
        if let socket = daemonSocket {
            if case .ok(_, let note?) = try call(socket, .changeAuthorization(uid: uid, change)) {
                printError("gpsloc auth \(change.command): warning: \(terminalSafe(note))")
            }
            return
        }
        do { try store.update { $0.apply(change) } } catch {
            printError("gpsloc auth: error: \(error)")
            throw ExitCode(1)
        }
    }

    func load() throws -> AuthorizationSnapshot {
        do { return try store.load() } catch {
            printError("gpsloc auth: error: \(error)")
            throw ExitCode(1)
        }
    }
}

extension AuthorizationChange {
    /// The `gpsloc auth` subcommand that makes this change.
    var command: String {
        switch self {
        case .grant: "grant"
        case .deny: "deny"
        case .reset: "reset"
        case .services: "services"
        case .restrict: "restrict"
        }
    }
}

struct Auth: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and change the system's location decisions (the authorization store).",
        discussion: """
            Running programs see every change at once. A request left pending by a program \
            without a terminal is answered with grant or deny. Through gpslocd, a user may deny \
            or reset their own apps (taking back what they answered); grant, --uid for another \
            user, services and restrict are for root and the administrators' group.
            """,
        subcommands: [Show.self, Grant.self, Deny.self, Reset.self, Services.self, Restrict.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the decisions, for one app or all.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "An app's client identifier; all apps when omitted.")
        var app: String?

        func run() throws {
            var output = OutputBuffer()
            let app = app.map { AuthAppName.resolve($0, command: "show") }
            if let socket = options.daemonSocket {
                guard
                    case .decisions(_, let decisions) = try options.call(
                        socket, .showAuthorization(uid: options.uid))
                else { return }
                output.line("store: \(decisions.store) (gpslocd at \(socket), uid \(decisions.uid))")
                output.line("location services: \(decisions.servicesEnabled ? "on" : "off")")
                if decisions.restrictAll {
                    output.line("restricted: every app")
                } else if !decisions.restricted.isEmpty {
                    output.line(
                        "restricted: " + decisions.restricted.map { terminalSafe($0) }.joined(separator: ", ")
                    )
                }
                let apps = app.map { [$0] } ?? decisions.decisions.keys.sorted()
                for app in apps {
                    output.line(
                        "\(terminalSafe(app)): \(decisions.decisions[app] ?? ClientAuthorization().summary)")
                }
                return
            }
            let snapshot = try options.load()
            output.line("store: \(options.store.path)")
            output.line("location services: \(snapshot.servicesEnabled ? "on" : "off")")
            if snapshot.restrictAll {
                output.line("restricted: every app")
            } else if !snapshot.restrictedClients.isEmpty {
                output.line(
                    "restricted: "
                        + snapshot.restrictedClients.sorted().map { terminalSafe($0) }.joined(separator: ", ")
                )
            }
            let apps = app.map { [$0] } ?? snapshot.clients.keys.sorted()
            // An app's identifier is anyone's choice: shown, never obeyed by the terminal.
            for app in apps { output.line("\(terminalSafe(app)): \(snapshot[app].summary)") }
        }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow an app to use location.")
        enum Level: String, ExpressibleByArgument, CaseIterable {
            case whenInUse = "when-in-use"
            case always
        }

        @OptionGroup var options: StoreOptions
        @Argument(
            help: ArgumentHelp(
                "The app's client identifier, or network:ADDRESS[/PREFIX] for gpsd clients of other hosts."))
        var app: String
        @Argument(help: "when-in-use or always (default: when-in-use; always for network: blocks).")
        var level: Level?
        @Flag(help: "Approximate (reduced accuracy) locations only.") var approximate = false
        @Flag(help: "Allow Once: lapses when the app stops being in use.") var once = false

        /// A network client is never in use: its grants are Always.
        var resolvedLevel: Level { level ?? (app.hasPrefix("network:") ? .always : .whenInUse) }

        func validate() throws {
            if once && resolvedLevel == .always {
                throw ValidationError("--once applies to when-in-use only; drop --once or grant when-in-use")
            }
        }

        func run() throws {
            try options.perform(
                .grant(
                    app: AuthAppName.resolve(app, command: "grant"), always: resolvedLevel == .always,
                    approximate: approximate, once: once))
        }
    }

    struct Deny: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny an app the use of location.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The app's client identifier.") var app: String

        func run() throws {
            try options.perform(.deny(app: AuthAppName.resolve(app, command: "deny")))
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget an app's decisions (it will be asked again), or every app's with --all.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The app's client identifier.") var app: String?
        @Flag(help: "Forget every app's decisions.") var all = false

        func validate() throws {
            if (app == nil) == !all {
                throw ValidationError("name one app to reset, or pass --all (not both)")
            }
        }

        func run() throws {
            try options.perform(
                .reset(app: all ? nil : app.map { AuthAppName.resolve($0, command: "reset") }))
        }
    }

    struct Services: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn location services on or off for every app.")
        enum State: String, ExpressibleByArgument, CaseIterable { case on, off }
        @OptionGroup var options: StoreOptions
        @Argument(help: "on or off.") var state: State

        func run() throws {
            try options.perform(.services(enabled: state == .on))
        }
    }

    struct Restrict: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restrict an app (it cannot use location, and cannot be asked), or lift it with --lift."
        )
        @OptionGroup var options: StoreOptions
        @Argument(help: "The app's client identifier.") var app: String
        @Flag(help: "Lift the restriction.") var lift = false

        func run() throws {
            try options.perform(.restrict(app: AuthAppName.resolve(app, command: "restrict"), lift: lift))
        }
    }
}
