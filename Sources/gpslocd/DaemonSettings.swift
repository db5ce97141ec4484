// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSSSources

/// Everything the daemon is told: from its configuration file (one JSON object, read with
/// `JSONValue`, which names a mistake's line and column), then the command line over it.
struct DaemonSettings: Sendable {
    static let defaultConfigurationPath = "/etc/opencorelocation/gpslocd.conf"
    static let defaults = DaemonSettings()

    struct SettingsError: Error, CustomStringConvertible {
        var description: String
        /// A mistake of the command or the configuration (a source address that means nothing),
        /// not of the machine: status 64, as gpsloc gives the same mistake.
        var isUsage = false
    }

    var sources: [String] = []
    var socket = "/run/opencorelocation/gpslocd.sock"
    var stateDirectory = "/var/lib/opencorelocation"
    var appsDirectory = "/etc/opencorelocation/apps.d"
    /// Where the desktop entries that prove packaged desktop apps are, as `XDG_DATA_DIRS` names
    /// them by default for a system's own applications (a user's own are never read).
    var applicationDirectories = ["/usr/local/share/applications", "/usr/share/applications"]
    var administratorGroup = "opencorelocation-admin"
    var grace: Double = 10
    var clientBuffer = 65536
    var connectionsPerUser = 128
    var helloTimeout: Double = 10
    /// Where gpsd's protocol is served on TCP (`HOST:PORT`, or a port on the loopback); nowhere
    /// when empty.
    var gpsdListen = ""
    /// Where chronyd's SOCK refclocks are looked for (`chrony.<device>.sock`); nowhere when empty.
    var chronySockets = "/run"
    /// Whether GeoClue2's API is served on the system bus.
    var geoclue = false
    /// The event loops' nice value: they read the receivers and write every client's update, and
    /// run ahead of the clients they wake and of the rest of the machine, as gpsd does (-10).
    var nice = -10
    /// Whether the activity indicator is served on the system bus.
    var indicator = true
    /// How many days the access history keeps an entry; none is kept at 0.
    var historyDays: Double = 7

    init() {}

    /// The configuration file's keys.
    enum Key: String, CaseIterable {
        case sources, socket, stateDirectory, appsDirectory, applicationDirectories, administratorGroup, grace
        case clientBuffer, connectionsPerUser, helloTimeout, gpsdListen, chronySockets, geoclue, nice
        case historyDays, indicator
    }

