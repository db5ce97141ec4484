// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An app's declarations about location, read from an `Info.plist` as on Apple platforms.
///
/// The keys are Apple's: `NSLocationWhenInUseUsageDescription`,
/// `NSLocationAlwaysAndWhenInUseUsageDescription`, `NSLocationTemporaryUsageDescriptionDictionary`
/// (purpose key → reason), `NSLocationDefaultAccuracyReduced` and
/// `NSLocationRequireExplicitServiceSession`.
public struct Manifest: Sendable, Hashable {
    public var whenInUseUsageDescription: String?
    public var alwaysUsageDescription: String?
    /// Reasons for temporary full accuracy, by purpose key.
    public var temporaryUsageDescriptions: [String: String]
    /// The first prompt offers approximate location by default.
    public var defaultAccuracyReduced: Bool
    /// Iterating updates does not act as an implicit session; an explicit one is needed.
    public var requiresExplicitServiceSession: Bool

    public init(
        whenInUseUsageDescription: String? = nil, alwaysUsageDescription: String? = nil,
        temporaryUsageDescriptions: [String: String] = [:], defaultAccuracyReduced: Bool = false,
        requiresExplicitServiceSession: Bool = false
    ) {
        self.whenInUseUsageDescription = whenInUseUsageDescription
        self.alwaysUsageDescription = alwaysUsageDescription
        self.temporaryUsageDescriptions = temporaryUsageDescriptions
        self.defaultAccuracyReduced = defaultAccuracyReduced
        self.requiresExplicitServiceSession = requiresExplicitServiceSession
    }

    /// Why a manifest could not be read.
    public struct LoadError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot read the manifest \(path): \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Reads an `Info.plist` (an XML property list; a binary one is refused with how to convert it).
    public init(contentsOf path: String) throws(LoadError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(
                path: path, reason: "the file does not exist or is not readable; pass the app's Info.plist")
        }
        try self.init(propertyList: data, path: path)
    }

    /// Reads an `Info.plist` from its bytes.
    public init(propertyList data: Data, path: String = "Info.plist") throws(LoadError) {
        let keys: InfoPlistKeys
        do {
            keys = try InfoPlistKeys.read(data)
        } catch {
            throw LoadError(path: path, reason: error.reason)
        }
        self.init(keys)
    }

    /// The manifest of keys already read.
    package init(_ keys: InfoPlistKeys) {
        whenInUseUsageDescription = keys.whenInUseUsageDescription
        alwaysUsageDescription = keys.alwaysUsageDescription
        temporaryUsageDescriptions = keys.temporaryUsageDescriptions ?? [:]
        defaultAccuracyReduced = keys.defaultAccuracyReduced ?? false
        requiresExplicitServiceSession = keys.requiresExplicitServiceSession ?? false
    }
}
