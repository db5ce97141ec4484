// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

/// Keeps a when-in-use app "in use" while it is in the background, so that its live updates and
/// monitor events keep flowing, as the location indicator does on Apple platforms.
///
/// A new session must be started while the app is in use (in the foreground, or while another
/// session keeps it in use); one started otherwise keeps nothing in use and its diagnostics say
/// `insufficientlyInUse`. The session ends with ``invalidate()`` or when it is released, and
/// cannot be revived.
public final class CLBackgroundActivitySession: Sendable {
    /// The state of the session: why it cannot keep the app in use. The same type as a service
    /// session's diagnostic; the flags about accuracy and Always never apply to this session.
    public typealias Diagnostic = CLServiceSession.Diagnostic

    let handle: SessionHandle

    public convenience init() {
        self.init(context: .current)
    }

    init(context: LocationContext) {
        handle = SessionHandle(context: context, id: context.addBackgroundActivitySession())
    }

    /// Ends the session at once; the app is in use again only in the foreground. Calling it
    /// again does nothing.
    public func invalidate() { handle.invalidate() }

    deinit { handle.invalidate() }

    /// The session's diagnostics: the current state at once, then every change. Ends when the
    /// session is invalidated.
    public var diagnostics: Diagnostics {
        Diagnostics(session: self, handle: handle, convert: Diagnostic.init)
    }

    public typealias Diagnostics = SessionDiagnostics<Diagnostic>
}
