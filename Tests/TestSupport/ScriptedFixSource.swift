// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import Locking

/// A fix source driven by a test: fixes, an end or a failure are queued with ``send(_:)``,
/// ``end()`` and ``fail(_:)`` and delivered by whichever run of the source is active.
public final class ScriptedFixSource: FixSource {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private enum Item {
        case fix(Fix)
        case end
        case fail(String)
    }

    private struct State {
        var queue: [Item] = []
        var waiter: CheckedContinuation<Void, Never>?
        var running = 0
        var starts = 0
    }

    public let origin: FixOrigin
    public let name: String
    /// Whether the source stands for a receiver that never waits for its consumers; by default it
    /// waits for them, so that a test receives every fix it sends.
    public let isRealTime: Bool
    /// The device file it stands for, if any (as a serial receiver's).
    public let devicePath: String?
    private let state = Mutex(State())

    public init(
        origin: FixOrigin = .receiver, name: String = "scripted receiver", isRealTime: Bool = false,
        devicePath: String? = nil
    ) {
        self.origin = origin
        self.name = name
        self.isRealTime = isRealTime
        self.devicePath = devicePath
    }

    /// How many runs are active now (0 once the receiver is released).
    public var running: Int { state.withLock { $0.running } }
    /// How many times the source was started.
    public var starts: Int { state.withLock { $0.starts } }

    public func send(_ fix: Fix) { enqueue(.fix(fix)) }
    public func send(_ fixes: [Fix]) { for fix in fixes { enqueue(.fix(fix)) } }
    public func end() { enqueue(.end) }
    public func fail(_ reason: String) { enqueue(.fail(reason)) }

    private func enqueue(_ item: Item) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.queue.append(item)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    public func run(_ deliver: @escaping @Sendable (Fix) async -> Void) async throws {
        state.withLock {
            $0.running += 1
            $0.starts += 1
        }
        defer { state.withLock { $0.running -= 1 } }
        while !Task.isCancelled {
            let item = state.withLock { state -> Item? in
                state.queue.isEmpty ? nil : state.queue.removeFirst()
            }
            switch item {
            case .fix(let fix)?:
                await deliver(fix)
            case .end?:
                return
            case .fail(let reason)?:
                throw Failure(description: reason)
            case nil:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let resume = state.withLock { state -> Bool in
                            if !state.queue.isEmpty || Task.isCancelled { return true }
                            state.waiter = continuation
                            return false
                        }
                        if resume { continuation.resume() }
                    }
                } onCancel: {
                    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume()
                }
            }
        }
    }
}

extension Fix {
    /// A 3-D fix at a place and time, for tests of consumers of fixes.
    public static func position(
        _ latitude: Double, _ longitude: Double, at seconds: Double, altitude: Double = 20,
        speed: Double? = 0, course: Double? = nil, hdop: Double = 0.9
    ) -> Fix {
        var fix = Fix()
        fix.time = UTCTimestamp(nanosecondsSinceEpoch: Int64((seconds * 1e9).rounded()))
        fix.mode = .threeDimensional
        fix.status = .gps
        fix.latitude = latitude
        fix.longitude = longitude
        fix.altitudeMSL = altitude
        fix.altitudeHAE = altitude + 47
        fix.speed = speed
        fix.course = course
        fix.dop.hdop = hdop
        fix.dop.vdop = hdop * 1.5
        return fix
    }

    /// An epoch without a position (the receiver has no fix).
    public static func noFix(at seconds: Double) -> Fix {
        var fix = Fix()
        fix.time = UTCTimestamp(nanosecondsSinceEpoch: Int64((seconds * 1e9).rounded()))
        fix.mode = .noFix
        return fix
    }
}
