// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import LocationEngine

// How the engine's values cross the daemon's socket, both ways: gpslocd writes what an app's
// engine decided for it, the library in client mode reads it back into the same values.

extension LocationUpdate {
    /// The update as gpslocd's wire protocol carries it.
    @_spi(FrontEnd) public var wire: WireUpdate {
        WireUpdate(
            flags: flags.setNames, stationary: isStationary, unavailable: locationUnavailable,
            location: location.map(\.wire))
    }

    package init(wire: WireUpdate) {
        self.init(
            location: wire.location.map(Location.init(wire:)),
            flags: AuthorizationFlags(named: wire.flags),
            stationary: wire.stationary, unavailable: wire.unavailable)
    }
}

extension Location {
    package var wire: WireLocation {
        WireLocation(
            latitude: coordinate.latitude, longitude: coordinate.longitude, altitude: altitude,
            ellipsoidalAltitude: ellipsoidalAltitude, horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: verticalAccuracy, speed: speed, speedAccuracy: speedAccuracy, course: course,
            courseAccuracy: courseAccuracy, time: timestamp.timeIntervalSince1970,
            heading: heading?.trueHeading, magneticHeading: heading?.magneticHeading,
            simulated: source?.isSimulatedBySoftware == true ? true : nil)
    }

    package init(wire: WireLocation) {
        var heading: Heading?
        if let trueHeading = wire.heading, trueHeading.isFinite, (0..<360).contains(trueHeading) {
            let magnetic = wire.magneticHeading.flatMap { $0.isFinite ? $0 : nil } ?? trueHeading
            heading = Heading(trueHeading: trueHeading, magneticVariation: trueHeading - magnetic)
        }
        self.init(
            coordinate: Coordinate(latitude: wire.latitude, longitude: wire.longitude),
            horizontalAccuracy: wire.horizontalAccuracy, timestamp: Date(timeIntervalSince1970: wire.time))
        altitude = wire.altitude
        ellipsoidalAltitude = wire.ellipsoidalAltitude
        verticalAccuracy = wire.verticalAccuracy
        course = wire.course
        courseAccuracy = wire.courseAccuracy
        speed = wire.speed
        speedAccuracy = wire.speedAccuracy
        source = Source(isSimulatedBySoftware: wire.simulated ?? false, isProducedByAccessory: true)
        self.heading = heading
    }
}

extension AccuracyRequestRefusal {
    /// `code:reason`, the form an accuracy answer carries: the code is Core Location's
    /// (`CLError.Code`: 1 denied, 18 prompt declined).
    package var wireText: String { "\(reason == .promptDeclined ? 18 : 1):\(message)" }

    /// The refusal an accuracy answer's `code:reason` carries; any code but 18 is a denial.
    package init(wireText text: String) {
        let parts = text.split(separator: ":", maxSplits: 1)
        self.init(parts.first == "18" ? .promptDeclined : .denied, parts.count > 1 ? String(parts[1]) : text)
    }
}

extension WireLevel {
    package init(_ level: SessionLevel) {
        switch level {
        case .none: self = .none
        case .whenInUse: self = .whenInUse
        case .always: self = .always
        }
    }

    package var sessionLevel: SessionLevel {
        switch self {
        case .none: .none
        case .whenInUse: .whenInUse
        case .always: .always
        }
    }
}

extension PromptAnswer {
    /// What an agent's answer means; `nil` for a prompt dismissed without an answer.
    package init?(wire: WireAnswer) {
        switch wire {
        case .allowOnce: self = .allowOnce(precise: true)
        case .allowOnceApproximate: self = .allowOnce(precise: false)
        case .allowWhileUsing: self = .allowWhileUsing(precise: true)
        case .allowWhileUsingApproximate: self = .allowWhileUsing(precise: false)
        case .allowAlways: self = .allowAlways
        case .allowFullAccuracy: self = .allowFullAccuracy
        case .deny: self = .deny
        case .dismiss: return nil
        }
    }
}

extension AuthorizationSnapshot {
    /// Makes an administrator's change.
    public mutating func apply(_ change: AuthorizationChange) {
        switch change {
        case .grant(let app, let always, let approximate, let once):
            self[app].decision = always ? .always : .whenInUse
            self[app].precise = !approximate
            self[app].once = once
            self[app].pendingRequest = nil
            if always { self[app].alwaysPrompted = true }
        case .deny(let app):
            self[app].decision = .denied
            self[app].once = false
            self[app].pendingRequest = nil
        case .reset(let app):
            if let app { clients[app] = nil } else { clients = [:] }
        case .services(let enabled):
            servicesEnabled = enabled
        case .restrict(let app, let lift):
            restrictedClients.removeAll { $0 == app }
            if !lift { restrictedClients.append(app) }
        }
    }
}

extension ClientAuthorization {
    /// The decision in words, as `gpsloc auth show` prints it.
    public var summary: String {
        var words: [String] = []
        switch decision {
        case .notDetermined: words.append("not determined")
        case .denied: words.append("denied")
        case .whenInUse: words.append(once ? "when in use, once" : "when in use")
        case .always: words.append("always")
        }
        if decision == .whenInUse || decision == .always {
            words.append(precise ? "precise" : "approximate")
        }
        if alwaysPrompted && decision != .always { words.append("Always declined") }
        if let pendingRequest { words.append("request pending: \(pendingRequest.rawValue)") }
        return words.joined(separator: ", ")
    }
}