    /// The file's settings, or the defaults when it does not exist; `warnings` gets what the file
    /// holds that the daemon does not know (a misspelt key is otherwise silently ignored).
    static func load(configuration path: String, warnings: inout [String]) throws(SettingsError)
        -> DaemonSettings
    {
        guard FileManager.default.fileExists(atPath: path) else {
            if path != defaultConfigurationPath {
                throw SettingsError(
                    description: "--config \(path) does not exist; create it or drop --config")
            }
            return DaemonSettings()
        }
        // Read as a stream, so that /dev/null (whose size says nothing) reads as empty.
        let data: [UInt8]
        do { data = try fileContents(atPath: path) } catch {
            throw SettingsError(description: "\(path) cannot be read (\(error)); check its permissions")
        }
        // An empty file says nothing: the defaults.
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return DaemonSettings() }
        let object: JSONValue
        do { object = try JSONValue.parsing(data) } catch {
            throw SettingsError(
                description:
                    "\(path) is not JSON: \(error); the configuration is one JSON "
                    + #"object such as {"sources": ["serial:/dev/ttyUSB0"]} (see docs/daemon.md)"#)
        }
        guard case .object(let keys) = object else {
            throw SettingsError(
                description: "\(path) holds JSON but not an object; the configuration is one JSON object "
                    + #"such as {"sources": ["serial:/dev/ttyUSB0"]} (see docs/daemon.md)"#)
        }
        let known = Set(Key.allCases.map(\.rawValue))
        for key in keys.keys.sorted() where !known.contains(key) {
            let nearest = known.min { distance(key, $0) < distance(key, $1) }!
            warnings.append(
                "\(path): unknown key '\(key)' is ignored"
                    + (distance(key, nearest) <= max(2, key.count / 3) ? "; did you mean '\(nearest)'?" : "")
                    + " (known: \(known.sorted().joined(separator: ", ")))")
        }
        // Each known key's value, of the kind it takes: a wrong one is named with what it takes.
        var settings = DaemonSettings()
        for (name, value) in keys {
            guard let key = Key(rawValue: name) else { continue }
            // A list all of whose members are strings, and a whole number, where the value is one.
            let strings = value.array.flatMap { list in
                list.allSatisfy { $0.string != nil } ? list.compactMap(\.string) : nil
            }
            switch (key, value, value.int, strings) {
            case (.sources, _, _, let list?): settings.sources = list
            case (.socket, .string(let text), _, _): settings.socket = text
            case (.stateDirectory, .string(let text), _, _): settings.stateDirectory = text
            case (.appsDirectory, .string(let text), _, _): settings.appsDirectory = text
            case (.applicationDirectories, _, _, let list?): settings.applicationDirectories = list
            case (.administratorGroup, .string(let text), _, _): settings.administratorGroup = text
            case (.grace, .number(let number), _, _): settings.grace = number
            case (.clientBuffer, _, let whole?, _): settings.clientBuffer = whole
            case (.connectionsPerUser, _, let whole?, _): settings.connectionsPerUser = whole
            case (.helloTimeout, .number(let number), _, _): settings.helloTimeout = number
            case (.gpsdListen, .string(let text), _, _): settings.gpsdListen = text
            case (.chronySockets, .string(let text), _, _): settings.chronySockets = text
            case (.geoclue, .bool(let flag), _, _): settings.geoclue = flag
            case (.nice, _, let whole?, _): settings.nice = whole
            case (.historyDays, .number(let number), _, _): settings.historyDays = number
            case (.indicator, .bool(let flag), _, _): settings.indicator = flag
            default:
                throw SettingsError(description: "\(path): '\(name)' must be \(Self.expected(key))")
            }
        }
        return settings
    }

    /// What a key takes, in the words of the configuration's documentation.
    private static func expected(_ key: Key) -> String {
        switch key {
        case .sources: #"a list of strings, such as ["serial:/dev/ttyUSB0"]"#
        case .socket, .stateDirectory, .appsDirectory: "a string: a path"
        case .applicationDirectories:
            #"a list of absolute paths, such as ["/usr/share/applications"], or [] for none"#
        case .administratorGroup: "a string: a group's name"
        case .grace: "a number: seconds, 0 to 600"
        case .clientBuffer: "a whole number: bytes, 4096 to 16777216"
        case .connectionsPerUser: "a whole number: connections, 1 to 65536"
        case .helloTimeout: "a number: seconds, 0.5 to 600"
        case .gpsdListen: #"a string: "HOST:PORT" or a port, such as "127.0.0.1:2947""#
        case .chronySockets: #"a string: a directory, such as "/run", or "" for none"#
        case .geoclue: "true or false"
        case .nice: "a whole number: a nice value, -20 to 19"
        case .historyDays: "a number: days, 0 (no history) to 366"
        case .indicator: "true or false"
        }
    }

    /// The edit distance between two keys, for "did you mean".
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }

