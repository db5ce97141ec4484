import GNSS

extension LocationContext {
    public struct Configuration: Sendable {
        /// The app's identity, bundle-identifier style, e.g. `com.example.tracker`.
        public var client: String
        public var manifest: Manifest
        public var store: AuthorizationStore
        public var prompter: any Prompter
        public var activity: AppActivity
        /// The receiver; without one, updates report `locationUnavailable`.
        public var service: LocationService?
        /// Follow changes of the store made by other processes (`gpsloc auth`).
        public var watchesStore: Bool
        /// Seeds the reduced-accuracy cadence; random when `nil`.
        public var reducerSeed: UInt64?
        /// Where refusals and failures are explained; standard error by default.
        public var log: @Sendable (String) -> Void

        public init(
            client: String, manifest: Manifest, store: AuthorizationStore, prompter: any Prompter,
            activity: AppActivity = AppActivity(), service: LocationService? = nil,
            watchesStore: Bool = true, reducerSeed: UInt64? = nil,
            log: @escaping @Sendable (String) -> Void = LocationContext.standardErrorLog
        ) {
            self.client = client
            self.manifest = manifest
            self.store = store
            self.prompter = prompter
            self.activity = activity
            self.service = service
            self.watchesStore = watchesStore
            self.reducerSeed = reducerSeed
            self.log = log
        }
    }

    public static let standardErrorLog: @Sendable (String) -> Void = { message in
        let line = "OpenCoreLocation: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// The documented defaults, from the environment:
    /// - `OPENCORELOCATION_APP`: the client identifier (default: the program's name);
    /// - `OPENCORELOCATION_MANIFEST`: the path of its `Info.plist` (default: none, so every
    ///   request is refused with a message saying which key to add);
    /// - the store in ``AuthorizationStore/defaultDirectory(environment:)``;
    /// - prompts on the terminal when there is one, else pending until `gpsloc auth` answers;
    /// - in use while in the terminal's foreground process group;
    /// - no receiver: pass one with ``bootstrap(_:)`` (e.g. a `LocationService` over a
    ///   `GNSSSources` source).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        service: LocationService? = nil
    ) -> LocationContext {
        let log = standardErrorLog
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
}
