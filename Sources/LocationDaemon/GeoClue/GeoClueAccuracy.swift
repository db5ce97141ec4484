// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine
import LocationWire

/// GeoClue's accuracy levels (`GClueAccuracyLevel`) and what each means under gpslocd's decisions.
/// A level is a ceiling the decision can only lower: up to CITY a client gets its app's reduced
/// locations, whatever the decision allows; above it, precise ones where the decision allows them.
enum GeoClueAccuracy {
    static let none: UInt32 = 0
    static let country: UInt32 = 1
    static let city: UInt32 = 4
    static let neighborhood: UInt32 = 5
    static let street: UInt32 = 6
    static let exact: UInt32 = 8

    /// Whether a client asking for `level` is given reduced locations even where precise ones
    /// are allowed.
    static func asksReduced(_ level: UInt32) -> Bool { level <= city }

    /// What `AvailableAccuracyLevel` says to an app under `decision` (`nil`: none recorded):
    /// EXACT for precise, CITY for approximate, NONE when denied or location is off. An app
    /// not yet decided may still be granted EXACT.
    static func available(_ decision: ClientAuthorization?, servicesEnabled: Bool, restricted: Bool) -> UInt32
    {
        guard servicesEnabled, !restricted else { return none }
        guard let decision else { return exact }
        switch decision.decision {
        case .denied: return none
        case .notDetermined: return exact
        case .whenInUse, .always: return decision.precise ? exact : city
        }
    }

    /// An agent's `AuthorizeApp` answer as the answer to gpslocd's first question: EXACT is
    /// precise, any level from COUNTRY up approximate, NONE or a refusal Don't Allow.
    static func answer(authorized: Bool, level: UInt32) -> WireAnswer {
        guard authorized, level > none else { return .deny }
        return level >= exact ? .allowWhileUsing : .allowWhileUsingApproximate
    }

    /// The level's name, for messages.
    static func name(_ level: UInt32) -> String {
        switch level {
        case none: "NONE"
        case country: "COUNTRY"
        case city: "CITY"
        case neighborhood: "NEIGHBORHOOD"
        case street: "STREET"
        case exact: "EXACT"
        default: "\(level)"
        }
    }
}
