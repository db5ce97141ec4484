// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import Synchronization

/// What a location manager runs besides `startUpdatingLocation()`: significant-change
/// monitoring, visits and region monitoring.
struct ManagerServices: Sendable {
    var significantChanges: Task<Void, Never>?
    var visits: Task<Void, Never>?
    /// The monitor behind region monitoring, opened on first use, and its events' loop.
    var regionMonitor: Task<CLMonitor, Never>?
    var regionEvents: Task<Void, Never>?
    /// The regions monitored, by identifier.
    var regions: [String: CLRegion] = [:]

    mutating func cancelAll() {
        significantChanges?.cancel()
        visits?.cancel()
        regionEvents?.cancel()
        significantChanges = nil
        visits = nil
        regionEvents = nil
    }
}

extension CLLocationManager {
    /// Movement that counts as a significant change, metres.
    public static let significantChangeDistance: CLLocationDistance = 500
    /// The least time between two significant changes, seconds of fix time.
    public static let significantChangeInterval: TimeInterval = 300
    /// How far a visit's fixes may wander, metres, and how long the device must stay, seconds.
    static let visitTuning = StationaryDetector.Tuning(radius: 100, duration: 300, speed: 1)
    /// The name of the monitor that holds the regions of `startMonitoring(for:)`.
    static let regionMonitorName = "CLLocationManager.regions"

    // MARK: Significant changes

    /// Delivers a location to `locationManager(_:didUpdateLocations:)` now and then each time the
    /// device has moved 500 m from the last one delivered, at most once every five minutes of
    /// fix time, as Apple documents its significant-change service. Like the other delegate
    /// services it asks for nothing: call `request…Authorization()` first.
    public func startMonitoringSignificantLocationChanges() {
        let updates = locationUpdates(continuous: true, configuration: .default)
        let task = Task { [weak self] in
            var last: CLLocation?
            var failed = false
            do {
                for try await update in updates {
                    guard let self else { return }
                    guard let location = update.location else {
                        if !failed,
                            update.authorizationDenied || update.authorizationDeniedGlobally
                                || update.authorizationRestricted
                        {
                            failed = true
                            await self.tellDelegate {
                                $0.locationManager(
                                    $1, didFailWithError: CLError(.denied, "location access is denied"))
                            }
                        }
                        continue
                    }
                    failed = false
                    if let last,
                        location.distance(from: last) < Self.significantChangeDistance
                            || location.timestamp.timeIntervalSince(last.timestamp)
                                < Self.significantChangeInterval
                    {
                        continue
                    }
                    last = location
                    self.noteDelivered(location)
                    await self.tellDelegate { $0.locationManager($1, didUpdateLocations: [location]) }
                }
            } catch {}
        }
        services.withLock { services in
            services.significantChanges?.cancel()
            services.significantChanges = task
        }
    }

    public func stopMonitoringSignificantLocationChanges() {
        services.withLock { services in
            services.significantChanges?.cancel()
            services.significantChanges = nil
        }
    }

    // MARK: Visits

    /// Tells `locationManager(_:didVisit:)` when the device arrives at a place (it stays within
    /// 100 m for five minutes of fix time) and when it leaves, from the same stillness detection
    /// that pauses updates.
    public func startMonitoringVisits() {
        let updates = locationUpdates(continuous: true, configuration: .default)
        let task = Task { [weak self] in
            var detector = StationaryDetector(tuning: Self.visitTuning)
            var current: CLVisit?
            var lastStill: CLLocation?
            do {
                for try await update in updates {
                    guard let self else { return }
                    guard let location = update.location, location.horizontalAccuracy >= 0 else { continue }
                    switch detector.observe(location.engineLocation) {
                    case .becameStationary:
                        guard let anchor = detector.anchor else { continue }
                        let visit = CLVisit(
                            arrivalDate: anchor.timestamp, departureDate: .distantFuture,
                            coordinate: CLLocationCoordinate2D(
                                latitude: anchor.coordinate.latitude, longitude: anchor.coordinate.longitude),
                            horizontalAccuracy: max(Self.visitTuning.radius, anchor.horizontalAccuracy))
                        current = visit
                        lastStill = location
                        await self.tellDelegate { $0.locationManager($1, didVisit: visit) }
                    case .silent:
                        lastStill = location
                    case .deliver:
                        guard let arrived = current else { continue }
                        let visit = CLVisit(
                            arrivalDate: arrived.arrivalDate,
                            departureDate: (lastStill ?? location).timestamp,
                            coordinate: arrived.coordinate, horizontalAccuracy: arrived.horizontalAccuracy)
                        current = nil
                        await self.tellDelegate { $0.locationManager($1, didVisit: visit) }
                    }
                }
            } catch {}
        }
        services.withLock { services in
            services.visits?.cancel()
            services.visits = task
        }
    }

    public func stopMonitoringVisits() {
        services.withLock { services in
            services.visits?.cancel()
            services.visits = nil
        }
    }

    // MARK: Regions

