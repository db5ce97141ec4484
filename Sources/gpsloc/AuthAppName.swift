// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The name a decision is kept under, as the one who decides typed it: a program's path is made
/// the path gpslocd matches (`/proc/<pid>/exe`, absolute, every symbolic link resolved), so that a
/// decision for `./tracker` or `/usr/bin/python3` is not one that can never match.
enum AuthAppName {
    /// `name` as decisions key it, and what to tell the user about it (a path resolved, a
    /// program that is not there).
    static func resolve(_ name: String, command: String) -> String {
        // Identifiers (com.example.tracker), units (unit:…) and blocks (network:…) are names.
        guard name.contains("/"), !name.contains(":") else { return name }
        let absolute =
            name.hasPrefix("/")
            ? name : FileManager.default.currentDirectoryPath + "/" + name
        guard let resolved = realpath(absolute, nil) else {
            printError(
                "gpsloc auth \(command): warning: no program is at \(terminalSafe(name)) "
                    + "(\(String(cString: strerror(errno)))); the decision matches a program only once one is there, "
                    + "by the path it runs from")
            return FilePath(absolute).lexicallyNormalized().string
        }
        defer { free(resolved) }
        let path = String(cString: resolved)
        if path != name {
            printError(
                "gpsloc auth \(command): \(terminalSafe(name)) is \(terminalSafe(path)), the path a running program "
                    + "is known by: the decision is kept for \(terminalSafe(path))")
        }
        return path
    }
}
