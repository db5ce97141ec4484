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

/// Waits for a device file to appear (`inotify(7)`), so that a receiver plugged back in is opened
/// at once rather than at the end of the reopening delay.
///
/// The nearest existing directory on the device's path is watched (`/dev/serial/by-id` vanishes
/// with the last USB serial device and comes back with the next); each event there moves the
/// watch deeper until the device itself is created. Only an appearance after the watch began
/// counts: a device that exists but failed to open waits out its delay as before. The wait runs on
/// a thread of its own (`onThread`) through a `PollLoop`; it never polls on a timer.
final class DeviceWatcher: Sendable {
    private let path: String
    private let descriptor: FileDescriptor
    private let loop: PollLoop

    /// Starts watching for `path`; `nil` when nothing on its path can be watched.
    init?(path: String) {
        let raw = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard raw >= 0 else { return nil }
        self.path = path
        descriptor = FileDescriptor(rawValue: raw)
        guard let loop = try? PollLoop() else {
            try? descriptor.close()
            return nil
        }
        self.loop = loop
        // Initialized by now: failing here closes the descriptor in `deinit`.
        guard watchNearest() else { return nil }
    }

    /// Watches the nearest existing directory on the device's path; false when there is none.
    private func watchNearest() -> Bool {
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB)
        var directory = FilePath(path).removingLastComponent().string
        while !directory.isEmpty {
            if inotify_add_watch(descriptor.rawValue, directory, mask) >= 0 { return true }
            if directory == "/" { return false }
            directory = FilePath(directory).removingLastComponent().string
        }
        return false
    }

    /// Returns once the device has appeared, or the waiting task is cancelled. Events since the
    /// watch began wait in the descriptor, so an appearance before the call counts too.
    func waitForAppearance() async {
        await onThread(named: "OpenCoreLocation device watcher", stop: loop.stop) { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while case .bytes = buffer.withUnsafeMutableBytes({ try? loop.read(descriptor, into: $0) }) {
                if FileManager.default.fileExists(atPath: path) { return }
                // A directory on the way came back: watch the one nearer the device. The device
                // may have come with it (udev makes /dev/serial/by-id and the link together),
                // before the new watch could see it: look again.
                _ = watchNearest()
                if FileManager.default.fileExists(atPath: path) { return }
            }
        }
    }

    deinit {
        // Nothing waits any more: `onThread` returns only after its thread has.
        try? descriptor.close()
    }
}
