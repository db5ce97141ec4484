// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_spi(FrontEnd) import LocationEngine
import Locking

/// A declaration that the app needs location services at a level of authorization, for as long
/// as the session is held; Core Location reconciles all the sessions an app holds.
///
/// Creating a `.whenInUse` or `.always` session asks the user when that is possible (the app is
/// in use, no earlier denial, not restricted). A `.none` session never asks but satisfies
/// `NSLocationRequireExplicitServiceSession`. The session ends with ``invalidate()`` or when it is
/// released.
public final class CLServiceSession: Sendable {
    public enum AuthorizationRequirement: Int, Sendable, Hashable {
        case none = 0
        case whenInUse = 1
        case always = 2

        var level: SessionLevel { SessionLevel(rawValue: rawValue)! }
    }

    /// The state of the session: why it is suspended, or what is pending.
    public struct Diagnostic: Sendable, Hashable {
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRestricted: Bool
        public let insufficientlyInUse: Bool
        public let serviceSessionRequired: Bool
        public let fullAccuracyDenied: Bool
        public let alwaysAuthorizationDenied: Bool
        public let authorizationRequestInProgress: Bool
        /// The app has approximate locations only.
        public let accuracyLimited: Bool

        init(_ flags: AuthorizationFlags) {
            accuracyLimited = flags.accuracyLimited
            authorizationDenied = flags.authorizationDenied
            authorizationDeniedGlobally = flags.authorizationDeniedGlobally
            authorizationRestricted = flags.authorizationRestricted
            insufficientlyInUse = flags.insufficientlyInUse
            serviceSessionRequired = flags.serviceSessionRequired
            fullAccuracyDenied = flags.fullAccuracyDenied
            alwaysAuthorizationDenied = flags.alwaysAuthorizationDenied
            authorizationRequestInProgress = flags.authorizationRequestInProgress
        }
    }

    let handle: SessionHandle

    public convenience init(authorization: AuthorizationRequirement) {
        self.init(authorization: authorization, purposeKey: nil, context: .current)
    }

    public convenience init(authorization: AuthorizationRequirement, fullAccuracyPurposeKey: String) {
        self.init(authorization: authorization, purposeKey: fullAccuracyPurposeKey, context: .current)
    }

    init(authorization: AuthorizationRequirement, purposeKey: String?, context: LocationContext) {
        handle = context.holdSession(authorization.level, purposeKey: purposeKey)
    }

    public static func session(authorization: AuthorizationRequirement) -> CLServiceSession {
        CLServiceSession(authorization: authorization)
    }

    public static func session(
        authorization: AuthorizationRequirement, fullAccuracyPurposeKey: String
    ) -> CLServiceSession {
        CLServiceSession(authorization: authorization, fullAccuracyPurposeKey: fullAccuracyPurposeKey)
    }

    /// Ends the session at once; it never becomes active again. Calling it again does nothing.
    public func invalidate() { handle.invalidate() }

    deinit { handle.invalidate() }

    /// The session's diagnostics: the current state at once, then every change. Ends when the
    /// session is invalidated.
    public var diagnostics: Diagnostics {
        Diagnostics(session: self, handle: handle, convert: Diagnostic.init)
    }

    public typealias Diagnostics = SessionDiagnostics<Diagnostic>
}

/// The diagnostics of a `CLServiceSession` or a `CLBackgroundActivitySession`: the current state
/// at once, then every change, until the session ends. Iterating holds the session.
public struct SessionDiagnostics<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    let session: any AnyObject & Sendable
    let handle: SessionHandle
    let convert: @Sendable (AuthorizationFlags) -> Element

    public func makeAsyncIterator() -> Iterator {
        Iterator(session: session, lease: handle.diagnostics(), convert: convert)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let session: any AnyObject & Sendable
        let lease: MailboxLease<AuthorizationFlags>
        let convert: @Sendable (AuthorizationFlags) -> Element

        public mutating func next() async -> Element? {
            await lease.next().map(convert)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await lease.next().map(convert)
        }
    }
}
