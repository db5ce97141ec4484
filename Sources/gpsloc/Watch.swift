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

    @OptionGroup var options: AppOptions

    @Option(help: "text or jsonl (one JSON object per update).")
    var format: LineFormat = .text

    @Option(
        help: "The activity updates are for: \(Activity.allCases.map(\.rawValue).joined(separator: ", ")).")
    var activity: Activity = .default

    func run() async throws {
        let context = try options.makeContext(command: "watch")
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

    static func text(_ update: CLLocationUpdate) -> String {
        var parts: [String] = []
        if let location = update.location {
            parts.append(AppOptions.timestamp(location.timestamp))
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
            fields.append("\"time\":\"\(AppOptions.timestamp(location.timestamp))\"")
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
