// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine

/// The error domain of Core Location's errors, as `NSError` bridging reports it.
public let kCLErrorDomain = "kCLErrorDomain"
/// The user-info key of an alternate region (region monitoring), as Core Location names it.
public let kCLErrorUserInfoAlternateRegionKey = "alternateRegion"

/// Errors of the location service, with Core Location's codes, domain and matching:
/// `catch CLError.denied`, `switch error.code { case .locationUnknown: … }` and
/// `(error as NSError).domain == kCLErrorDomain` work as on Apple platforms.
public struct CLError: Error, @unchecked Sendable, Hashable, CustomStringConvertible, CustomNSError {
    /// Apple's codes, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case locationUnknown = 0
        case denied = 1
        case network = 2
        case headingFailure = 3
        case regionMonitoringDenied = 4
        case regionMonitoringFailure = 5
        case regionMonitoringSetupDelayed = 6
        case regionMonitoringResponseDelayed = 7
        case geocodeFoundNoResult = 8
        case geocodeFoundPartialResult = 9
        case geocodeCanceled = 10
        case deferredFailed = 11
        case deferredNotUpdatingLocation = 12
        case deferredAccuracyTooLow = 13
        case deferredDistanceFiltered = 14
        case deferredCanceled = 15
        case rangingUnavailable = 16
        case rangingFailure = 17
        case promptDeclined = 18
        case historicalLocationError = 19

        /// `catch CLError.denied`: whether `error` is a ``CLError`` with this code (or an
        /// `NSError` of ``kCLErrorDomain`` with it).
        public static func ~= (code: Code, error: any Error) -> Bool {
            if let error = error as? CLError { return error.code == code }
            let bridged = error as NSError
            return bridged.domain == kCLErrorDomain && bridged.code == code.rawValue
        }
    }

    public var code: Code
    /// What went wrong, for a person to read.
    public var reason: String
    public var userInfo: [String: Any]

    /// An error with Core Location's initializer; its reason is the user info's
    /// `NSLocalizedDescriptionKey` when there is one.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
        reason = userInfo[NSLocalizedDescriptionKey] as? String ?? "\(code)"
    }

    /// An error with the reason said in words.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
        userInfo = [NSLocalizedDescriptionKey: reason]
    }

    public var description: String { "CLError.\(code) (\(code.rawValue)): \(reason)" }

    public static var errorDomain: String { kCLErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        userInfo.merging([NSLocalizedDescriptionKey: reason]) { a, _ in a }
    }

    public static func == (a: CLError, b: CLError) -> Bool { a.code == b.code && a.reason == b.reason }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(reason)
    }

    public static var locationUnknown: Code { .locationUnknown }
    public static var denied: Code { .denied }
    public static var network: Code { .network }
    public static var headingFailure: Code { .headingFailure }
    public static var regionMonitoringDenied: Code { .regionMonitoringDenied }
    public static var regionMonitoringFailure: Code { .regionMonitoringFailure }
    public static var regionMonitoringSetupDelayed: Code { .regionMonitoringSetupDelayed }
    public static var regionMonitoringResponseDelayed: Code { .regionMonitoringResponseDelayed }
    public static var geocodeFoundNoResult: Code { .geocodeFoundNoResult }
    public static var geocodeFoundPartialResult: Code { .geocodeFoundPartialResult }
    public static var geocodeCanceled: Code { .geocodeCanceled }
    public static var deferredFailed: Code { .deferredFailed }
    public static var deferredNotUpdatingLocation: Code { .deferredNotUpdatingLocation }
    public static var deferredAccuracyTooLow: Code { .deferredAccuracyTooLow }
    public static var deferredDistanceFiltered: Code { .deferredDistanceFiltered }
    public static var deferredCanceled: Code { .deferredCanceled }
    public static var rangingUnavailable: Code { .rangingUnavailable }
    public static var rangingFailure: Code { .rangingFailure }
    public static var promptDeclined: Code { .promptDeclined }
    public static var historicalLocationError: Code { .historicalLocationError }
}
