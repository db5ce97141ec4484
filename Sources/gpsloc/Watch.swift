// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DescriptorIO
import GNSS
import GNSSSources
import LocationEngine
import LocationHosting

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print live location updates as an app receives them.",
        discussion: """
            Subscribes to the live updates an app's CLLocationUpdate.liveUpdates() gives and prints \
            every update with all its flags. Without --source it is a client of gpslocd, which knows this program by the \
            kernel's word and decides. With --source it is the app named by --app, with the \
            manifest given by --manifest (without one, every request is refused, as Apple refuses \
            an app without NSLocationWhenInUseUsageDescription) and the decisions in the \
            authorization store; an undetermined app that has the key is asked on the terminal, \
            or, without one, its request waits for `gpsloc auth grant|deny`. Ends when a replayed \
            log ends (status 0); a source that cannot work ends it with status 1; gpslocd ending the \
            updates (a replayed log played to its end, or a source that cannot work) with status 3, saying so.
            """
    )

    enum Activity: String, ExpressibleByArgument, CaseIterable {
        case `default`, automotive, navigation, fitness, airborne, maritime

        var configuration: ActivityProfile {
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

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl, gpsd
    }

    @Option(
        help: """
            text, jsonl (one JSON object per update) or gpsd (gpsd's reports in CRLF lines, as a gpsd \
            client of gpslocd reads them: DEVICE, then TPV, SKY, GST and ATT).
            """)
    var format: Format = .text

    @Option(
        help: "The activity updates are for: \(Activity.allCases.map(\.rawValue).joined(separator: ", ")).")
    var activity: Activity = .default

    enum SessionKind: String, ExpressibleByArgument, CaseIterable {
        case whenInUse = "when-in-use"
        case always

        var level: SessionLevel { self == .always ? .always : .whenInUse }
    }

    @Option(
        help: """
            Hold a CLServiceSession at this level while watching: always for a service that runs \
            without a terminal (it also needs an Always grant), when-in-use otherwise.
            """)
    var session: SessionKind?

    func run() async throws {
        if format == .gpsd, options.source == nil {
            // gpslocd serves gpsd's protocol on its own socket, and decides what this program gets.
            guard let socket = LocationContext.daemonSocket() else {
                throw ValidationError(
                    "--format gpsd reads gpslocd's gpsd protocol, and gpslocd is not running; start it, "
                        + "or pass --source and --app for a receiver of this program's own")
            }
            try await WatchGPSD.relay(socket: socket)
            printError("gpsloc watch: gpslocd closed the connection")
            throw ExitCode(Self.streamEnded)
        }
        // A serial receiver is read, and its updates printed, on one thread: each update in the
        // one wake-up of the thread that read its fix. Other sources read on threads of their own
        // (or gpslocd sends the updates), and the updates are printed where the runtime runs them.
        var thread: ReceiverThread?
        if options.readsSerialReceiver {
            do { thread = try ReceiverThread(named: "gnss-reader") } catch {
                printError("gpsloc watch: error: cannot start the reading thread: \(errorWords(error))")
                throw ExitCode(1)
            }
        }
        let context = try options.makeContext(command: "watch", host: thread)
        if format == .gpsd, let source = options.source {
            do {
                let held = session.map { context.holdSession($0.level) }
                defer { held?.invalidate() }
                try await WatchGPSD.inProcess(
                    context: context, device: source, activity: activity.configuration, thread: thread)
            }
            try AppOptions.checkSource(of: context)
            return
        }
        do {
            let held = session.map { context.holdSession($0.level) }
            defer { held?.invalidate() }
            await withTaskExecutorPreference(thread) {
                var output = OutputBuffer()
                for await update in context.liveUpdates(for: activity.configuration) {
                    output.line(format == .text ? Self.text(update) : Self.json(update))
                    output.flush()
                }
            }
        }
        if context.isDaemonClient {
            // A client of gpslocd expects updates for as long as it runs: an end is news.
            printError(
                "gpsloc watch: gpslocd ended the updates: its receiver's source ended (a replayed log played "
                    + "to its end, and the next client replays it from the start; or a source that cannot work; "
                    + "gpslocd's log says which)")
            throw ExitCode(Self.streamEnded)
        }
        try AppOptions.checkSource(of: context)
    }

    /// The status when gpslocd ends the updates (its source ended for good), so that a script
    /// tells a stream that stopped from an error (1) and from a replay played to its end (0).
    static let streamEnded: Int32 = 3

    /// The flags of an update under the names `CLLocationUpdate` gives them.
    static func flags(_ update: LocationUpdate) -> [(StaticString, Bool)] {
        let flags = update.flags
        return [
            ("stationary", update.isStationary), ("authorizationDenied", flags.authorizationDenied),
            ("authorizationDeniedGlobally", flags.authorizationDeniedGlobally),
            ("authorizationRestricted", flags.authorizationRestricted),
            ("authorizationRequestInProgress", flags.authorizationRequestInProgress),
            ("insufficientlyInUse", flags.insufficientlyInUse),
            ("locationUnavailable", update.locationUnavailable), ("accuracyLimited", flags.accuracyLimited),
            ("serviceSessionRequired", flags.serviceSessionRequired),
        ]
    }

    static func text(_ update: LocationUpdate) -> String {
        var parts: [String] = []
        if let location = update.location {
            parts.append(AppOptions.timestamp(location.timestamp))
            parts.append(
                printf(
                    "%.8f,%.8f ±%.1f m", location.coordinate.latitude, location.coordinate.longitude,
                    location.horizontalAccuracy))
            if location.verticalAccuracy > 0 {
                parts.append(printf("alt %.1f m ±%.1f m", location.altitude, location.verticalAccuracy))
            }
            if location.speed >= 0 { parts.append(printf("%.2f m/s", location.speed)) }
            if location.course >= 0 { parts.append(printf("course %.1f°", location.course)) }
            if location.source?.isSimulatedBySoftware == true { parts.append("simulated") }
        } else {
            parts.append("no location")
        }
        let set = flags(update).filter(\.1).map { "\($0.0)" }
        if !set.isEmpty { parts.append("[" + set.joined(separator: " ") + "]") }
        return parts.joined(separator: "  ")
    }

    static func json(_ update: LocationUpdate) -> String {
        JSONObjectWriter.object { json in
            if let location = update.location {
                json.add("time", time: AppOptions.utcTimestamp(location.timestamp))
                json.add("latitude", location.coordinate.latitude, decimals: 9)
                json.add("longitude", location.coordinate.longitude, decimals: 9)
                json.add("horizontalAccuracy", location.horizontalAccuracy, decimals: 2)
                json.add("altitude", location.altitude, decimals: 3)
                json.add("ellipsoidalAltitude", location.ellipsoidalAltitude, decimals: 3)
                json.add("verticalAccuracy", location.verticalAccuracy, decimals: 2)
                json.add("speed", location.speed, decimals: 3)
                json.add("speedAccuracy", location.speedAccuracy, decimals: 3)
                json.add("course", location.course, decimals: 2)
                json.add("courseAccuracy", location.courseAccuracy, decimals: 2)
                let info = location.source
                json.add("isSimulatedBySoftware", bool: info?.isSimulatedBySoftware ?? false)
                json.add("isProducedByAccessory", bool: info?.isProducedByAccessory ?? false)
            } else {
                json.addNull("location")
            }
            for (name, value) in flags(update) { json.add(name, bool: value) }
        }
    }
}
