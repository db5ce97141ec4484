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

    /// Reads an `Info.plist` (XML or binary property list).
    public init(contentsOf path: String) throws(LoadError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(
                path: path, reason: "the file does not exist or is not readable; pass the app's Info.plist")
        }
        try self.init(propertyList: data, path: path)
    }

    /// Reads an `Info.plist` from its bytes.
    public init(propertyList data: Data, path: String = "Info.plist") throws(LoadError) {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw LoadError(path: path, reason: "not a property list (\(error.localizedDescription))")
        }
        guard let dictionary = object as? [String: Any] else {
            throw LoadError(path: path, reason: "the top level is not a dictionary")
        }
        func string(_ key: String) throws(LoadError) -> String? {
            guard let value = dictionary[key] else { return nil }
            guard let text = value as? String else {
                throw LoadError(path: path, reason: "\(key) must be a string")
            }
            return text
        }
        func bool(_ key: String) throws(LoadError) -> Bool {
            guard let value = dictionary[key] else { return false }
            if let flag = value as? Bool { return flag }
            if let number = value as? NSNumber { return number.boolValue }
            throw LoadError(path: path, reason: "\(key) must be <true/> or <false/>")
        }
        whenInUseUsageDescription = try string("NSLocationWhenInUseUsageDescription")
        alwaysUsageDescription = try string("NSLocationAlwaysAndWhenInUseUsageDescription")
        var purposes: [String: String] = [:]
        if let value = dictionary["NSLocationTemporaryUsageDescriptionDictionary"] {
            guard let entries = value as? [String: Any] else {
                throw LoadError(
                    path: path,
                    reason: "NSLocationTemporaryUsageDescriptionDictionary must be a dictionary")
            }
            for (key, reason) in entries {
                guard let reason = reason as? String else {
                    throw LoadError(
                        path: path,
                        reason: "NSLocationTemporaryUsageDescriptionDictionary.\(key) must be a string")
                }
                purposes[key] = reason
            }
        }
        temporaryUsageDescriptions = purposes
        defaultAccuracyReduced = try bool("NSLocationDefaultAccuracyReduced")
        requiresExplicitServiceSession = try bool("NSLocationRequireExplicitServiceSession")
    }
}
