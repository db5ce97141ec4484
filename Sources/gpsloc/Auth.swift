import ArgumentParser
import OpenCoreLocation

/// Options shared by the `auth` subcommands.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("store"), help: "The authorization store's directory (default: see README).")
    var directory: String?

    var store: AuthorizationStore {
        AuthorizationStore(directory: directory ?? AuthorizationStore.defaultDirectory())
    }

    /// Runs a change on the store, turning store errors into a message and exit status 1.
    func update(_ body: (inout AuthorizationSnapshot) -> Void) throws {
        do { try store.update(body) } catch {
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

struct Auth: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and change the system's location decisions (the authorization store).",
        discussion: """
            Running programs see every change at once. A request left pending by a program \
            without a terminal is answered with grant or deny.
            """,
        subcommands: [Show.self, Grant.self, Deny.self, Reset.self, Services.self, Restrict.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the decisions, for one app or all.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "An app's client identifier; all apps when omitted.")
        var app: String?

        func run() throws {
            let snapshot = try options.load()
            var output = OutputBuffer()
            output.line("store: \(options.store.path)")
            output.line("location services: \(snapshot.servicesEnabled ? "on" : "off")")
            if snapshot.restrictAll {
                output.line("restricted: every app")
            } else if !snapshot.restrictedClients.isEmpty {
                output.line("restricted: " + snapshot.restrictedClients.sorted().joined(separator: ", "))
            }
            let apps = app.map { [$0] } ?? snapshot.clients.keys.sorted()
            for app in apps { output.line("\(app): \(Self.describe(snapshot[app]))") }
        }

        static func describe(_ record: ClientAuthorization) -> String {
            var words: [String] = []
            switch record.decision {
            case .notDetermined: words.append("not determined")
            case .denied: words.append("denied")
            case .whenInUse: words.append(record.once ? "when in use, once" : "when in use")
            case .always: words.append("always")
            }
            if record.decision == .whenInUse || record.decision == .always {
                words.append(record.precise ? "precise" : "approximate")
            }
            if record.alwaysPrompted && record.decision != .always { words.append("Always declined") }
            if let pending = record.pendingRequest { words.append("request pending: \(pending.rawValue)") }
            return words.joined(separator: ", ")
        }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow an app to use location.")
        enum Level: String, ExpressibleByArgument, CaseIterable {
            case whenInUse = "when-in-use"
            case always
        }

        @OptionGroup var options: StoreOptions
        @Argument(help: "The app's client identifier.") var app: String
        @Argument(help: "when-in-use or always.") var level: Level = .whenInUse
        @Flag(help: "Approximate (reduced accuracy) locations only.") var approximate = false
        @Flag(help: "Allow Once: lapses when the app stops being in use.") var once = false

        func validate() throws {
            if once && level == .always {
                throw ValidationError("--once applies to when-in-use only; drop --once or grant when-in-use")
            }
        }

        func run() throws {
            try options.update {
                $0[app].decision = level == .always ? .always : .whenInUse
                $0[app].precise = !approximate
                $0[app].once = once
                $0[app].pendingRequest = nil
                if level == .always { $0[app].alwaysPrompted = true }
            }
        }
    }

    struct Deny: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny an app the use of location.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The app's client identifier.") var app: String

        func run() throws {
            try options.update {
                $0[app].decision = .denied
                $0[app].once = false
                $0[app].pendingRequest = nil
            }
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
            try options.update {
                if all { $0.clients = [:] } else if let app { $0.clients[app] = nil }
            }
        }
    }

    struct Services: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn location services on or off for every app.")
        enum State: String, ExpressibleByArgument, CaseIterable { case on, off }
        @OptionGroup var options: StoreOptions
        @Argument(help: "on or off.") var state: State

        func run() throws {
            try options.update { $0.servicesEnabled = state == .on }
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
            try options.update {
                $0.restrictedClients.removeAll { $0 == app }
                if !lift { $0.restrictedClients.append(app) }
            }
        }
    }
}
