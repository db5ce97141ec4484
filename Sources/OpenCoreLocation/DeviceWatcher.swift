// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Locking
import SystemPackage

/// Waits for a device file to appear (`inotify(7)`), so that a receiver plugged back in is opened
/// at once rather than at the end of the reopening delay.
///
/// The nearest existing directory on the device's path is watched (`/dev/serial/by-id` vanishes
/// with the last USB serial device and comes back with the next); each event there moves the
/// watch deeper until the device itself is created. Only an appearance after the watch began
/// counts: a device that exists but failed to open waits out its delay as before. A thread of its
/// own waits through a `PollLoop`; it never polls on a timer.
final class DeviceWatcher: Sendable {
    private let loop: PollLoop
    private struct State {
        var done = false
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    /// Shared with the watching thread.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }
    private let shared = Shared()

    /// Starts watching for `path`; `nil` when nothing on its path can be watched.
    init?(path: String) {
        let raw = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard raw >= 0 else { return nil }
        let descriptor = FileDescriptor(rawValue: raw)
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB)
        @Sendable func watchNearest() -> Bool {
            var directory = (path as NSString).deletingLastPathComponent
            while !directory.isEmpty {
                if inotify_add_watch(raw, directory, mask) >= 0 { return true }
                if directory == "/" { return false }
                directory = (directory as NSString).deletingLastPathComponent
            }
            return false
        }
        guard watchNearest(), let loop = try? PollLoop() else {
            try? descriptor.close()
            return nil
        }
        self.loop = loop
        let thread = Thread { [shared] in
            defer { try? descriptor.close() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while case .bytes = buffer.withUnsafeMutableBytes({ try? loop.read(descriptor, into: $0) }) {
                if FileManager.default.fileExists(atPath: path) {
                    let waiter = shared.state.withLock { state in
                        defer {
                            state.done = true
                            state.waiter = nil
                        }
                        return state.waiter
                    }
                    waiter?.resume()
                    return
                }
                // A directory on the way came back: watch the one nearer the device.
                _ = watchNearest()
            }
        }
        thread.name = "OpenCoreLocation device watcher"
        thread.start()
    }

    /// Returns once the device has appeared, or the waiting task is cancelled.
    func waitForAppearance() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = shared.state.withLock { state -> Bool in
                    if state.done || state.cancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            shared.state.withLock { state in
                defer {
                    state.cancelled = true
                    state.waiter = nil
                }
                return state.waiter
            }?.resume()
        }
    }

    deinit {
        loop.stop()
        shared.state.withLock { $0.waiter }?.resume()
    }
}
