// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import PackagePlugin

/// Writes `BuildStamp.swift` before each build of the target that uses it: the commit the
/// sources are at (with `+changes` when the working tree differs from it), the day of the build
/// and the Swift compiler's version, for the programs' `--version`. The file is rewritten only
/// when one of them changed, so an ordinary rebuild recompiles nothing. Outside a git checkout
/// (a source tarball) the commit is `unknown`.
@main
struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildStamp.swift")
        // The compiler that builds the programs says its version: the one on PATH may be another.
        let compiler = (try? context.tool(named: "swiftc").url.path) ?? "swiftc"
        let script = """
            cd "$1" || exit 1
            commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null | head -1)" ]; then
              commit="$commit+changes"
            fi
            day=$(date -u +%Y-%m-%d)
            swift=$("$3" --version 2>/dev/null | sed -n 's/.*Swift version \\([^ ]*\\).*/\\1/p' | head -1)
            printf '// Written by the BuildStamp plugin at each build; not in git.\\n' > "$2.new"
            printf 'package enum BuildStamp {\\n' >> "$2.new"
            printf '    package static let commit = "%s"\\n' "$commit" >> "$2.new"
            printf '    package static let day = "%s"\\n' "$day" >> "$2.new"
            printf '    package static let swift = "%s"\\n' "${swift:-unknown}" >> "$2.new"
            printf '}\\n' >> "$2.new"
            if cmp -s "$2.new" "$2"; then rm -f "$2.new"; else mv "$2.new" "$2"; fi
            """
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its commit, day and Swift version",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "stamp", context.package.directoryURL.path, output.path, compiler],
                outputFilesDirectory: context.pluginWorkDirectoryURL)
        ]
    }
}
