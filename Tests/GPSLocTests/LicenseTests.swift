// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// The licence, where a company embedding this code looks for it: `LICENSE` at the top, and an
/// SPDX identifier at the top of every source file, as the Swift server community writes them.
@Suite("Licence headers")
struct LicenseTests {
    static let directories = [
        "Sources", "Tests", "Fuzz/Sources", "Benchmarks/Sources", "Benchmarks/Benchmarks", "tools",
    ]
    static let extensions: Set<String> = ["swift", "h", "c", "go", "py", "modulemap"]

    @Test("Every source file, script and module map says Apache-2.0 in its first lines")
    func everyFile() throws {
        let root = Fixtures.packageRoot
        var missing: [String] = []
        var checked = 0
        for directory in Self.directories {
            let base = root.appendingPathComponent(directory)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            while let entry = walker.nextObject() as? String {
                let name = (entry as NSString).lastPathComponent
                if name.hasPrefix(".") {
                    walker.skipDescendants()
                    continue
                }
                let path = base.appendingPathComponent(entry).path
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                    !isDirectory.boolValue
                else { continue }
                let ext = (name as NSString).pathExtension
                // The scripts of tools/ have no extension; a tool's working files do not count.
                let script = directory == "tools" && !entry.contains("/") && ext.isEmpty
                guard Self.extensions.contains(ext) || script else { continue }
                let head = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").prefix(4)
                if !head.contains(where: { $0.hasSuffix("SPDX-License-Identifier: Apache-2.0") }) {
                    missing.append(directory + "/" + entry)
                }
                checked += 1
            }
        }
        #expect(checked > 200)
        #expect(missing.isEmpty, "no SPDX-License-Identifier in: \(missing.joined(separator: ", "))")
        let license = try String(contentsOf: root.appendingPathComponent("LICENSE"), encoding: .utf8)
        #expect(license.contains("Apache License") && license.contains("Version 2.0, January 2004"))
    }
}
