// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The logs that `gpsloc decode`'s arguments name.
///
/// A file named on the command line is read as given, whatever it is (a device or a FIFO too:
/// naming one is asking for it). From a directory only regular files are read, by name, hidden
/// ones skipped; a link counts as what it points at. Devices, FIFOs and sockets found in a
/// directory are never opened, for reading one could block forever or never end (a terminal,
/// `/dev/zero`); subdirectories are read only with `--recursive`, and a linked directory never, so
/// that a walk cannot loop. Whatever was passed over is said, with why.
struct LogFiles {
    /// The logs in order; `nil` is standard input.
    var paths: [String?] = []
    /// Directories that could not be read or held nothing to read: errors.
    var problems: [String] = []
    /// Entries of directories passed over, with why: notes.
    var skipped: [String] = []

    init(_ arguments: [String], recursive: Bool) {
        if arguments.isEmpty {
            paths = [nil]
            return
        }
        for argument in arguments {
            guard argument != "-" else {
                paths.append(nil)
                continue
            }
            guard Self.kind(of: argument, following: true) == .directory else {
                paths.append(argument)
                continue
            }
            let before = paths.count
            walk(argument, recursive: recursive)
            if paths.count == before { problems.append("the directory '\(argument)' holds no log files") }
        }
    }

    /// Adds the regular files of `directory`, by name, and of its subdirectories when `recursive`.
    private mutating func walk(_ directory: String, recursive: Bool) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            problems.append("cannot list the directory '\(directory)' (\(Self.reason(error)))")
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let own = Self.kind(of: path, following: false)
            let target = own == .link ? Self.kind(of: path, following: true) : own
            switch target {
            case .regular:
                paths.append(path)
            case .directory where own == .link:
                skipped.append("\(path): a link to a directory, which a walk does not follow")
            case .directory where recursive:
                walk(path, recursive: true)
            case .directory:
                skipped.append("\(path): a directory (add --recursive to read the logs in it)")
            case .missing:
                skipped.append("\(path): a link to nothing")
            case let other:
                let what = own == .link ? "a link to \(other.description)" : other.description
                skipped.append(
                    "\(path): \(what); only regular files are read from a directory (name it to read it)")
            }
        }
    }

    enum Kind: Equatable, CustomStringConvertible {
        case regular, directory, link, characterDevice, blockDevice, fifo, socket, missing

        var description: String {
            switch self {
            case .regular: "a regular file"
            case .directory: "a directory"
            case .link: "a link"
            case .characterDevice: "a character device"
            case .blockDevice: "a block device"
            case .fifo: "a FIFO"
            case .socket: "a socket"
            case .missing: "nothing"
            }
        }
    }

    /// What is at `path`, without opening it; `following` a link to what it points at.
    static func kind(of path: String, following: Bool) -> Kind {
        var info = stat()
        guard (following ? stat(path, &info) : lstat(path, &info)) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .link
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFIFO: return .fifo
        default: return .socket
        }
    }

    private static func reason(_ error: any Error) -> String {
        errorWords(error)
    }
}
