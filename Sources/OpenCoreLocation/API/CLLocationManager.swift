// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import Locking

/// The object that receives a location manager's events. The manager calls it on the main
/// actor, as Apple's calls it on the main run loop for a manager made there; the protocol itself
/// is not isolated, as on Apple platforms, so a plainly declared delegate class can be made
/// anywhere (a `@MainActor` class implements its methods `nonisolated`, or conforms with
/// `@preconcurrency`, as Swift 6 code for Apple platforms does).
public protocol CLLocationManagerDelegate: NSObjectProtocol {
    /// Called when the delegate is set and whenever the app's authorization status or accuracy
    /// authorization changes.
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error)
    /// The form Apple deprecated in iOS 14 and still calls, with the new status; called right
    /// after ``locationManagerDidChangeAuthorization(_:)``.
    func locationManager(_ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus)
    /// Updates paused: the device stands still (`pausesLocationUpdatesAutomatically`).
    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager)
    /// Updates resumed: the device moves again.
    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager)
    /// A new heading from the receiver (`startUpdatingHeading()`).
    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading)
    /// Never asked here: a receiver's heading needs no calibration.
    func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool
    /// The device arrived at or left a place (`startMonitoringVisits()`).
    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit)
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
    /// Where the device is with respect to a monitored region: on a crossing, and in answer to
    /// `requestState(for:)`.
    func locationManager(
        _ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion)
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error)
}

extension CLLocationManagerDelegate {
    public func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {}
    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    public func locationManager(
        _ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion
    ) {}
    public func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {}
    public func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {}
    public func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {}
    public func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {}
    public func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool { false }
    public func locationManager(
        _ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus
    ) {}
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {}
    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
    public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
}

/// Core Location's delegate-based interface: authorization requests and status, and location
/// updates delivered to a delegate. It works on the same `LocationContext` as
/// `CLLocationUpdate.liveUpdates()` and `CLServiceSession`.
open class CLLocationManager: NSObject, @unchecked Sendable {
    let context: LocationContext

    /// The delegate is only called on the main actor; the reference itself may be set anywhere.
    private final class DelegateReference: @unchecked Sendable {
        weak var value: (any CLLocationManagerDelegate)?
        init(_ value: (any CLLocationManagerDelegate)?) { self.value = value }
    }

    private struct State {
        var delegate = DelegateReference(nil)
        var updating: Task<Void, Never>?
        /// The one-shot request of ``requestLocation()`` under way.
        var requesting: Task<Void, Never>?
        /// What keeps updates going after the app leaves use (`allowsBackgroundLocationUpdates`).
        var background: CLBackgroundActivitySession?
        /// Updates paused for stillness; the last location given to the delegate.
        var paused = false
        var delivered: CLLocation?
        /// Heading updates under way, and the last heading delivered.
        var headingUpdates: Task<Void, Never>?
        var heading: CLHeading?
        var location: CLLocation?
        var observer: Int?
    }

    private let state = Mutex(State())
    /// Significant changes, visits and regions (`CLLocationManagerServices.swift`).
    let services = Mutex(ManagerServices())

    public override init() {
        context = .current
        super.init()
        let id = context.observeAuthorization { [weak self] in self?.authorizationDidChange() }
        state.withLock { $0.observer = id }
    }

    deinit {
        let (observer, task, request, background) = state.withLock {
            ($0.observer, $0.updating, $0.requesting, $0.background)
        }
        if let observer { context.removeAuthorizationObserver(observer) }
        task?.cancel()
        request?.cancel()
        background?.invalidate()
        state.withLock { $0.headingUpdates }?.cancel()
        services.withLock { $0.cancelAll() }
    }

    /// Calls the delegate on the main actor, if there is one.
    func tellDelegate(_ body: @MainActor @Sendable (any CLLocationManagerDelegate, CLLocationManager) -> Void)
        async
    {
        await MainActor.run {
            guard let delegate = self.delegate else { return }
            body(delegate, self)
        }
    }

    /// A location given to the delegate by another service than `startUpdatingLocation()`.
    func noteDelivered(_ location: CLLocation) { state.withLock { $0.location = location } }

