// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where an app's reduced-accuracy state is kept between runs: `reduced/<client>.json` (or
/// `reduced/<client>@<receiver>.json`) in the authorization store's directory, 0600, written
/// atomically. Kept with the app's decisions, out of the app's reach when the daemon runs it.
enum ReducedStateFile {
    static func path(store: AuthorizationStore, client: String, receiver: String) -> String {
        let name = receiver.isEmpty ? client : client + "@" + receiver
        var file = MonitorCore.fileName(name)
        if file.utf8.count > 200 {
            // Escaped executable paths and source addresses can pass a file name's 255 bytes.
            file = String(file.prefix(100)) + "-" + Digest.hex(Digest.sha256(Array(name.utf8)))
        }
        return store.directory + "/reduced/" + file + ".json"
    }

    /// The stored state, or a fresh one (with the reason, when one existed but cannot be read).
    static func load(store: AuthorizationStore, client: String, receiver: String) -> (
        AccuracyReducer.State, problem: String?
    ) {
        let path = path(store: store, client: client, receiver: receiver)
        guard let data = FileManager.default.contents(atPath: path) else { return (.init(), nil) }
        do {
            return (try JSONDecoder().decode(AccuracyReducer.State.self, from: data), nil)
        } catch {
            return (.init(), "\(path) cannot be read (\(error)); approximate locations start afresh")
        }
    }

    /// Stores the state; the reason when it cannot.
    static func save(
        _ state: AccuracyReducer.State, store: AuthorizationStore, client: String, receiver: String
    )
        -> String?
    {
        let path = path(store: store, client: client, receiver: receiver)
        let directory = store.directory + "/reduced"
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return writeAtomically(try encoder.encode(state), to: path)
        } catch {
            return "\(path): \(errorWords(error))"
        }
    }
}

extension AppEngine {
    /// The app's reducer: the machine's offset from the configured secret (or the store's), and
    /// the app's state on this receiver as stored.
    static func reducer(_ configuration: Configuration) -> AccuracyReducer {
        var secret = configuration.reducerSecret
        if secret == nil {
            do { secret = try ReducerSecret.load(directory: configuration.store.directory) } catch {
                // Without a stored secret the offset is still secret, but changes at each start:
                // an observer of many starts could average it away, so say so.
                configuration.log("\(error); using a secret for this run only")
            }
        }
        let (state, problem) = ReducedStateFile.load(
            store: configuration.store, client: configuration.client, receiver: configuration.receiverName)
        if let problem { configuration.log(problem) }
        return AccuracyReducer(
            offset: ReducerOffset(secret: secret ?? .random()),
            state: state)
    }
}
