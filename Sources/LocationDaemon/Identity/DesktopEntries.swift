// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The desktop entries of the system's application directories (`/usr/local/share/applications`,
/// `/usr/share/applications`): what a packaged desktop app is proven by. A client whose
/// executable is the file an entry's `Exec=` runs, where neither the entry nor that file nor a
/// directory above them is one its user could replace, is that entry's app; its
/// `X-Geoclue-Reason` is its usage description. Never proven this way: a program an interpreter
/// runs (the interpreter is the executable of every script), and an executable two entries name
/// under different ids.
///
/// The directories are read again when one of them changes (its modification time, or one of the
/// folders in it), as the app registrations are.
public final class DesktopEntries: Sendable {
    /// In the order the desktop looks in: an id found in an earlier directory hides the same id
    /// in a later one.
    public let directories: [String]
    /// What an app proven by its desktop entry is called: `desktop:` and its desktop id.
    public static let prefix = "desktop:"
    private let log: @Sendable (String) -> Void

    /// An entry with the program its `Exec=` runs: the path it resolved to and that file's real
    /// path, which `/proc/<pid>/exe` shows.
    struct Resolved: Sendable {
        var entry: DesktopEntry
        var program: String
        var real: String
    }

    struct Catalogue: Sendable {
        var byID: [String: DesktopEntry] = [:]
        var byExecutable: [String: [Resolved]] = [:]
    }

    private let state = Mutex<(stamps: [String: timespec]?, catalogue: Catalogue)>((nil, Catalogue()))

    /// Where a program named without a path in `Exec=` is looked for: the system's own
    /// directories, not a user's `PATH` (a program of the user's of the same name is another
    /// file, and is not the app).
    static let searchPath = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    /// At most this many entries are read, and folders this deep, so that a directory that is not
    /// what it should be costs a bounded time.
    static let entryLimit = 20_000
    static let depthLimit = 4

    public init(directories: [String], log: @escaping @Sendable (String) -> Void) {
        self.directories = directories
        self.log = log
    }

    /// What an executable proves: the entry's app, why an entry that names it does not prove
    /// it, or nothing.
    public enum Proof: Sendable, Hashable {
        case entry(DesktopEntry)
        case refused(String)
        case none
    }

    /// What `executable`, the verified file process `pid` runs (of `uid`, in `groups`), proves.
    public func proof(forExecutable executable: String, pid: Int32, uid: UInt32, groups: Set<UInt32>) -> Proof
    {
        guard let candidates = catalogue.byExecutable[executable], let first = candidates.first else {
            return .none
        }
        let ids = Set(candidates.map(\.entry.id))
        if ids.count > 1 {
            let named = candidates.map { "\($0.entry.id) (\($0.entry.path))" }.joined(separator: " and ")
            return .refused(
                "the desktop entries \(named) all run \(executable): which app it is cannot be told, so it "
                    + "is taken for none of them (an administrator registers it in apps.d to say)")
        }
        let entry = first.entry
        if let interpreter = Self.interpreter(first.program) ?? Self.interpreter(first.real) {
            return .refused(
                "the desktop entry \(entry.path) runs \(executable), the interpreter \(interpreter), which runs "
                    + "any app's script: it is not taken for \(entry.id)")
        }
        guard ExecutableTrust.isRunning(first.program, pid: pid) else { return .none }
        for path in [entry.path, first.program, first.real] {
            if let reason = ExecutableTrust.replaceability(of: path, uid: uid, groups: groups) {
                return .refused(
                    "the desktop entry \(entry.path) names \(executable) as \(entry.id), but \(reason), so that "
                        + "user could have put another there: it is not taken for \(entry.id)")
            }
        }
        return .entry(entry)
    }

    /// The entry with that desktop id (without `.desktop`), if the directories hold one.
    public func entry(id: String) -> DesktopEntry? { catalogue.byID[id] }

    /// Reads the directories now (the daemon does when it starts, so that its log says what
    /// they hold before any client asks).
    public func load() { _ = catalogue }

    /// The entries now, read again if a directory changed.
    var catalogue: Catalogue {
        let stamps = currentStamps()
        let cached = state.withLock { state -> Catalogue? in
            guard let known = state.stamps, Self.same(known, stamps) else { return nil }
            return state.catalogue
        }
        if let cached { return cached }
        let (fresh, walked) = read()
        state.withLock { $0 = (walked, fresh) }
        return fresh
    }

    /// The modification time of each directory configured and each folder read last time; a
    /// directory that does not exist has none (`tv_sec` -1), so that one that appears is read.
    private func currentStamps() -> [String: timespec] {
        let known = state.withLock { $0.stamps }
        var stamps: [String: timespec] = [:]
        for directory in directories + (known.map { Array($0.keys) } ?? []) where stamps[directory] == nil {
            stamps[directory] = Self.stamp(directory)
        }
        return stamps
    }

    private static func stamp(_ path: String) -> timespec {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mtim : timespec(tv_sec: -1, tv_nsec: 0)
    }

