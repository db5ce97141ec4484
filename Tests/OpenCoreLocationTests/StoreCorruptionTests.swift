// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine
import OpenCoreLocation
import TestSupport
import Testing

@Suite("A corrupt authorization store")
struct StoreCorruptionTests {
    @Test("is moved aside and the write fails loudly, never silently replaced by an empty store")
    func corruptStoreIsNotReplaced() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ocl-\(UUID().uuidString)"
        ).path
        let store = AuthorizationStore(directory: directory)
        try store.update {
            $0.servicesEnabled = false
            $0["com.example.a"] = ClientAuthorization(decision: .denied)
        }
        let garbage = Data("{\"servicesEnabled\": false, \"clients\": {".utf8)
        try garbage.write(to: URL(fileURLWithPath: store.path))

        #expect(throws: AuthorizationStore.StoreError.self) {
            try store.update { $0["com.example.b"] = ClientAuthorization(decision: .whenInUse) }
        }
        // The bytes are kept for the user to restore; nothing was written in their place.
        #expect(FileManager.default.contents(atPath: store.path + ".corrupt") == garbage)
        #expect(!FileManager.default.fileExists(atPath: store.path))
        // The next write starts afresh, as the error said it would.
        let fresh = try store.update { $0["com.example.b"] = ClientAuthorization(decision: .whenInUse) }
        #expect(fresh["com.example.b"].decision == .whenInUse)
    }

    @Test("a write killed midway leaves a temporary file that the next write removes; others stay")
    func staleTemporaries() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ocl-\(UUID().uuidString)"
        ).path
        let store = AuthorizationStore(directory: directory)
        try store.update { $0["com.example.a"] = ClientAuthorization(decision: .denied) }
        // What mkstemp leaves when the writer is killed before its rename.
        let stale = ["/.authorization.json.Ab3xYz", "/.authorization.json.000000"].map { directory + $0 }
        let unrelated = directory + "/notes.txt"
        for path in stale + [unrelated] { try Data("{".utf8).write(to: URL(fileURLWithPath: path)) }
        try store.update { $0["com.example.b"] = ClientAuthorization(decision: .whenInUse) }
        #expect(stale.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(FileManager.default.fileExists(atPath: unrelated))
        #expect(try store.load()["com.example.a"].decision == .denied)
    }
}
