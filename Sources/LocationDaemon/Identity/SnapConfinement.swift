// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// A snap's identity from the AppArmor label the kernel gives its processes when snapd starts
/// them: `snap.<name>.<app> (enforce)` (or `snap.<name>.hook.<hook>`). The process cannot set it
/// to another snap's, and it is read only where AppArmor is the kernel's security module, so text
/// another module keeps in the same file is never taken for a label.
public enum SnapConfinement {
    /// The snap a label names, when it confines in enforce mode. A snap in developer mode
    /// (`complain`) is not confined: it is known like any program, by its executable.
    public static func snap(label text: String) -> String? {
        var label = Substring(text)
        while let last = label.last, last == "\n" || last == "\0" { label = label.dropLast() }
        guard label.hasSuffix(" (enforce)") else { return nil }
        label = label.dropLast(" (enforce)".count)
        // A stacked label (`snap.x.y//&:ns:…`) is judged by its first profile.
        if let stack = label.indices.first(where: { label[$0...].hasPrefix("//") }) {
            label = label[..<stack]
        }
        let parts = label.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "snap", isValidName(parts[1]) else { return nil }
        return String(parts[1])
    }

    /// snapd's rule for a snap's instance name: a name of lower-case letters, digits and `-`
    /// (at least one letter, no `-` at either end or twice running, at most 40), and optionally
    /// `_` and a key of lower-case letters and digits (at most 10).
    static func isValidName(_ text: Substring) -> Bool {
        let pieces = text.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        let name = pieces[0]
        guard (1...40).contains(name.count), name.first != "-", name.last != "-", !name.contains("--"),
            name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }),
            name.contains(where: { $0.isLetter })
        else { return false }
        if pieces.count == 2 {
            let key = pieces[1]
            guard (1...10).contains(key.count),
                key.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) })
            else { return false }
        }
        return true
    }

    /// Whether AppArmor is the security module that labels processes here.
    public static let isAppArmorEnabled: Bool = {
        ProcessFacts.read("/sys/module/apparmor/parameters/enabled")?.hasPrefix("Y") == true
    }()

    /// The AppArmor label of a process: `/proc/<pid>/attr/apparmor/current` where the kernel
    /// stacks modules, else `/proc/<pid>/attr/current` when AppArmor is enabled; `nil` without
    /// AppArmor.
    public static func label(pid: Int32) -> String? {
        if let label = ProcessFacts.read("/proc/\(pid)/attr/apparmor/current") { return label }
        guard isAppArmorEnabled else { return nil }
        return ProcessFacts.read("/proc/\(pid)/attr/current")
    }
}
