// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// One desktop entry (`*.desktop`, freedesktop.org's Desktop Entry Specification 1.5) as far as
/// identifying an app goes: its desktop id, the program its `Exec=` runs, whether it runs in a
/// terminal, and GeoClue's `X-Geoclue-Reason`, the usage description it asks with.
public struct DesktopEntry: Sendable, Hashable {
    /// The desktop id without `.desktop` (`org.gnome.Maps`), what GeoClue's agents show an app by.
    public var id: String
    /// The file it was read from.
    public var path: String
    /// The first word of `Exec=`, unquoted: an absolute path, or a name to look up in the path.
    public var program: String
    /// `Terminal=true`: the app runs in a terminal, and is in use as any program there is.
    public var terminal: Bool
    /// `X-Geoclue-Reason`, and its localised forms by locale (`X-Geoclue-Reason[de]`).
    public var reason: String?
    public var localisedReasons: [String: String]

    /// The usage description to ask with: the unlocalised reason, else an English one, else the
    /// first by locale (the daemon does not know the reader's language; the agent shows it).
    public var usageDescription: String? {
        if let reason { return reason }
        for locale in ["en_US", "en_GB", "en"] {
            if let reason = localisedReasons[locale] { return reason }
        }
        return localisedReasons.min { $0.key < $1.key }?.value
    }

    /// Why a file is not an entry that can prove an app.
    public struct Unusable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads an entry's text. `nil` for an entry that is deleted (`Hidden=true`) or is no
    /// application (`Type=Link`, `Directory`); an error for one that names no program.
    public static func parse(_ text: String, id: String, path: String) throws(Unusable) -> DesktopEntry? {
        var keys: [String: String] = [:]
        var reasons: [String: String] = [:]
        var group: Substring?
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.first == "#" { continue }
            if line.first == "[" {
                guard line.last == "]" else {
                    throw Unusable(description: "\(path): '\(line)' is not a group header")
                }
                group = line.dropFirst().dropLast()
                continue
            }
            // Only the first group says what the entry is; others are actions and extensions.
            guard group == "Desktop Entry" else {
                if group == nil { throw Unusable(description: "\(path): a key comes before [Desktop Entry]") }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces
            let value = unescaped(line[line.index(after: equals)...].trimmingSpaces)
            if key.hasPrefix("X-Geoclue-Reason[") && key.hasSuffix("]") {
                reasons[String(key.dropFirst("X-Geoclue-Reason[".count).dropLast())] = value
            } else if keys[String(key)] == nil {
                keys[String(key)] = value
            }
        }
        guard keys["Type"] == "Application", keys["Hidden"] != "true" else { return nil }
        guard let exec = keys["Exec"], !exec.isEmpty else {
            throw Unusable(description: "\(path) has no Exec= line, so it names no program")
        }
        guard let program = try firstArgument(of: exec, path: path), !program.isEmpty else {
            throw Unusable(description: "\(path): Exec= names no program")
        }
        return DesktopEntry(
            id: id, path: path, program: program, terminal: keys["Terminal"] == "true",
            reason: keys["X-Geoclue-Reason"].flatMap { $0.isEmpty ? nil : $0 },
            localisedReasons: reasons.filter { !$0.value.isEmpty })
    }

    /// A string value's escapes: `\s`, `\n`, `\t`, `\r` and `\\`; any other backslash stays, for
    /// `Exec=`'s own quoting (`\"` in a quoted argument).
    static func unescaped(_ text: Substring) -> String {
        guard text.contains("\\") else { return String(text) }
        var out = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "s": out.append(" ")
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "\\": out.append("\\")
                default: out += "\\" + String(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        if escaping { out.append("\\") }
        return out
    }

    /// `Exec=`'s first argument, its quoting undone: words are separated by spaces, a word in
    /// double quotes may hold spaces, and in quotes `\"`, `` \` ``, `\$` and `\\` stand for
    /// themselves. A field code (`%f`, `%U`…) may not be the program.
    static func firstArgument(of exec: String, path: String) throws(Unusable) -> String? {
        var word = ""
        var quoted = false
        var escaping = false
        var started = false
        for character in exec {
            if escaping {
                word.append(character)
                escaping = false
                continue
            }
            if quoted {
                switch character {
                case "\\": escaping = true
                case "\"": quoted = false
                default: word.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if started { return try checked(word, path: path) }
            case "\"":
                quoted = true
                started = true
            default:
                word.append(character)
                started = true
            }
        }
        if quoted { throw Unusable(description: "\(path): Exec= has a quote that is never closed") }
        guard started else { return nil }
        return try checked(word, path: path)
    }

    private static func checked(_ word: String, path: String) throws(Unusable) -> String {
        if word.contains("%") {
            throw Unusable(description: "\(path): Exec='s program '\(word)' holds a field code")
        }
        return word
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
