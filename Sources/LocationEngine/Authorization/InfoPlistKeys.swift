// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The keys of an `Info.plist` that OpenCoreLocation reads: the manifest's location keys and the
/// daemon's registration keys, each with its type checked.
///
/// The list is read with Foundation's `PropertyListDecoder`, in its XML form only: on Linux both
/// of Foundation's binary readers crash the process on some damaged binary lists (the fuzzer found
/// a set where a dictionary belongs for `PropertyListSerialization`, a string running past the
/// end for `PropertyListDecoder`), and an `Info.plist` in `apps.d` is read by the daemon. Only the
/// keys named here are decoded; whatever else the file holds is never turned into values.
package struct InfoPlistKeys: Decodable, Sendable {
    package var bundleIdentifier: String?
    package var whenInUseUsageDescription: String?
    package var alwaysUsageDescription: String?
    package var temporaryUsageDescriptions: [String: String]?
    package var defaultAccuracyReduced: Bool?
    package var requiresExplicitServiceSession: Bool?
    package var executables: [String]?
    package var units: [String]?
    package var userUnits: [String]?
    package var snaps: [String]?
    package var flatpaks: [String]?

    /// A key of the wrong type; its text says which key and what it should be.
    package struct KeyError: Error {
        package var reason: String
    }

    /// Reads the keys of a property list's bytes; the reason says what is wrong, for a message
    /// that names the file.
    package static func read(_ data: Data) throws(KeyError) -> InfoPlistKeys {
        // Foundation's binary readers trap on damaged lists (PropertyListSerialization with a set
        // where a dictionary belongs, PropertyListDecoder with a string running past the end): a
        // process cannot survive one. Binary lists are refused; an Info.plist written by hand, or
        // for this platform, is XML.
        if data.starts(with: Array("bplist".utf8)) {
            throw KeyError(
                reason: "it is a binary property list, which is not read here (a damaged one would crash "
                    + "Foundation's reader); write it as XML: plistutil -i FILE -f xml (Debian's "
                    + "libplist-utils) or python3 -c 'import plistlib,sys; sys.stdout.buffer.write("
                    + "plistlib.dumps(plistlib.load(open(sys.argv[1],\"rb\"))))' FILE")
        }
        do {
            return try PropertyListDecoder().decode(InfoPlistKeys.self, from: data)
        } catch let error as KeyError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw KeyError(reason: "the top level is not a dictionary")
        } catch let DecodingError.dataCorrupted(context) {
            throw KeyError(reason: "not a property list (\(context.debugDescription))")
        } catch {
            throw KeyError(reason: "not a property list (\(error))")
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func value<T: Decodable>(_ name: String, _ type: T.Type, _ expected: String) throws -> T? {
            let key = Key(name)
            guard container.contains(key) else { return nil }
            do {
                return try container.decode(type, forKey: key)
            } catch {
                throw KeyError(reason: "\(name) must be \(expected)")
            }
        }
        func flag(_ name: String) throws -> Bool? {
            let key = Key(name)
            guard container.contains(key) else { return nil }
            if let flag = try? container.decode(Bool.self, forKey: key) { return flag }
            if let number = try? container.decode(Int.self, forKey: key) { return number != 0 }
            throw KeyError(reason: "\(name) must be <true/> or <false/>")
        }
        bundleIdentifier = try value("CFBundleIdentifier", String.self, "a string")
        whenInUseUsageDescription = try value("NSLocationWhenInUseUsageDescription", String.self, "a string")
        alwaysUsageDescription = try value(
            "NSLocationAlwaysAndWhenInUseUsageDescription", String.self, "a string")
        temporaryUsageDescriptions = try value(
            "NSLocationTemporaryUsageDescriptionDictionary", [String: String].self,
            "a dictionary of strings (purpose key → reason)")
        defaultAccuracyReduced = try flag("NSLocationDefaultAccuracyReduced")
        requiresExplicitServiceSession = try flag("NSLocationRequireExplicitServiceSession")
        executables = try value("OpenCoreLocationExecutables", [String].self, "an array of strings")
        units = try value("OpenCoreLocationUnits", [String].self, "an array of strings")
        userUnits = try value("OpenCoreLocationUserUnits", [String].self, "an array of strings")
        snaps = try value("OpenCoreLocationSnaps", [String].self, "an array of strings")
        flatpaks = try value("OpenCoreLocationFlatpaks", [String].self, "an array of strings")
    }
}