    /// The regions being monitored: those started in this process, and those a `CLMonitor` kept
    /// from earlier runs once region monitoring has started.
    public var monitoredRegions: Set<CLRegion> { Set(services.withLock { $0.regions.values }) }

    /// The largest radius a monitored region may have, metres.
    public var maximumRegionMonitoringDistance: CLLocationDistance { 400_000 }

    /// Monitors `region`: `locationManager(_:didEnterRegion:)` and `didExitRegion` on crossings
    /// (as its `notifyOnEntry` and `notifyOnExit` say), `didDetermineState` with each new state.
    /// A region with the identifier of one monitored already replaces it. The regions live in a
    /// `CLMonitor` of the app's, so they survive restarts; like `CLMonitor`, at most 20 are
    /// watched at once, and one more fails with `CLError.regionMonitoringFailure`.
    public func startMonitoring(for region: CLRegion) {
        guard let circle = region as? CLCircularRegion else {
            fail(region, "only circular regions can be monitored (beacon regions need Bluetooth hardware)")
            return
        }
        guard circle.radius > 0, circle.radius <= maximumRegionMonitoringDistance,
            CLLocationCoordinate2DIsValid(circle.center)
        else {
            fail(
                region,
                "a region needs a valid centre and a radius of 0 to \(Int(maximumRegionMonitoringDistance)) m"
            )
            return
        }
        let kept = circle.copy() as! CLCircularRegion
        let monitor = regionMonitor()
        services.withLock { $0.regions[region.identifier] = kept }
        Task { [weak self] in
            let monitor = await monitor.value
            await monitor.add(
                CLMonitor.CircularGeographicCondition(center: kept.center, radius: kept.radius),
                identifier: kept.identifier)
            await self?.tellDelegate { $0.locationManager($1, didStartMonitoringFor: kept) }
        }
    }

    /// Stops monitoring `region` (the one with its identifier).
    public func stopMonitoring(for region: CLRegion) {
        let monitor = regionMonitor()
        services.withLock { $0.regions[region.identifier] = nil }
        Task { await monitor.value.remove(region.identifier) }
    }

    /// Tells `locationManager(_:didDetermineState:for:)` where the device is with respect to a
    /// monitored region, as last determined.
    public func requestState(for region: CLRegion) {
        let monitor = regionMonitor()
        Task { [weak self] in
            let record = await monitor.value.record(for: region.identifier)
            let state: CLRegionState =
                switch record?.lastEvent.state {
                case .satisfied: .inside
                case .unsatisfied: .outside
                default: .unknown
                }
            await self?.tellDelegate { $0.locationManager($1, didDetermineState: state, for: region) }
        }
    }

    private func fail(_ region: CLRegion?, _ reason: String) {
        Task { [weak self] in
            await self?.tellDelegate {
                $0.locationManager(
                    $1, monitoringDidFailFor: region, withError: CLError(.regionMonitoringFailure, reason))
            }
        }
    }

    /// The monitor behind the regions, opened the first time, with its events' loop started.
    private func regionMonitor() -> Task<CLMonitor, Never> {
        services.withLock { services in
            if let monitor = services.regionMonitor { return monitor }
            let context = self.context
            let opening = Task {
                await LocationContext.withContext(context) { await CLMonitor(Self.regionMonitorName) }
            }
            services.regionMonitor = opening
            services.regionEvents = Task { [weak self] in
                let monitor = await opening.value
                await self?.adoptKeptRegions(monitor)
                do {
                    for try await event in await monitor.events {
                        guard let self else { return }
                        await self.regionEvent(event)
                    }
                } catch {}
            }
            return opening
        }
    }

    /// The regions an earlier run left in the monitor join those of this run.
    private func adoptKeptRegions(_ monitor: CLMonitor) async {
        for identifier in await monitor.identifiers {
            guard let record = await monitor.record(for: identifier),
                let circle = record.condition as? CLMonitor.CircularGeographicCondition
            else { continue }
            services.withLock { services in
                if services.regions[identifier] == nil {
                    services.regions[identifier] = CLCircularRegion(
                        center: circle.center, radius: circle.radius, identifier: identifier)
                }
            }
        }
    }

    private func regionEvent(_ event: CLMonitor.Event) async {
        guard let region = services.withLock({ $0.regions[event.identifier] }) else { return }
        switch event.state {
        case .satisfied:
            await tellDelegate { delegate, manager in
                delegate.locationManager(manager, didDetermineState: .inside, for: region)
                if region.notifyOnEntry { delegate.locationManager(manager, didEnterRegion: region) }
            }
        case .unsatisfied:
            await tellDelegate { delegate, manager in
                delegate.locationManager(manager, didDetermineState: .outside, for: region)
                if region.notifyOnExit { delegate.locationManager(manager, didExitRegion: region) }
            }
        case .unmonitored where event.conditionLimitExceeded:
            fail(region, "more than \(CLMonitor.maximumGeographicConditions) regions are monitored")
        default:
            break
        }
    }
}
