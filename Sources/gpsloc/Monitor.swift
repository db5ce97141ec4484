// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import GNSS
@_spi(FrontEnd) import LocationEngine
import LocationHosting

struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Watch circles with CLMonitor and print their events.",
        discussion: """
            Opens the CLMonitor named by --name as the app named by --app, adds every --circle, \
            and prints each event: satisfied (inside), unsatisfied (outside), unknown, or \
            unmonitored, with every diagnostic flag. Conditions and the last event printed are \
            stored with the app's decisions, so a later run with no --circle goes on watching \
            them; --reset forgets them first. Without --source, gpslocd keeps the monitor and \
            evaluates it while gpsloc does not run: a later run prints what happened meanwhile. \
            Ends when a replayed log ends.
            """
    )

    /// A circle given as `LAT,LON,RADIUS[,ID]`.
    struct Circle {
        var condition: GeographicCircle
        var identifier: String?

        static let usage =
            "give LAT,LON,RADIUS[,ID]: degrees (latitude -90 to 90, longitude -180 to 180), a radius in "
            + "metres above 0 and an optional name, e.g. --circle 52.3731,4.8922,200,office"

        static func parse(_ argument: String) throws -> Circle {
            let parts = argument.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3,
                let latitude = Double(parts[0].trimmingWhitespace()),
                let longitude = Double(parts[1].trimmingWhitespace()),
                let radius = Double(parts[2].trimmingWhitespace())
            else { throw ValidationError(usage) }
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw ValidationError("the centre is off the globe; " + usage)
            }
            guard radius.isFinite, radius > 0 else {
                throw ValidationError("the radius must be above 0; " + usage)
            }
            var identifier: String?
            if parts.count == 4 {
                identifier = String(parts[3])
                guard !identifier!.isEmpty else { throw ValidationError("the name is empty; " + usage) }
            }
            return Circle(
                condition: GeographicCircle(
                    center: Coordinate(latitude: latitude, longitude: longitude), radius: radius),
                identifier: identifier)
        }
    }

    @OptionGroup var options: AppOptions

    @Option(help: "The monitor's name; its conditions are stored under it.")
    var name = "gpsloc"

    @Option(
        name: .customLong("circle"), parsing: .singleValue,
        help: "A circle to watch, LAT,LON,RADIUS[,ID] (metres; ID defaults to circleN). Repeatable.",
        transform: Circle.parse)
    var circles: [Circle] = []

    @Flag(help: "Forget the conditions stored under --name before adding the circles.")
    var reset = false

    @Option(help: "text or jsonl (one JSON object per event).")
    var format: LineFormat = .text

    func run() async throws {
        let context = try options.makeContext(command: "monitor")
        // The monitor `CLMonitor(name)` opens: the daemon's in client mode, else this process's.
        let monitor = await context.monitor(named: name)
        if reset {
            for identifier in monitor.identifiers { monitor.remove(identifier) }
        }
        for (index, circle) in circles.enumerated() {
            monitor.add(
                .circle(circle.condition), identifier: circle.identifier ?? "circle\(index + 1)",
                assuming: .unknown)
        }
        let identifiers = monitor.identifiers
        guard !identifiers.isEmpty else {
            printError(
                "gpsloc monitor: error: monitor \"\(name)\" of \(options.appName(context)) has no conditions; "
                    + "add one with --circle LAT,LON,RADIUS[,ID]")
            throw ExitCode(1)
        }
        var output = OutputBuffer()
        let events = MailboxLease(monitor.subscribe())
        while let event = await events.next() {
            monitor.consumed(event)
            output.line(format == .text ? Self.text(event) : Self.json(event))
            output.flush()
        }
        try AppOptions.checkSource(of: context)
    }

    /// The flags of an event under the names `CLMonitor.Event` gives them.
    static func flags(_ event: MonitorEvent) -> [(StaticString, Bool)] {
        let authorization = event.flags.authorization
        return [
            ("authorizationDenied", authorization.authorizationDenied),
            ("authorizationDeniedGlobally", authorization.authorizationDeniedGlobally),
            ("authorizationRestricted", authorization.authorizationRestricted),
            ("authorizationRequestInProgress", authorization.authorizationRequestInProgress),
            ("insufficientlyInUse", authorization.insufficientlyInUse),
            ("serviceSessionRequired", authorization.serviceSessionRequired),
            ("accuracyLimited", authorization.accuracyLimited),
            ("conditionUnsupported", event.flags.conditionUnsupported),
            ("conditionLimitExceeded", event.flags.conditionLimitExceeded),
            ("persistenceUnavailable", event.flags.persistenceUnavailable),
        ]
    }

    static func text(_ event: MonitorEvent) -> String {
        var line = "\(AppOptions.timestamp(event.date))  \(event.identifier)  \(event.state)"
        let set = flags(event).filter(\.1).map { "\($0.0)" }
        if !set.isEmpty { line += "  [" + set.joined(separator: " ") + "]" }
        return line
    }

    static func json(_ event: MonitorEvent) -> String {
        JSONObjectWriter.object { json in
            json.add("time", time: AppOptions.utcTimestamp(event.date))
            json.add("identifier", string: event.identifier)
            json.add("state", string: "\(event.state)")
            for (name, value) in flags(event) { json.add(name, bool: value) }
        }
    }

}
