// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import LocationEngine
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An app an administrator registered: its manifest and what it covers.
public struct AppRegistration: Sendable, Hashable {
    /// `CFBundleIdentifier`: the app identifier its decisions are kept under.
    public var app: String
    public var manifest: Manifest
    /// Absolute paths of the executables it covers (`OpenCoreLocationExecutables`).
    public var executables: [String]
    /// Services of the system manager it covers, `name.service` (`OpenCoreLocationUnits`).
    public var units: [String]
    /// Services of users' own managers it covers (`OpenCoreLocationUserUnits`): a user names
    /// these, so they prove only what that user chose to run.
    public var userUnits: [String] = []
    /// Snaps it covers, by name (`OpenCoreLocationSnaps`), known from their AppArmor label.
    public var snaps: [String] = []
    /// Flatpak apps it covers, by id (`OpenCoreLocationFlatpaks`), known from their sandbox.
    public var flatpaks: [String] = []
    /// The file it came from.
    public var path: String
}

/// The registrations in `/etc/opencorelocation/apps.d/*.plist`: each an `Info.plist` with the
/// location keys of Apple's, a `CFBundleIdentifier`, and the executables or units it covers.
/// The daemon reads a client's manifest from here; a client never sends one.
///
/// The directory is read again when it changes (its modification time), so a registration
/// installed while the daemon runs applies to the next connection.
///
/// Beside them, the desktop entries of the system's application directories, which prove a
/// packaged desktop app that no registration covers (``DesktopEntries``).
public final class AppRegistry: Sendable {
    public let directory: String
    public let desktopEntries: DesktopEntries
    private let log: @Sendable (String) -> Void
    private let state = Mutex<(stamp: timespec?, registrations: [AppRegistration])>((nil, []))

    public init(
        directory: String, applicationDirectories: [String] = [], log: @escaping @Sendable (String) -> Void
    ) {
        self.directory = directory
        self.desktopEntries = DesktopEntries(directories: applicationDirectories, log: log)
        self.log = log
    }

    /// The registrations now, read again if the directory changed.
    public var registrations: [AppRegistration] {
        var info = stat()
        let stamp: timespec? = stat(directory, &info) == 0 ? info.st_mtim : nil
        let (cached, current) = state.withLock { state in
            (state.registrations, state.stamp.map { Self.same($0, stamp) } ?? (stamp == nil))
        }
        if current { return cached }
        let fresh = load()
        state.withLock { $0 = (stamp, fresh) }
        return fresh
    }

    private static func same(_ a: timespec, _ b: timespec?) -> Bool {
        guard let b else { return false }
        return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec
    }

    public func registration(forExecutable path: String) -> AppRegistration? {
        registrations.first { $0.executables.contains(path) }
    }

    public func registration(forUnit unit: String) -> AppRegistration? {
        registrations.first { $0.units.contains(unit) }
    }

    public func registration(forUserUnit unit: String) -> AppRegistration? {
        registrations.first { $0.userUnits.contains(unit) }
    }

    public func registration(forSnap snap: String) -> AppRegistration? {
        registrations.first { $0.snaps.contains(snap) }
    }

    public func registration(forFlatpak app: String) -> AppRegistration? {
        registrations.first { $0.flatpaks.contains(app) }
    }

    public func registration(forApp app: String) -> AppRegistration? {
        registrations.first { $0.app == app }
    }

    private func load() -> [AppRegistration] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var found: [AppRegistration] = []
        for name in names.sorted() where name.hasSuffix(".plist") {
            let path = directory + "/" + name
            do {
                let registration = try Self.read(path)
                if let earlier = found.first(where: { $0.app == registration.app }) {
                    log(
                        "\(path): \(registration.app) is registered already by \(earlier.path); this file is ignored"
                    )
                    continue
                }
                found.append(registration)
            } catch {
                log("\(error); this registration is ignored until it is fixed")
            }
        }
        return found
    }

    /// Reads one registration file.
    public static func read(_ path: String) throws(Manifest.LoadError) -> AppRegistration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Manifest.LoadError(path: path, reason: "cannot be read")
        }
        let keys: InfoPlistKeys
        do {
            keys = try InfoPlistKeys.read(data)
        } catch {
            throw Manifest.LoadError(path: path, reason: error.reason)
        }
        guard let app = keys.bundleIdentifier, !app.isEmpty else {
            throw Manifest.LoadError(path: path, reason: "CFBundleIdentifier is missing; it names the app")
        }
        let manifest = Manifest(keys)
        let executables = keys.executables ?? []
        if let relative = executables.first(where: { !$0.hasPrefix("/") }) {
            throw Manifest.LoadError(
                path: path, reason: "OpenCoreLocationExecutables: '\(relative)' is not an absolute path")
        }
        let units = keys.units ?? []
        if let odd = units.first(where: { !$0.hasSuffix(".service") }) {
            throw Manifest.LoadError(
                path: path, reason: "OpenCoreLocationUnits: '\(odd)' is not a name.service")
        }
        let userUnits = keys.userUnits ?? []
        if let odd = userUnits.first(where: { !$0.hasSuffix(".service") }) {
            throw Manifest.LoadError(
                path: path, reason: "OpenCoreLocationUserUnits: '\(odd)' is not a name.service")
        }
        let snaps = keys.snaps ?? []
        if let odd = snaps.first(where: { !SnapConfinement.isValidName(Substring($0)) }) {
            throw Manifest.LoadError(
                path: path, reason: "OpenCoreLocationSnaps: '\(odd)' is not a snap's name")
        }
        let flatpaks = keys.flatpaks ?? []
        if let odd = flatpaks.first(where: { !FlatpakSandbox.isValidAppID($0) }) {
            throw Manifest.LoadError(
                path: path, reason: "OpenCoreLocationFlatpaks: '\(odd)' is not a Flatpak app id")
        }
        var registration = AppRegistration(
            app: app, manifest: manifest, executables: executables, units: units, path: path)
        registration.userUnits = userUnits
        registration.snaps = snaps
        registration.flatpaks = flatpaks
        return registration
    }
}
