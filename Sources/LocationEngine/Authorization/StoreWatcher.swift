// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Calls back when a file in a directory is replaced or rewritten (`inotify(7)`), so a running
/// program sees `gpsloc auth` changes at once. The directory is watched rather than the file
/// because atomic writes replace the file.
///
/// A thread of its own waits on the inotify descriptor through a `PollLoop`: it sleeps until
/// something changes or ``cancel()`` wakes it, and never polls on a timer.
final class StoreWatcher: Sendable {
    private let loop: PollLoop

    /// Starts watching; `nil` when the directory cannot be watched (it is created if missing).
    init?(directory: String, fileName: String, onChange: @escaping @Sendable () -> Void) {
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let raw = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard raw >= 0 else { return nil }
        let descriptor = FileDescriptor(rawValue: raw)
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
        guard inotify_add_watch(raw, directory, mask) >= 0, let loop = try? PollLoop() else {
            try? descriptor.close()
            return nil
        }
        self.loop = loop
        detachThread(named: "OpenCoreLocation store watcher") {
            defer { try? descriptor.close() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while case .bytes(let count)? = buffer.withUnsafeMutableBytes({
                try? loop.read(descriptor, into: $0)
            }) {
                if Self.names(in: buffer[..<count]).contains(fileName), !loop.isStopped { onChange() }
            }
        }
    }

    /// The file names of the inotify events in `events`.
    static func names(in events: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        events.withUnsafeBytes { raw in
            let header = MemoryLayout<inotify_event>.size
            var offset = 0
            while offset + header <= raw.count {
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameStart = offset + header
                guard nameStart + length <= raw.count else { break }
                if length > 0 {
                    let bytes = raw[nameStart..<(nameStart + length)].prefix { $0 != 0 }
                    names.append(String(decoding: bytes, as: UTF8.self))
                }
                offset = nameStart + length
            }
        }
        return names
    }

    func cancel() { loop.stop() }

    deinit { cancel() }
}
