// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the user or an administrator decided for one app (client).
public struct ClientAuthorization: Codable, Sendable, Hashable {
    public enum Decision: String, Codable, Sendable, Hashable, CaseIterable {
        case notDetermined, denied, whenInUse, always
    }

    public var decision: Decision
    /// Precise (full accuracy) rather than approximate locations.
    public var precise: Bool
    /// "Allow Once": when-in-use that lapses when the app stops being in use.
    public var once: Bool
    /// The single When-In-Use → Always upgrade prompt has been shown.
    public var alwaysPrompted: Bool
    /// A request waiting for an answer given later with `gpsloc auth grant|deny`.
    public var pendingRequest: PromptRequest.Kind?

    public init(
        decision: Decision = .notDetermined, precise: Bool = true, once: Bool = false,
        alwaysPrompted: Bool = false, pendingRequest: PromptRequest.Kind? = nil
    ) {
        self.decision = decision
        self.precise = precise
        self.once = once
        self.alwaysPrompted = alwaysPrompted
        self.pendingRequest = pendingRequest
    }

    enum CodingKeys: String, CodingKey {
        case decision, precise, once, alwaysPrompted, pendingRequest
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        decision = try c.decodeIfPresent(Decision.self, forKey: .decision) ?? .notDetermined
        precise = try c.decodeIfPresent(Bool.self, forKey: .precise) ?? true
        once = try c.decodeIfPresent(Bool.self, forKey: .once) ?? false
        alwaysPrompted = try c.decodeIfPresent(Bool.self, forKey: .alwaysPrompted) ?? false
        pendingRequest = try c.decodeIfPresent(PromptRequest.Kind.self, forKey: .pendingRequest)
    }
}

/// Everything the authorization store holds: the global switch, the restrictions policy and
/// each client's decisions.
public struct AuthorizationSnapshot: Codable, Sendable, Hashable {
    /// The global "location services" switch.
    public var servicesEnabled: Bool
    /// Administrator restrictions: every client, or the listed ones, cannot use location and
    /// cannot change that.
    public var restrictAll: Bool
    public var restrictedClients: [String]
    public var clients: [String: ClientAuthorization]

    public init(
        servicesEnabled: Bool = true, restrictAll: Bool = false, restrictedClients: [String] = [],
        clients: [String: ClientAuthorization] = [:]
    ) {
        self.servicesEnabled = servicesEnabled
        self.restrictAll = restrictAll
        self.restrictedClients = restrictedClients
        self.clients = clients
    }

    public func isRestricted(_ client: String) -> Bool {
        restrictAll || restrictedClients.contains(client)
    }

    public subscript(client: String) -> ClientAuthorization {
        get { clients[client] ?? ClientAuthorization() }
        set { clients[client] = newValue }
    }

    enum CodingKeys: String, CodingKey {
        case version, servicesEnabled, restrictAll, restrictedClients, clients
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        servicesEnabled = try c.decodeIfPresent(Bool.self, forKey: .servicesEnabled) ?? true
        restrictAll = try c.decodeIfPresent(Bool.self, forKey: .restrictAll) ?? false
        restrictedClients = try c.decodeIfPresent([String].self, forKey: .restrictedClients) ?? []
        clients = try c.decodeIfPresent([String: ClientAuthorization].self, forKey: .clients) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(1, forKey: .version)
        try c.encode(servicesEnabled, forKey: .servicesEnabled)
        try c.encode(restrictAll, forKey: .restrictAll)
        try c.encode(restrictedClients, forKey: .restrictedClients)
        try c.encode(clients, forKey: .clients)
    }
}