    /// Receives this manager's events on the main actor. Setting it reports the current
    /// authorization through `locationManagerDidChangeAuthorization(_:)`.
    public weak var delegate: (any CLLocationManagerDelegate)? {
        get { state.withLock { $0.delegate }.value }
        set {
            let reference = DelegateReference(newValue)
            state.withLock { $0.delegate = reference }
            if newValue != nil { authorizationDidChange() }
        }
    }

    private func authorizationDidChange() {
        Task { @MainActor [weak self] in
            guard let self, let delegate = self.delegate else { return }
            delegate.locationManagerDidChangeAuthorization(self)
            delegate.locationManager(self, didChangeAuthorization: self.authorizationStatus)
        }
    }

    public var authorizationStatus: CLAuthorizationStatus { context.authorizationStatus }
    public var accuracyAuthorization: CLAccuracyAuthorization { context.accuracyAuthorization }
    /// Widgets are not a Linux concept: true when the app may use location in the background.
    public var isAuthorizedForWidgetUpdates: Bool { context.authorizationStatus == .authorizedAlways }
    /// The most recent location delivered to the delegate.
    public var location: CLLocation? { state.withLock { $0.location } }
    /// `kCLLocationAccuracyReduced` gives reduced locations even to an app with full accuracy, from
    /// the next `startUpdatingLocation()`, as on Apple platforms; other values are kept.
    public var desiredAccuracy: CLLocationAccuracy = kCLLocationAccuracyBest
    /// Locations closer than this to the last one delivered are not delivered (metres);
    /// `kCLDistanceFilterNone` delivers every one.
    public var distanceFilter: CLLocationDistance = kCLDistanceFilterNone
    /// What the updates are for: tunes when a still device counts as stopped.
    public var activityType: CLActivityType = .other
    /// When true (the default), updates pause while the device stands still
    /// (`locationManagerDidPauseLocationUpdates(_:)`) and resume when it moves
    /// (`locationManagerDidResumeLocationUpdates(_:)`); when false, every fix is delivered.
    public var pausesLocationUpdatesAutomatically = true
    /// When true, updates started while the app is in use go on after it leaves use, as a
    /// `CLBackgroundActivitySession` would keep them; when false, they stop with its use.
    public var allowsBackgroundLocationUpdates = false
    /// Kept for code that sets it; Linux has no status bar to show an indicator in.
    public var showsBackgroundLocationIndicator = false

    /// Whether location services are on (the global switch of the authorization store).
    open class func locationServicesEnabled() -> Bool { LocationContext.current.servicesEnabled }
    /// Whether a receiver has sent a heading (`$--HDT` or `$--THS`) in this process: heading comes from
    /// heading sentences, as there is no magnetometer.
    open class func headingAvailable() -> Bool {
        LocationContext.current.headingSeen.load(ordering: .relaxed)
    }
    /// Significant-change monitoring is offered: a location after each 500 m of movement, at most
    /// one every five minutes (`startMonitoringSignificantLocationChanges()`).
    open class func significantLocationChangeMonitoringAvailable() -> Bool { true }
    /// Whether regions of `regionClass` can be monitored: circles can; beacon regions need
    /// Bluetooth hardware this platform does not manage.
    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool {
        regionClass is CLCircularRegion.Type
    }
    /// Beacon ranging needs Bluetooth hardware this platform does not manage: false.
    open class func isRangingAvailable() -> Bool { false }
    /// The current app's authorization status (Apple's class form, deprecated in iOS 14).
    open class func authorizationStatus() -> CLAuthorizationStatus {
        LocationContext.current.authorizationStatus
    }

    /// Asks for when-in-use authorization once the app is in use, if not yet determined.
    open func requestWhenInUseAuthorization() { context.requestAuthorization(.whenInUse) }
    /// Asks for Always authorization: the first question if undetermined, else the single
    /// upgrade; later calls, and calls after Allow Once, have no effect.
    open func requestAlwaysAuthorization() { context.requestAuthorization(.always) }