    /// The command line's values over these, each checked.
    func overridden(
        sources: [String], socket: String?, stateDirectory: String?, appsDirectory: String?,
        applicationDirectories: [String] = [], administratorGroup: String?, grace: Double?,
        clientBuffer: Int?, connectionsPerUser: Int? = nil,
        helloTimeout: Double? = nil, gpsdListen: String? = nil, chronySockets: String? = nil,
        geoclue: Bool = false, nice: Int? = nil, historyDays: Double? = nil, noIndicator: Bool = false
    ) throws(SettingsError) -> DaemonSettings {
        var settings = self
        if !sources.isEmpty { settings.sources = sources }
        if let socket { settings.socket = socket }
        if let stateDirectory { settings.stateDirectory = stateDirectory }
        if let appsDirectory { settings.appsDirectory = appsDirectory }
        // `--applications-dir ''` alone: none.
        if !applicationDirectories.isEmpty {
            settings.applicationDirectories = applicationDirectories.filter { !$0.isEmpty }
        }
        if let relative = settings.applicationDirectories.first(where: { !$0.hasPrefix("/") }) {
            throw SettingsError(
                description:
                    "the application directory \(relative) (--applications-dir, or applicationDirectories in the "
                    + "configuration) is not an absolute path; give /usr/share/applications, or '' for none",
                isUsage: true)
        }
        if let administratorGroup { settings.administratorGroup = administratorGroup }
        if let grace { settings.grace = grace }
        if let clientBuffer { settings.clientBuffer = clientBuffer }
        if let connectionsPerUser { settings.connectionsPerUser = connectionsPerUser }
        if let helloTimeout { settings.helloTimeout = helloTimeout }
        if let gpsdListen { settings.gpsdListen = gpsdListen }
        if let chronySockets { settings.chronySockets = chronySockets }
        if geoclue { settings.geoclue = true }
        if let nice { settings.nice = nice }
        if let historyDays { settings.historyDays = historyDays }
        if noIndicator { settings.indicator = false }
        if !settings.chronySockets.isEmpty, !settings.chronySockets.hasPrefix("/") {
            throw SettingsError(
                description:
                    "--chrony-sockets \(settings.chronySockets) is not an absolute path; give /run (chrony's "
                    + "`refclock SOCK /run/chrony.ttyUSB0.sock`), or \"\" for no clock feed",
                isUsage: true)
        }
        if !settings.gpsdListen.isEmpty, settings.gpsdEndpoint == nil {
            throw SettingsError(
                description:
                    "--gpsd-listen \(settings.gpsdListen) is not HOST:PORT or a port; give 127.0.0.1:2947, [::1]:2947 or 2947",
                isUsage: true)
        }
        guard (1...65536).contains(settings.connectionsPerUser) else {
            throw SettingsError(
                description:
                    "--connections-per-user \(settings.connectionsPerUser) is out of range; give 1 to 65536 connections"
            )
        }
        guard (0.5...600).contains(settings.helloTimeout) else {
            throw SettingsError(
                description:
                    "--hello-timeout \(settings.helloTimeout) is out of range; give 0.5 to 600 seconds")
        }
        guard (0...600).contains(settings.grace) else {
            throw SettingsError(
                description: "--grace \(settings.grace) is out of range; give 0 to 600 seconds")
        }
        guard (0...366).contains(settings.historyDays) else {
            throw SettingsError(
                description:
                    "--history-days \(settings.historyDays) is out of range; give 0 (keep no access history) to 366 days",
                isUsage: true)
        }
        guard (-20...19).contains(settings.nice) else {
            throw SettingsError(
                description:
                    "--nice \(settings.nice) is out of range; give -20 to 19 (lower runs sooner; -10 by default, as gpsd runs)"
            )
        }
        guard (4096...16_777_216).contains(settings.clientBuffer) else {
            throw SettingsError(
                description:
                    "--client-buffer \(settings.clientBuffer) is out of range; give 4096 to 16777216 bytes")
        }
        guard settings.socket.hasPrefix("/") else {
            throw SettingsError(description: "--socket \(settings.socket) is not an absolute path")
        }
        guard settings.stateDirectory.hasPrefix("/") else {
            throw SettingsError(description: "--state-dir \(settings.stateDirectory) is not an absolute path")
        }
        return settings
    }

    /// `gpsdListen` as a host and a port: a port alone is on the loopback.
    var gpsdEndpoint: (host: String, port: Int)? {
        let text = gpsdListen
        if let port = Int(text), (1...65535).contains(port) { return ("127.0.0.1", port) }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// Every setting by its key in the configuration file, for the log.
    var summary: String {
        [
            "sources \(sources)", "socket \(socket)", "stateDirectory \(stateDirectory)",
            "appsDirectory \(appsDirectory)",
            "applicationDirectories \(applicationDirectories.isEmpty ? "(none)" : applicationDirectories.joined(separator: ":"))",
            "administratorGroup \(administratorGroup)", "grace \(grace)",
            "clientBuffer \(clientBuffer)", "connectionsPerUser \(connectionsPerUser)",
            "helloTimeout \(helloTimeout)", "gpsdListen \(gpsdListen.isEmpty ? "(none)" : gpsdListen)",
            "chronySockets \(chronySockets.isEmpty ? "(none)" : chronySockets)", "geoclue \(geoclue)",
            "nice \(nice)", "historyDays \(historyDays)", "indicator \(indicator)",
        ].joined(separator: ", ")
    }
}
