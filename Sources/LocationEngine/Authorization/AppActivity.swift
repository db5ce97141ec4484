// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether the app is "in use": in the foreground, as Core Location means it.
///
/// The host decides: an embedding program calls ``setInUse(_:)`` as its state changes. The
/// default for a command-line program, ``terminalForeground()``, counts it in use while it is in
/// its terminal's foreground process group (not stopped, not sent to the background with `&` or
/// `bg`); a program without a terminal is in use while it runs.
public final class AppActivity: Sendable {
    private struct State {
        var inUse: Bool
        var observers: [Int: @Sendable (Bool) -> Void] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>
    private let poller: Mutex<Task<Void, Never>?> = Mutex(nil)

    public init(inUse: Bool = true) {
        state = Mutex(State(inUse: inUse))
    }

    public var isInUse: Bool { state.withLock { $0.inUse } }

    /// Changes the state and tells every observer.
    public func setInUse(_ value: Bool) {
        let observers = state.withLock { state -> [@Sendable (Bool) -> Void] in
            guard state.inUse != value else { return [] }
            state.inUse = value
            return state.observers.sorted { $0.key < $1.key }.map(\.value)
        }
        for observer in observers { observer(value) }
    }

    package func observe(_ observer: @escaping @Sendable (Bool) -> Void) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = observer
            return state.nextID
        }
    }

    package func removeObserver(_ id: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// Whether this process is in the foreground process group of its controlling terminal;
    /// `true` without a terminal.
    public static var isTerminalForeground: Bool {
        guard let terminal = try? FileDescriptor.open("/dev/tty", .readOnly, options: noTerminalOptions)
        else {
            return true
        }
        defer { try? terminal.close() }
        let group = tcgetpgrp(terminal.rawValue)
        return group < 0 || group == getpgrp()
    }

    /// `O_NOCTTY` (which swift-system does not name) and close-on-exec: opening the terminal to
    /// look at it never makes it ours.
    static let noTerminalOptions: FileDescriptor.OpenOptions = [
        FileDescriptor.OpenOptions(rawValue: O_NOCTTY), .closeOnExec,
    ]

    /// An activity that follows the terminal's foreground process group, checked every second:
    /// no kernel event tells a process that its terminal's foreground group changed (`SIGTTOU`
    /// and `SIGTTIN` come only when it touches the terminal), so it is looked at, as shells do.
    public static func terminalForeground() -> AppActivity {
        let activity = AppActivity(inUse: isTerminalForeground)
        let task = Task.detached { [weak activity] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let activity else { return }
                activity.setInUse(isTerminalForeground)
            }
        }
        activity.poller.withLock { $0 = task }
        return activity
    }

    deinit {
        poller.withLock { $0?.cancel() }
    }
}
