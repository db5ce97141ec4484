// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_spi(FrontEnd) import LocationEngine

/// A context's updates in the engine's own values: what `CLLocationUpdate.liveUpdates()` turns
/// into the API's types, and what gpsloc prints. Each iteration is a subscription of its own,
/// which ends when the iterator is released (a loop left, its task cancelled).
package struct LiveUpdates: AsyncSequence, Sendable {
    package typealias Element = LocationUpdate
    package typealias Failure = Never

    let context: LocationContext
    let activity: ActivityProfile
    /// Reduced locations whatever the authorization (`CLLocationManager.desiredAccuracy`).
    let reduced: Bool
    /// Every fix, without pausing while still (`pausesLocationUpdatesAutomatically = false`).
    let continuous: Bool
    /// Whether iterating holds an implicit when-in-use session, which asks the user; the
    /// delegate API's updates do not.
    let implicitSession: Bool

    package func makeAsyncIterator() -> Iterator {
        Iterator(
            context: context,
            lease: MailboxLease(
                context.subscribeUpdates(
                    configuration: activity, wantsReduced: reduced, continuous: continuous,
                    implicitSession: implicitSession)))
    }

    package struct Iterator: AsyncIteratorProtocol {
        let context: LocationContext
        let lease: MailboxLease<LocationUpdate>

        package mutating func next() async -> LocationUpdate? {
            noted(await lease.next())
        }

        package mutating func next(isolation actor: isolated (any Actor)?) async -> LocationUpdate? {
            noted(await lease.next())
        }

        /// A heading in an update makes `headingAvailable()` true for this context.
        private func noted(_ update: LocationUpdate?) -> LocationUpdate? {
            if update?.location?.heading != nil { context.headingSeen.store(true, ordering: .relaxed) }
            return update
        }
    }
}

extension LocationContext {
    /// Updates tuned for `activity` from this context's receiver or gpslocd; see ``LiveUpdates``.
    package func liveUpdates(
        for activity: ActivityProfile, reduced: Bool = false, continuous: Bool = false,
        implicitSession: Bool = true
    ) -> LiveUpdates {
        LiveUpdates(
            context: self, activity: activity, reduced: reduced, continuous: continuous,
            implicitSession: implicitSession)
    }

    /// Holds a service session at `level` (what `CLServiceSession(authorization:)` does) until the
    /// handle is invalidated or released.
    package func holdSession(_ level: SessionLevel, purposeKey: String? = nil) -> SessionHandle {
        SessionHandle(
            context: self,
            id: addSession(SessionRequirement(level: level, purposeKey: purposeKey, explicit: true)))
    }
}
