import Synchronization

/// Calls back when a file in a directory is replaced or rewritten (`inotify(7)`), so a running
/// program sees `gpsloc auth` changes at once. The directory is watched rather than the file
/// because atomic writes replace the file.
final class StoreWatcher: Sendable {
    private final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    private let flag = Flag()

    /// Starts watching; `nil` when the directory cannot be watched (it is created if missing).
    init?(directory: String, fileName: String, onChange: @escaping @Sendable () -> Void) {
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        let flag = self.flag
        let thread = Thread {
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !flag.raised.load(ordering: .acquiring) {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 100)
                guard ready > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { continue }
                var offset = 0
                var relevant = false
                buffer.withUnsafeBytes { raw in
                    while offset + MemoryLayout<inotify_event>.size <= n {
                        let length = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                        let nameStart = offset + MemoryLayout<inotify_event>.size
                        if length > 0, nameStart + length <= n {
                            let bytes = raw[nameStart..<(nameStart + length)].prefix { $0 != 0 }
                            if String(decoding: bytes, as: UTF8.self) == fileName { relevant = true }
                        }
                        offset = nameStart + length
                    }
                }
                if relevant && !flag.raised.load(ordering: .acquiring) { onChange() }
            }
        }
        thread.name = "OpenCoreLocation store watcher"
        thread.start()
    }

    func cancel() {
        flag.raised.store(true, ordering: .releasing)
    }

    deinit { cancel() }
}