    private static func same(_ a: [String: timespec], _ b: [String: timespec]) -> Bool {
        a.allSatisfy { path, stamp in
            guard let now = b[path] else { return false }
            return now.tv_sec == stamp.tv_sec && now.tv_nsec == stamp.tv_nsec
        }
    }

    /// Reads every directory: the entries by id and by executable, and the folders read with
    /// their modification times.
    private func read() -> (Catalogue, [String: timespec]) {
        var catalogue = Catalogue()
        var hidden = Set<String>()
        var walked: [String: timespec] = [:]
        var unusable: [String] = []
        var seen = 0
        for directory in directories {
            walked[directory] = Self.stamp(directory)
            for file in files(in: directory, prefix: "", depth: 0, walked: &walked, count: &seen) {
                let id = String(file.relative.dropLast(".desktop".count).replacing("/", with: "-"))
                if catalogue.byID[id] != nil || hidden.contains(id) { continue }
                guard let text = try? String(contentsOfFile: file.path, encoding: .utf8) else {
                    unusable.append("\(file.path) cannot be read as UTF-8")
                    continue
                }
                let entry: DesktopEntry
                do {
                    guard let parsed = try DesktopEntry.parse(text, id: id, path: file.path) else {
                        hidden.insert(id)
                        continue
                    }
                    entry = parsed
                } catch {
                    unusable.append(error.description)
                    continue
                }
                catalogue.byID[id] = entry
                guard let program = Self.resolve(entry.program) else {
                    unusable.append("\(entry.path): Exec='s program \(entry.program) is not found")
                    continue
                }
                let real = Self.realPath(program) ?? program
                catalogue.byExecutable[real, default: []].append(
                    Resolved(entry: entry, program: program, real: real))
            }
        }
        guard !directories.isEmpty else {
            log("no application directory is read: no app is proven by its desktop entry")
            return (catalogue, walked)
        }
        var summary =
            "read \(counted(catalogue.byID.count, "desktop entry", "desktop entries")) in "
            + directories.joined(separator: ", ")
        if !unusable.isEmpty {
            summary +=
                "; \(counted(unusable.count, "entry proves", "entries prove")) no app (\(unusable.prefix(3).joined(separator: "; "))"
                + (unusable.count > 3 ? "; …" : "") + ")"
        }
        if seen >= Self.entryLimit { summary += "; only the first \(Self.entryLimit) were read" }
        log(summary)
        return (catalogue, walked)
    }

    private func files(
        in directory: String, prefix: String, depth: Int, walked: inout [String: timespec], count: inout Int
    ) -> [(path: String, relative: String)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var found: [(String, String)] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            guard count < Self.entryLimit else { break }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                guard depth < Self.depthLimit else { continue }
                walked[path] = info.st_mtim
                found += files(
                    in: path, prefix: prefix + name + "/", depth: depth + 1, walked: &walked, count: &count)
            } else if name.hasSuffix(".desktop") {
                count += 1
                found.append((path, prefix + name))
            }
        }
        return found
    }

    /// The file a program of `Exec=` is: an absolute path as it is, a name looked up in
    /// ``searchPath``. `nil` for a relative path or a name found nowhere.
    static func resolve(_ program: String) -> String? {
        if program.contains("/") {
            return program.hasPrefix("/") && isExecutableFile(program) ? program : nil
        }
        return searchPath.lazy.map { $0 + "/" + program }.first(where: isExecutableFile)
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_mode & 0o111 != 0
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Programs that run other programs' code in their own process, so that the kernel's word
    /// for every script they run is the same executable: shells, language runtimes, virtual
    /// machines, emulators and the dynamic loader. Matched on the file's name without a version
    /// (`python3.11`, `lua5.4`, `wine64`); `ld-linux…`, `ld-musl…` and `qemu-…` by their prefix.
    static let interpreters: Set<String> = [
        "sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "env",
        "python", "pypy", "perl", "ruby", "node", "nodejs", "deno", "bun", "lua", "luajit", "php", "tclsh",
        "wish", "gjs", "cjs", "seed", "java", "mono", "dotnet", "wine", "wine-preloader", "pwsh", "rscript",
        "r", "julia", "guile", "racket", "sbcl", "ocaml", "ocamlrun", "erl", "beam.smp", "electron", "awk",
        "gawk", "mawk", "box64", "ld.so", "emacs", "vim", "nvim",
    ]

    /// The interpreter `path` is (its name), or `nil`.
    static func interpreter(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var stem = Substring(name.lowercased())
        if stem.hasPrefix("ld-linux") || stem.hasPrefix("ld-musl") { return name }
        if stem.hasPrefix("qemu-") { return name }
        while let last = stem.last, last.isNumber || last == "." || last == "-" || last == "_" {
            stem = stem.dropLast()
        }
        if stem.hasSuffix(".so") { stem = stem.dropLast(3) }
        return interpreters.contains(String(stem)) || interpreters.contains(name) ? name : nil
    }
}
