import ArgumentParser
import GNSS
import GNSSSources
import OpenCoreLocation

/// The options that make `gpsloc` act as an app: where fixes come from, which app it is, its
/// manifest, how it is asked for authorization and where the decisions are stored.
struct AppOptions: ParsableArguments {
    @Option(help: "Where fixes come from: file:PATH[?speed=N|max] or - (standard input).")
    var source: String

    @Option(help: "The app's client identifier, e.g. com.example.tracker.")
    var app: String

    @Option(help: "The app's Info.plist with its NSLocation… keys.")
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

    @Option(name: .customLong("store"), help: "The authorization store's directory (default: see README).")
    var storeDirectory: String?

    /// The context of the app these options describe; errors are reported as `command`'s.
    func makeContext(command: String) throws -> LocationContext {
        let address: SourceAddress
        do { address = try SourceAddress(parsing: source) } catch {
            throw ValidationError("--source \(error)")
        }
        let fixSource: any FixSource
        do { fixSource = try address.open() } catch {
            printError("gpsloc \(command): error: \(error)")
            throw ExitCode(1)
        }
        var appManifest = Manifest()
        if let manifest {
            do { appManifest = try Manifest(contentsOf: manifest) } catch {
                printError("gpsloc \(command): error: \(error)")
                throw ExitCode(1)
            }
        }
        let store = AuthorizationStore(directory: storeDirectory ?? AuthorizationStore.defaultDirectory())
        let log: @Sendable (String) -> Void = { printError("gpsloc \(command): \($0)") }
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
        return LocationContext(
            .init(
                client: app, manifest: appManifest, store: store, prompter: prompter,
                activity: .terminalForeground(),
                service: LocationService(source: fixSource, clock: ContinuousClock(), log: log), log: log))
    }

    /// A date as printed by `watch` and `monitor`: ISO 8601 in UTC.
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let stamp = UTCTimestamp(nanosecondsSinceEpoch: Int64((seconds * 1e9).rounded()))
        return stamp.iso8601
    }
}

/// The output formats of `watch` and `monitor`.
enum LineFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl
}
