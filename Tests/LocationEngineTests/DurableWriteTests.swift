// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import LocationEngine

/// Writes that survive a kill: the temporary files one leaves are recognised and removed, and
/// nothing else is.
@Suite("Durable writes")
struct DurableWriteTests {
    @Test(
        "a temporary file's name: a dot, the name, a dot and six letters or digits",
        arguments: [
            (".authorization.json.a1B2c3", true), (".trips.monitor.XyZ098", true),
            (".reducer.key.000000", true),
            ("authorization.json", false), ("trips.monitor", false), (".authorization.json", false),
            (".authorization.json.a1B2c", false), (".authorization.json.a1B2c-", false),
            ("reducer.key", false),
            ("%2Etrips.monitor", false),
        ])
    func names(_ name: String, _ temporary: Bool) {
        #expect(isTemporaryName(name) == temporary)
    }

    @Test("what a kill left between making and renaming is removed at start, and only that")
    func cleanup() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ocl-durable-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let nested = root + "/decisions/1000/monitors/app"
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        #expect(writeAtomically(Data("{}\n".utf8), to: root + "/decisions/1000/authorization.json") == nil)
        #expect(writeAtomically(Data("{}\n".utf8), to: nested + "/trips.monitor") == nil)
        for leftover in [
            root + "/decisions/1000/.authorization.json.Ab12Cd", nested + "/.trips.monitor.zz99ZZ",
        ] {
            #expect(FileManager.default.createFile(atPath: leftover, contents: Data("half".utf8)))
        }
        #expect(removeStaleTemporaryFiles(under: root) == 2)
        let left = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        #expect(left.filter { $0.hasSuffix(".json") || $0.hasSuffix(".monitor") }.count == 2, "\(left)")
        #expect(!left.contains { ($0 as NSString).lastPathComponent.hasPrefix(".") }, "\(left)")
    }
}
