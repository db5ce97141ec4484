// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import GNSSSources

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
/// that a walk cannot loop. A file of a directory that is plainly no log (its first 64 KiB hold no
/// NMEA sentence, and it is not compressed) is passed over too: a README beside the logs is not
/// an error. Whatever was passed over is said, with why.
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
                if let why = Self.notALog(path) {
                    skipped.append("\(path): \(why) (name it to decode it anyway)")
                } else {
                    paths.append(path)
                }
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

    /// How much of a file found in a directory is looked at for a sentence.
    static let sniffLength = 65_536

    /// Why the regular file at `path` is no log, or `nil` when it may be one: a line of its first
    /// 64 KiB starts as a sentence does (`$` or `!`, three or more capitals and digits, a comma:
    /// `$GPGGA,`, `$PUBX,`, `$STI,`; a doubled `$` too, as some logs have it), it is compressed
    /// (gzip, xz, zstd: looked at once opened), empty, or cannot be read (which decoding it says).
    /// A track journal's segment is named as one.
    static func notALog(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: sniffLength)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, sniffLength) }
        guard count > 0 else { return nil }
        let head = buffer[0..<count]
        // The first bytes are read as the log reader reads them (LogFormat): what it decompresses
        // may be a log, a journal's segment is one, and anything else is looked at as text.
        switch LogFormat.detect(head) {
        case .gzip, .xz, .zstd: return nil
        case .trackJournal: return "a sealed track journal's segment, which needs --key FILE"
        case .text, .compressed, .notALog: break
        }
        var lineStart = true
        for index in head.indices {
            let byte = head[index]
            defer { lineStart = byte == 10 || byte == 13 }
            guard lineStart, byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!") else { continue }
            if startsSentence(head[index...]) { return nil }
        }
        let size =
            count < sniffLength
            ? "its \(counted(count, "byte", "bytes")) \(agreeing(count, "holds", "hold"))"
            : "its first 64 KiB hold"
        return "not a log: \(size) no NMEA sentence"
    }

    /// Whether `bytes` begin as a sentence: `$` or `!` (once or twice), then three or more
    /// capitals and digits, then a comma.
    private static func startsSentence(_ bytes: ArraySlice<UInt8>) -> Bool {
        var next = bytes.startIndex
        var marks = 0
        while next < bytes.endIndex, marks < 2,
            bytes[next] == UInt8(ascii: "$") || bytes[next] == UInt8(ascii: "!")
        {
            marks += 1
            next += 1
        }
        var letters = 0
        while next < bytes.endIndex, letters <= 16,
            (65...90).contains(bytes[next]) || (48...57).contains(bytes[next])
        {
            letters += 1
            next += 1
        }
        return letters >= 3 && letters <= 16 && next < bytes.endIndex && bytes[next] == UInt8(ascii: ",")
    }

    private static func reason(_ error: any Error) -> String {
        errorWords(error)
    }
}