/// The system's location decisions on disk: one JSON file, per user.
///
/// The file is `authorization.json` in the store's directory: by default
/// `$OPENCORELOCATION_STATE_DIR`, else `$XDG_STATE_HOME/opencorelocation`, else
/// `~/.local/state/opencorelocation`. Writes are atomic (a temporary file renamed over the old
/// one), the file is readable by its owner only (0600), and a read-modify-write holds an
/// exclusive lock so that `gpsloc auth` and running programs never lose each other's changes.
public final class AuthorizationStore: Sendable {
    public struct StoreError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "authorization store \(path): \(reason)" }
    }

    public let directory: String
    public var path: String { directory + "/authorization.json" }
    var lockPath: String { directory + "/authorization.lock" }
    /// A store whose global switch and restrictions apply on top of this one's: the daemon's
    /// system-wide policy over each user's decisions. Changes are never written to it from here.
    public let policy: AuthorizationStore?

    public init(directory: String, policy: AuthorizationStore? = nil) {
        self.directory =
            directory.hasSuffix("/") && directory.count > 1
            ? String(directory.dropLast()) : directory
        self.policy = policy
    }

    /// The default directory for an environment (see the type's documentation).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        if let dir = environment["OPENCORELOCATION_STATE_DIR"], !dir.isEmpty { return dir }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/opencorelocation"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.passwordHome()
        return home + "/.local/state/opencorelocation"
    }

    /// The home directory of this process's user in the password database ("/" without one).
    private static func passwordHome() -> String {
        UserDatabase.user(uid: getuid())?.home ?? "/"
    }

    /// The store's contents under its policy: location services are on only when both say so,
    /// and an app restricted by either is restricted. An absent file is an empty store
    /// (everything undetermined).
    public func load() throws(StoreError) -> AuthorizationSnapshot {
        var snapshot = try loadOwn()
        guard let policy else { return snapshot }
        let system = try policy.load()
        snapshot.servicesEnabled = snapshot.servicesEnabled && system.servicesEnabled
        snapshot.restrictAll = snapshot.restrictAll || system.restrictAll
        snapshot.restrictedClients += system.restrictedClients.filter {
            !snapshot.restrictedClients.contains($0)
        }
        return snapshot
    }

    /// This store's own file, without its policy.
    private func loadOwn() throws(StoreError) -> AuthorizationSnapshot {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw StoreError(path: path, reason: "cannot be read (\(errnoDescription()))")
            }
            return AuthorizationSnapshot()
        }
        if data.isEmpty { return AuthorizationSnapshot() }
        do {
            return try JSONDecoder().decode(AuthorizationSnapshot.self, from: data)
        } catch {
            throw StoreError(
                path: path,
                reason: "is not a valid store (\(error))")
        }
    }

    /// Changes the store under an exclusive lock and writes it atomically; returns the result.
    @discardableResult
    public func update(_ body: (inout AuthorizationSnapshot) -> Void) throws(StoreError)
        -> AuthorizationSnapshot
    {
        try makeDirectory()
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(
                lockPath, .readWrite, options: [.create, .closeOnExec], permissions: [.ownerReadWrite])
        } catch {
            throw StoreError(path: lockPath, reason: "cannot be opened (\(error))")
        }
        defer { try? lock.close() }
        while flock(lock.rawValue, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw StoreError(path: lockPath, reason: "cannot be locked (\(Errno(rawValue: errno)))")
            }
        }
        removeStaleTemporaries()
        var snapshot: AuthorizationSnapshot
        do {
            snapshot = try loadOwn()
        } catch {
            // Never replace a store that cannot be read with an empty one: that would turn
            // location services back on, lift restrictions and lose every decision. A corrupt
            // file is moved aside (the next write starts afresh, on purpose), and this write fails.
            guard FileManager.default.contents(atPath: path) != nil else { throw error }
            let aside = path + ".corrupt"
            let moved = rename(path, aside) == 0
            throw StoreError(
                path: path,
                reason: error.reason + "; nothing was written. "
                    + (moved
                        ? "It was moved to \(aside): restore it from there or make the decisions again"
                        : "Move it away to make the decisions again (\(errnoDescription()))"))
        }
        let before = snapshot
        body(&snapshot)
        if snapshot != before || !FileManager.default.fileExists(atPath: path) {
            try write(snapshot)
        }
        return snapshot
    }

    /// Removes what writers killed mid-write left: temporary files are made only under the lock,
    /// so one that exists while this process holds it belongs to nobody.
    private func removeStaleTemporaries() {
        let prefix = ".authorization.json."
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(prefix) && name.count == prefix.count + 6 {
            unlink(directory + "/" + name)
        }
    }

    private func makeDirectory() throws(StoreError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError(
                path: directory,
                reason: "the directory cannot be created (\(errorWords(error))); "
                    + "set OPENCORELOCATION_STATE_DIR to a writable directory")
        }
    }

    private func write(_ snapshot: AuthorizationSnapshot) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(snapshot) + Data("\n".utf8) } catch {
            throw StoreError(path: path, reason: "cannot be encoded (\(error))")
        }
        if let failure = writeAtomically(data, to: path) {
            throw StoreError(path: path, reason: "cannot be written (\(failure))")
        }
    }
}

/// Writes a file so that readers see the old contents or the new, never a mix: a temporary file
/// in the same directory, readable by its owner only, synced and renamed over the old one, and the
/// directory synced after, so that the rename itself survives a power cut. Returns what failed, or
/// `nil`. A temporary file a kill leaves behind (`.NAME.XXXXXX`) is removed by
/// ``removeStaleTemporaryFiles(under:)``.
package func writeAtomically(_ data: Data, to path: String) -> String? {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    var template = Array((directory + "/." + name + ".XXXXXX").utf8CString)
    let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard raw >= 0 else { return "cannot create a file in \(directory): \(Errno(rawValue: errno))" }
    let file = FileDescriptor(rawValue: raw)
    let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    var failure: String?
    if fchmod(raw, 0o600) != 0 { failure = "chmod: \(Errno(rawValue: errno))" }
    if failure == nil {
        do { _ = try data.withUnsafeBytes { try file.writeAll($0) } } catch { failure = "write: \(error)" }
    }
    if failure == nil && fsync(raw) != 0 { failure = "fsync: \(Errno(rawValue: errno))" }
    try? file.close()
    if failure == nil && rename(temporary, path) != 0 { failure = "rename: \(Errno(rawValue: errno))" }
    if failure != nil {
        unlink(temporary)
        return failure
    }
    let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard parent >= 0 else { return "cannot open \(directory) to sync it: \(Errno(rawValue: errno))" }
    defer { close(parent) }
    return fsync(parent) == 0 ? nil : "fsync of \(directory): \(Errno(rawValue: errno))"
}

/// Removes the temporary files ``writeAtomically(_:to:)`` leaves when the process is killed
/// between making one and renaming it (`.NAME.XXXXXX`), in `directory` and below; returns how
/// many. Only for a directory no writer uses at the time (the daemon's, as it starts).
package func removeStaleTemporaryFiles(under directory: String) -> Int {
    guard let paths = try? FileManager.default.subpathsOfDirectory(atPath: directory) else { return 0 }
    var removed = 0
    for relative in paths {
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        guard isTemporaryName(name) else { continue }
        var info = stat()
        let path = directory + "/" + relative
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
        if unlink(path) == 0 { removed += 1 }
    }
    return removed
}

/// `.authorization.json.a1B2c3`: a dot, a name, a dot and mkstemp's six letters and digits.
package func isTemporaryName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard bytes.count > 8, bytes[0] == UInt8(ascii: "."), bytes[bytes.count - 7] == UInt8(ascii: ".") else {
        return false
    }
    return bytes.suffix(6).allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
