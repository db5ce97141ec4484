// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import Logging

extension AppEngine {
    /// Everything the engine needs to know of one app: who it is, where its decisions are, who
    /// answers its prompts, whether it is in use and which receiver gives locations.
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
        /// The secret behind the reduced-accuracy offset; when `nil`, the one kept in the
        /// store's directory (made the first time). The daemon passes its own.
        public var reducerSecret: ReducerSecret?
        /// The receiver's name: each receiver has its own offset.
        public var receiverName: String
        /// Where refusals and failures are explained; standard error by default.
        public var log: @Sendable (String) -> Void

        public init(
            client: String, manifest: Manifest, store: AuthorizationStore, prompter: any Prompter,
            activity: AppActivity = AppActivity(), service: LocationService? = nil,
            watchesStore: Bool = true, reducerSecret: ReducerSecret? = nil,
            receiverName: String = "",
            log: @escaping @Sendable (String) -> Void = AppEngine.standardErrorLog
        ) {
            self.reducerSecret = reducerSecret
            self.receiverName = receiverName
            self.client = client
            self.manifest = manifest
            self.store = store
            self.prompter = prompter
            self.activity = activity
            self.service = service
            self.watchesStore = watchesStore
            self.log = log
        }
    }

    /// The default for messages: swift-log, label `OpenCoreLocation`, at `notice`; the program
    /// chooses where they go with `LoggingSystem.bootstrap` (standard error by default).
    public static let standardErrorLog: @Sendable (String) -> Void = { message in
        logger.notice("\(message)")
    }

    private static let logger = Logger(label: "OpenCoreLocation")
}