    /// Asks for precise location for the purpose named by `purposeKey` (a key of
    /// `NSLocationTemporaryUsageDescriptionDictionary`), for as long as the app stays in use.
    /// Completes at once, without asking, when the key is unknown (with an error) or full
    /// accuracy is already granted (without one).
    open func requestTemporaryFullAccuracyAuthorization(
        withPurposeKey purposeKey: String,
        completion: @escaping @Sendable ((any Error)?) -> Void = { _ in }
    ) {
        context.requestTemporaryFullAccuracy(purposeKey: purposeKey) { refusal in
            completion(refusal.map(CLError.init))
        }
    }

    /// The same, awaiting the answer.
    open func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            context.requestTemporaryFullAccuracy(purposeKey: purposeKey) { refusal in
                if let refusal {
                    continuation.resume(throwing: CLError(refusal))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// Starts delivering locations to the delegate (`locationManager(_:didUpdateLocations:)`);
    /// when none can be had, `locationManager(_:didFailWithError:)` says why.
    open func startUpdatingLocation() {
        let updates = locationUpdates(continuous: !pausesLocationUpdatesAutomatically)
        let background = allowsBackgroundLocationUpdates ? CLBackgroundActivitySession(context: context) : nil
        let task = Task { [weak self] in
            do {
                for try await update in updates {
                    guard let self else { return }
                    await self.deliver(update)
                }
            } catch {}
        }
        let old = state.withLock { state -> (Task<Void, Never>?, CLBackgroundActivitySession?) in
            defer {
                state.updating = task
                state.background = background
                state.paused = false
            }
            return (state.updating, state.background)
        }
        old.0?.cancel()
        old.1?.invalidate()
    }

    /// Updates as this manager's properties ask for them: tuned for ``activityType``, reduced
    /// when ``desiredAccuracy`` says `kCLLocationAccuracyReduced`. They ask the user nothing: the
    /// delegate API's authorization comes from `request…Authorization()` alone, as on Apple
    /// platforms, where only `liveUpdates` and `CLMonitor` hold implicit sessions.
    func locationUpdates(continuous: Bool, configuration: CLLocationUpdate.Activity? = nil)
        -> CLLocationUpdate.Updates
    {
        CLLocationUpdate.Updates(
            context: context, configuration: configuration ?? activityType.activity,
            reduced: desiredAccuracy == kCLLocationAccuracyReduced, continuous: continuous,
            implicitSession: false)
    }

    /// How long ``requestLocation()`` waits for a position before it fails.
    var requestLocationTimeout: Duration = .seconds(15)

    /// Delivers one location to the delegate, or `locationManager(_:didFailWithError:)` with
    /// `CLError.denied` when the app may not have one, or `CLError.locationUnknown` when none came
    /// within 15 s. Like Apple's, it asks for nothing: call `request…Authorization()` first.
    open func requestLocation() {
        let updates = locationUpdates(continuous: false)
        let timeout = requestLocationTimeout
        let task = Task { [weak self] in
            let outcome = await withTaskGroup(of: OneShot.self) { group -> OneShot in
                group.addTask {
                    do {
                        for try await update in updates {
                            if let location = update.location { return .location(location) }
                            if update.authorizationDenied || update.authorizationDeniedGlobally
                                || update.authorizationRestricted
                            {
                                return .failed(CLError(.denied, "location access is denied"))
                            }
                        }
                    } catch {}
                    return .failed(CLError(.locationUnknown, "the receiver ended without a position"))
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return .failed(CLError(.locationUnknown, "no position within \(timeout)"))
                }
                let first = await group.next()!
                group.cancelAll()
                return first
            }
            guard let self, !Task.isCancelled else { return }
            if case .location(let location) = outcome { self.state.withLock { $0.location = location } }
            await MainActor.run {
                guard let delegate = self.delegate else { return }
                switch outcome {
                case .location(let location): delegate.locationManager(self, didUpdateLocations: [location])
                case .failed(let error): delegate.locationManager(self, didFailWithError: error)
                }
            }
        }
        let old = state.withLock { state -> Task<Void, Never>? in
            defer { state.requesting = task }
            return state.requesting
        }
        old?.cancel()
    }

    private enum OneShot: Sendable {
        case location(CLLocation)
        case failed(CLError)
    }

    open func stopUpdatingLocation() {
        let (task, background) = state.withLock {
            state -> (Task<Void, Never>?, CLBackgroundActivitySession?) in
            defer {
                state.updating = nil
                state.background = nil
            }
            return (state.updating, state.background)
        }
        task?.cancel()
        background?.invalidate()
    }

    /// The smallest change of heading, degrees, that is delivered; `kCLHeadingFilterNone` for all.
    public var headingFilter: CLLocationDirection = 1
    /// Kept for code that sets it: a receiver's heading does not depend on how a device is held.
    public var headingOrientation: CLDeviceOrientation = .portrait
    /// The most recent heading delivered to the delegate.
    public var heading: CLHeading? { state.withLock { $0.heading } }
    /// How long ``startUpdatingHeading()`` waits for a first heading before it tells the delegate
    /// `CLError.headingFailure` (it goes on waiting).
    var headingTimeout: Duration = .seconds(15)

    /// Delivers the receiver's heading (`$--HDT` or `$--THS`) to `locationManager(_:didUpdateHeading:)`
    /// whenever it changes by ``headingFilter`` or more. A receiver that sends none gets
    /// `didFailWithError` with `CLError.headingFailure` after 15 s. Heading is a precise value: an
    /// app with approximate locations gets none.
    open func startUpdatingHeading() {
        let updates = locationUpdates(continuous: true, configuration: .default)
        let timeout = headingTimeout
        let task = Task { [weak self] in
            let watchdog = Task { [weak self] in
                try await Task.sleep(for: timeout)
                guard let self, self.heading == nil else { return }
                await MainActor.run {
                    self.delegate?.locationManager(
                        self,
                        didFailWithError: CLError(
                            .headingFailure, "the receiver sends no heading (HDT or THS)"))
                }
            }
            defer { watchdog.cancel() }
            do {
                for try await update in updates {
                    guard let self else { return }
                    guard let heading = update.location?.heading else { continue }
                    let filter = self.headingFilter
                    let send = self.state.withLock { state -> Bool in
                        if filter > 0, let last = state.heading {
                            var change = abs(heading.trueHeading - last.trueHeading)
                            if change > 180 { change = 360 - change }
                            if change < filter { return false }
                        }
                        state.heading = heading
                        return true
                    }
                    guard send else { continue }
                    watchdog.cancel()
                    await MainActor.run { self.delegate?.locationManager(self, didUpdateHeading: heading) }
                }
            } catch {}
        }
        let old = state.withLock { state -> Task<Void, Never>? in
            defer { state.headingUpdates = task }
            return state.headingUpdates
        }
        old?.cancel()
    }

    open func stopUpdatingHeading() {
        state.withLock { state -> Task<Void, Never>? in
            defer { state.headingUpdates = nil }
            return state.headingUpdates
        }?.cancel()
    }

    /// Nothing to dismiss: a receiver's heading needs no calibration display.
    open func dismissHeadingCalibrationDisplay() {}

    private func deliver(_ update: CLLocationUpdate) async {
        let filter = distanceFilter
        let pauses = pausesLocationUpdatesAutomatically
        // What to tell: the location unless the distance filter holds it back, and whether
        // updates resume (a location after a pause) or pause (the device became still).
        let (send, resumed, paused) = state.withLock { state -> (Bool, Bool, Bool) in
            guard let location = update.location else { return (false, false, false) }
            state.location = location
            let resumed = state.paused
            state.paused = pauses && update.stationary
            if filter > 0, let last = state.delivered, location.distance(from: last) < filter {
                return (false, resumed, state.paused)
            }
            state.delivered = location
            return (true, resumed, state.paused)
        }
        await MainActor.run {
            guard let delegate = self.delegate else { return }
            if resumed { delegate.locationManagerDidResumeLocationUpdates(self) }
            if let location = update.location {
                if send { delegate.locationManager(self, didUpdateLocations: [location]) }
                if paused { delegate.locationManagerDidPauseLocationUpdates(self) }
            } else if update.authorizationDenied || update.authorizationDeniedGlobally
                || update.authorizationRestricted
            {
                delegate.locationManager(
                    self, didFailWithError: CLError(.denied, "location access is denied"))
            } else if update.locationUnavailable {
                delegate.locationManager(
                    self, didFailWithError: CLError(.locationUnknown, "the receiver has no position"))
            }
        }
    }
}
