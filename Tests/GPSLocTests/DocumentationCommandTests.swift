// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// Every `sh` block of README.md and of the pages in `docs/`, run as a reader runs it: a page's
/// blocks in order, in one shell (`bash -euo pipefail`), in a scratch directory holding the
/// repository's `fixtures/` and `examples/`, with the built programs on the `PATH`, a state
/// directory of its own and no gpslocd of the machine's. A block that fails fails its page, with
/// what it printed; a `console` block (an install, systemd, a receiver) is shown, not run.
@Suite("The documentation's commands")
struct DocumentationCommandTests {
    let scratch = ScratchDirectories("documentation-commands")

    /// The pages, README.md first.
    static let pages: [String] = {
        let root = Fixtures.packageRoot
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.path + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    /// The `sh` blocks of `text`, in order, each without its fences.
    static func shellBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let block = current {
                if line.hasPrefix("```") {
                    blocks.append(block.joined(separator: "\n"))
                    current = nil
                } else {
                    current = block + [line]
                }
            } else if line == "```sh" {
                current = []
            }
        }
        return blocks
    }

    @Test("the pages' sh blocks are found, and only them")
    func blocksAreFound() {
        let text = "a\n```sh\necho one\n```\n```console\nsudo reboot\n```\n```sh\necho two\necho three\n```\n"
        #expect(Self.shellBlocks(text) == ["echo one", "echo two\necho three"])
        #expect(
            Self.pages.contains("README.md") && Self.pages.contains("docs/telematics.md"), "\(Self.pages)")
    }

    @Test("every sh block of the page runs and succeeds", arguments: pages)
    func pageRuns(_ page: String) async throws {
        let root = Fixtures.packageRoot.path
        let text = try String(contentsOfFile: root + "/" + page, encoding: .utf8)
        let blocks = Self.shellBlocks(text)
        guard !blocks.isEmpty else { return }
        let directory = try scratch.make()
        for shared in ["fixtures", "examples"] {
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/" + shared, withDestinationPath: root + "/" + shared)
        }
        let programs = Runner.gpsloc.deletingLastPathComponent().path
        let path = programs + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        // What a page starts in the background (a daemon) ends with its shell, however that ends.
        let script =
            "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\ntrap 'exit 143' TERM\ncd '\(directory)'\n"
            + blocks.joined(separator: "\n")
        let result = try await Runner.run(
            ["--kill-after=10", "180", "/bin/bash", "-euo", "pipefail", "-c", script],
            executable: URL(fileURLWithPath: "/usr/bin/timeout"),
            environment: [
                "PATH": path, "HOME": directory, "XDG_STATE_HOME": directory + "/xdg-state",
                "OPENCORELOCATION_SOCKET": directory + "/no-daemon.sock",
            ])
        #expect(
            result.status == 0,
            "\(page): its sh blocks exited \(result.status)\n--- output\n\(result.standardOutput.suffix(4000))\n--- errors\n\(result.standardError.suffix(4000))"
        )
    }
}
