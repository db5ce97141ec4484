import ArgumentParser
import GNSS
import GNSSSources
import OpenCoreLocation

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print live location updates as an app receives them.",
        discussion: """
            Subscribes to CLLocationUpdate.liveUpdates() as the app named by --app, with its \
            manifest (Info.plist) and the decisions in the authorization store, and prints every \
            update with all its flags. An undetermined app is asked on the terminal, or, without \
            one, its request waits for `gpsloc auth grant|deny`. Ends when a replayed log ends.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    enum Activity: String, ExpressibleByArgument, CaseIterable {
        case `default`, automotive, navigation, fitness, airborne, maritime

        var configuration: CLLocationUpdate.LiveConfiguration {
            switch self {
            case .default: .default
            case .automotive: .automotiveNavigation
            case .navigation: .otherNavigation
            case .fitness: .fitness
            case .airborne: .airborne
            case .maritime: .maritime
            }
        }
    }

    @Option(help: "Where fixes come from: file:PATH[?speed=N|max] or - (standard input).")
    var source: String

    @Option(help: "The app's client identifier, e.g. com.example.tracker.")
    var app: String

    @Option(help: "The app's Info.plist with its NSLocation… keys.")
    var manifest: String?

    @Option(help: "text or jsonl (one JSON object per update).")
    var format: Format = .text

    @Option(
        help: "The activity updates are for: \(Activity.allCases.map(\.rawValue).joined(separator: ", ")).")
    var activity: Activity = .default

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

    func run() async throws {
        let address: SourceAddress
        do { address = try SourceAddress(parsing: source) } catch {
            throw ValidationError("--source \(error)")
        }
        let fixSource: any FixSource
        do { fixSource = try address.open() } catch {
            printError("gpsloc watch: error: \(error)")
            throw ExitCode(1)
        }
        var appManifest = Manifest()
        if let manifest {
            do { appManifest = try Manifest(contentsOf: manifest) } catch {
                printError("gpsloc watch: error: \(error)")
                throw ExitCode(1)
            }
        }
        let store = AuthorizationStore(directory: storeDirectory ?? AuthorizationStore.defaultDirectory())
        let log: @Sendable (String) -> Void = { printError("gpsloc watch: \($0)") }
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
        let context = LocationContext(
            .init(
                client: app, manifest: appManifest, store: store, prompter: prompter,
                activity: .terminalForeground(),
                service: LocationService(source: fixSource, clock: ContinuousClock(), log: log)))
        try await LocationContext.withContext(context) {
            var output = OutputBuffer()
            for try await update in CLLocationUpdate.liveUpdates(activity.configuration) {
                output.line(format == .text ? Self.text(update) : Self.json(update))
                output.flush()
            }
        }
    }

    static func flags(_ update: CLLocationUpdate) -> [(String, Bool)] {
        [
            ("stationary", update.stationary), ("authorizationDenied", update.authorizationDenied),
            ("authorizationDeniedGlobally", update.authorizationDeniedGlobally),
            ("authorizationRestricted", update.authorizationRestricted),
            ("authorizationRequestInProgress", update.authorizationRequestInProgress),
            ("insufficientlyInUse", update.insufficientlyInUse),
            ("locationUnavailable", update.locationUnavailable), ("accuracyLimited", update.accuracyLimited),
            ("serviceSessionRequired", update.serviceSessionRequired),
        ]
    }

    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let stamp = UTCTimestamp(nanosecondsSinceEpoch: Int64((seconds * 1e9).rounded()))
        return stamp.iso8601
    }

    static func text(_ update: CLLocationUpdate) -> String {
        var parts: [String] = []
        if let location = update.location {
            parts.append(timestamp(location.timestamp))
            parts.append(
                String(
                    format: "%.8f,%.8f ±%.1f m", location.coordinate.latitude, location.coordinate.longitude,
                    location.horizontalAccuracy))
            if location.verticalAccuracy > 0 {
                parts.append(
                    String(format: "alt %.1f m ±%.1f m", location.altitude, location.verticalAccuracy))
            }
            if location.speed >= 0 { parts.append(String(format: "%.2f m/s", location.speed)) }
            if location.course >= 0 { parts.append(String(format: "course %.1f°", location.course)) }
            if location.sourceInformation?.isSimulatedBySoftware == true { parts.append("simulated") }
        } else {
            parts.append("no location")
        }
        let set = flags(update).filter(\.1).map(\.0)
        if !set.isEmpty { parts.append("[" + set.joined(separator: " ") + "]") }
        return parts.joined(separator: "  ")
    }

    static func json(_ update: CLLocationUpdate) -> String {
        var fields: [String] = []
        if let location = update.location {
            fields.append("\"time\":\"\(timestamp(location.timestamp))\"")
            fields.append(
                String(
                    format: "\"latitude\":%.9f,\"longitude\":%.9f", location.coordinate.latitude,
                    location.coordinate.longitude))
            fields.append(String(format: "\"horizontalAccuracy\":%.2f", location.horizontalAccuracy))
            fields.append(
                String(
                    format: "\"altitude\":%.3f,\"ellipsoidalAltitude\":%.3f", location.altitude,
                    location.ellipsoidalAltitude))
            fields.append(String(format: "\"verticalAccuracy\":%.2f", location.verticalAccuracy))
            fields.append(
                String(
                    format: "\"speed\":%.3f,\"speedAccuracy\":%.3f", location.speed, location.speedAccuracy))
            fields.append(
                String(
                    format: "\"course\":%.2f,\"courseAccuracy\":%.2f", location.course,
                    location.courseAccuracy))
            let info = location.sourceInformation
            fields.append("\"isSimulatedBySoftware\":\(info?.isSimulatedBySoftware ?? false)")
            fields.append("\"isProducedByAccessory\":\(info?.isProducedByAccessory ?? false)")
        } else {
            fields.append("\"location\":null")
        }
        for (name, value) in flags(update) { fields.append("\"\(name)\":\(value)") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
