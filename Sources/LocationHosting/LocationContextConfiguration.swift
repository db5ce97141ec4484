// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import LocationEngine
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension LocationContext {
    /// Everything the engine needs to know of the app: who it is, where its decisions are, who
    /// answers its prompts, whether it is in use and which receiver gives locations.
    public typealias Configuration = AppEngine.Configuration

    /// The default for messages: swift-log, label `OpenCoreLocation`, at `notice`; the program
    /// chooses where they go with `LoggingSystem.bootstrap` (standard error by default).
    public static let standardErrorLog = AppEngine.standardErrorLog

    /// Where gpslocd listens unless `OPENCORELOCATION_SOCKET` says otherwise.
    public static let defaultDaemonSocket = "/run/opencorelocation/gpslocd.sock"

    /// The daemon's socket for an environment, if one exists there.
    public static func daemonSocket(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String?
    {
        let path =
            environment["OPENCORELOCATION_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultDaemonSocket
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return path
    }

    /// The documented defaults, from the environment:
    /// - when gpslocd's socket exists (`OPENCORELOCATION_SOCKET`, else
    ///   ``defaultDaemonSocket``) and no `service` is given, a client of the daemon: it knows the
    ///   app by the kernel's word, keeps the decisions and asks the user through their agent;
    /// - otherwise the core runs in this process, with:
    /// - `OPENCORELOCATION_APP`: the client identifier (default: the program's name);
    /// - `OPENCORELOCATION_MANIFEST`: the path of its `Info.plist` (default: none, so every
    ///   request is refused with a message saying which key to add);
    /// - the store in `AuthorizationStore.defaultDirectory(environment:)`;
    /// - prompts on the terminal when there is one, else pending until `gpsloc auth` answers;
    /// - in use while in the terminal's foreground process group;
    /// - no receiver: pass one with ``bootstrap(_:)`` (e.g. a `LocationService` over a
    ///   `GNSSSources` source).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        service: LocationService? = nil
    ) -> LocationContext {
        let log = standardErrorLog
        if service == nil, let socket = daemonSocket(environment) {
            do {
                return try daemonClient(socket: socket, environment: environment, log: log)
            } catch {
                log("cannot use gpslocd at \(socket) (\(error)); running the core in this process")
            }
        }
        let client =
            environment["OPENCORELOCATION_APP"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.processName
        var manifest = Manifest()
        if let path = environment["OPENCORELOCATION_MANIFEST"], !path.isEmpty {
            do { manifest = try Manifest(contentsOf: path) } catch { log("\(error)") }
        }
        let store = AuthorizationStore(
            directory: AuthorizationStore.defaultDirectory(environment: environment))
        let prompter: any Prompter =
            TerminalPrompter.isAvailable ? TerminalPrompter() : PendingPrompter(store: store, log: log)
        return LocationContext(
            Configuration(
                client: client, manifest: manifest, store: store, prompter: prompter,
                activity: .terminalForeground(), service: service, log: log))
    }

    /// A context in client mode of the daemon at `socket`. The app is whatever the daemon
    /// verified; `OPENCORELOCATION_APP` and a manifest are not the client's to give. The host may
    /// still say the app went to the background through the configuration's `activity`. When
    /// the daemon cannot be reached, the client keeps trying and logs why at once, unless
    /// `quietly`: then its owner says it (``daemonUnreachable``).
    public static func daemonClient(
        socket: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        activity: AppActivity = AppActivity(), quietly: Bool = false,
        log: @escaping @Sendable (String) -> Void = standardErrorLog
    ) throws(Errno) -> LocationContext {
        let remote = try DaemonClient(path: socket, quietly: quietly, log: log)
        let store = AuthorizationStore(
            directory: AuthorizationStore.defaultDirectory(environment: environment))
        return LocationContext(
            Configuration(
                client: remote.identity?.app ?? ProcessInfo.processInfo.processName, manifest: Manifest(),
                store: store,
                prompter: PendingPrompter(store: store, log: log), activity: activity, watchesStore: false,
                log: log),
            remote: remote)
    }

    /// Whether this context is a client of gpslocd rather than running the core itself.
    public var isDaemonClient: Bool { remote != nil }

    /// Why this client of gpslocd could not connect to its socket when it was made (it keeps
    /// trying); nil when it connected (a daemon slow to answer included), or when the context
    /// runs the core itself.
    public var daemonUnreachable: String? { remote?.firstFailure }
}
