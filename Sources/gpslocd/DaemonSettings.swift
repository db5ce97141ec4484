// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Everything the daemon is told: from its configuration file (JSON, read with Foundation's
/// decoder), then the command line over it.
struct DaemonSettings: Decodable, Sendable {
    static let defaultConfigurationPath = "/etc/opencorelocation/gpslocd.conf"
    static let defaults = DaemonSettings()

    struct SettingsError: Error, CustomStringConvertible {
        var description: String
    }

    var sources: [String] = []
    var socket = "/run/opencorelocation/gpslocd.sock"
    var stateDirectory = "/var/lib/opencorelocation"
    var appsDirectory = "/etc/opencorelocation/apps.d"
    var administratorGroup = "opencorelocation-admin"
    var grace: Double = 10
    var clientBuffer = 65536

    init() {}

    enum CodingKeys: String, CodingKey {
        case sources, socket, stateDirectory, appsDirectory, administratorGroup, grace, clientBuffer
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = DaemonSettings()
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? d.sources
        socket = try c.decodeIfPresent(String.self, forKey: .socket) ?? d.socket
        stateDirectory = try c.decodeIfPresent(String.self, forKey: .stateDirectory) ?? d.stateDirectory
        appsDirectory = try c.decodeIfPresent(String.self, forKey: .appsDirectory) ?? d.appsDirectory
        administratorGroup =
            try c.decodeIfPresent(String.self, forKey: .administratorGroup) ?? d.administratorGroup
        grace = try c.decodeIfPresent(Double.self, forKey: .grace) ?? d.grace
        clientBuffer = try c.decodeIfPresent(Int.self, forKey: .clientBuffer) ?? d.clientBuffer
    }

    /// The file's settings, or the defaults when it does not exist.
    static func load(configuration path: String) throws(SettingsError) -> DaemonSettings {
        guard FileManager.default.fileExists(atPath: path) else {
            if path != defaultConfigurationPath {
                throw SettingsError(
                    description: "--config \(path) does not exist; create it or drop --config")
            }
            return DaemonSettings()
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(description: "\(path) cannot be read; check its permissions")
        }
        do {
            return try JSONDecoder().decode(DaemonSettings.self, from: data)
        } catch let DecodingError.typeMismatch(type, context) {
            let name = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw SettingsError(
                description:
                    "\(path): '\(name)' must be \(type == [String].self ? "a list of strings" : "\(type)")")
        } catch {
            throw SettingsError(
                description:
                    "\(path) is not a valid configuration (\(error)); it is one JSON object, see README")
        }
    }

    /// The command line's values over these, each checked.
    func overridden(
        sources: [String], socket: String?, stateDirectory: String?, appsDirectory: String?,
        administratorGroup: String?, grace: Double?, clientBuffer: Int?
    ) throws(SettingsError) -> DaemonSettings {
        var settings = self
        if !sources.isEmpty { settings.sources = sources }
        if let socket { settings.socket = socket }
        if let stateDirectory { settings.stateDirectory = stateDirectory }
        if let appsDirectory { settings.appsDirectory = appsDirectory }
        if let administratorGroup { settings.administratorGroup = administratorGroup }
        if let grace { settings.grace = grace }
        if let clientBuffer { settings.clientBuffer = clientBuffer }
        guard (0...600).contains(settings.grace) else {
            throw SettingsError(
                description: "--grace \(settings.grace) is out of range; give 0 to 600 seconds")
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
}
