// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_spi(FrontEnd) import LocationEngine
import Locking

/// A session registered with a context, ended once by whichever comes first: `invalidate()` or
/// the release of the object that holds it.
package final class SessionHandle: Sendable {
    package let context: LocationContext
    private let id: Mutex<Int?>

    package init(context: LocationContext, id: Int) {
        self.context = context
        self.id = Mutex(id)
    }

    package func invalidate() {
        guard
            let id = id.withLock({ value -> Int? in
                defer { value = nil }
                return value
            })
        else { return }
        context.removeSession(id)
    }

    /// The session's diagnostic flags, or an empty stream once it has ended.
    package func diagnostics() -> MailboxLease<AuthorizationFlags> {
        guard let id = id.withLock({ $0 }) else {
            let channel = Mailbox<AuthorizationFlags>(capacity: 1)
            channel.finish()
            return MailboxLease(channel)
        }
        return MailboxLease(context.subscribeDiagnostics(session: id))
    }
}
