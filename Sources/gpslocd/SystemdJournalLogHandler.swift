// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Log lines for systemd's journal: each message on standard error behind its syslog priority
/// (`<4>` for a warning, as `sd-daemon(3)` describes), without a timestamp or level of its own,
/// which the journal adds. `journalctl -p warning` then shows warnings and worse only.
struct SystemdJournalLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether standard error is the journal's stream: `JOURNAL_STREAM` names its device and
    /// inode (`systemd.exec(5)`), so a program whose output was redirected elsewhere by a child
    /// of the service writes plain lines again.
    static func isJournalStream(_ environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
            fstat(STDERR_FILENO, &info) == 0
        else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// The syslog priority of a level: 7 debug … 2 critical.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let more = event.metadata { fields.merge(more) { $1 } }
        var line = "<\(Self.priority(event.level))>\(label): \(event.message)"
        if !fields.isEmpty {
            line +=
                " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        // One line per message: a message with line breaks continues at the same priority.
        line = line.split(separator: "\n", omittingEmptySubsequences: false).joined(
            separator: "\n<\(Self.priority(event.level))>")
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
