// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CSDBus
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a D-Bus service of gpslocd's answers, on its connection's bus thread: the calls and
/// property reads and writes on its objects, the connections that leave, the replies to the calls
/// it made.
protocol BusService: AnyObject, Sendable {
    func method(_ call: OpaquePointer, path: String, interface: String, member: String) -> Int32
    func get(
        _ reply: OpaquePointer, path: String, interface: String, property: String, sender: String,
        error: UnsafeMutablePointer<sd_bus_error>?
    ) -> Int32
    func set(
        _ value: OpaquePointer, path: String, property: String, sender: String,
        error: UnsafeMutablePointer<sd_bus_error>?
    ) -> Int32
    /// A connection left the bus.
    func gone(_ name: String)
    /// A connection joined the bus (or was on it when the service listed them).
    func arrived(_ name: String)
    /// The reply to the call made with `token` (``BusConnection/callback``).
    func replied(token: UInt64, reply: OpaquePointer)
}

extension BusService {
    /// Most services care only for the connections that call them.
    func arrived(_ name: String) {}
}

/// One service's connection to the system bus, owned by a thread of its own: sd-bus is not
/// thread-safe, so every call on the bus happens on that thread, and work from elsewhere (an
/// engine's update, an agent's question) is queued to it with ``perform(_:)``. Any number of
/// services may each have one: the C side keeps nothing of its own, only the ``callback`` it is
/// given.
final class BusConnection: @unchecked Sendable {
    /// The connection; touched on the bus thread only (and by `init` before the thread runs).
    private(set) var bus: OpaquePointer?
    /// What the C side calls for this connection's service, as long as the connection lives.
    let callback: UnsafeMutablePointer<ocl_bus_service>
    private weak var service: (any BusService)?
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let wake: Int32
    private let stopping = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// Connects to the system bus for `service` with `open` (which adds the service's first
    /// objects and owns its name); throws what failed.
    init(
        for service: any BusService,
        open: (
            UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<ocl_bus_service>,
            UnsafeMutablePointer<UnsafePointer<CChar>?>
        ) -> Int32
    ) throws(BusError) {
        self.service = service
        stopping.initialize(to: 0)
        callback = .allocate(capacity: 1)
        wake = ocl_wake_fd()
        // Every stored property is set from here: a throw runs deinit, which closes and frees
        // what was made (freeing here as well was a double free, and a crash later).
        guard wake >= 0 else { throw BusError(step: "making an eventfd", errno: errno) }
        callback.initialize(to: Self.callbacks(Unmanaged.passUnretained(self).toOpaque()))
        var step: UnsafePointer<CChar>?
        var opened: OpaquePointer?
        let result = open(&opened, callback, &step)
        guard result >= 0, let opened else {
            throw BusError(step: step.map { String(cString: $0) } ?? "opening the bus", errno: -result)
        }
        bus = opened
    }

    deinit {
        if let bus { sd_bus_flush_close_unref(bus) }
        if wake >= 0 { close(wake) }
        stopping.deallocate()
        callback.deallocate()
    }

    /// Runs the bus on the calling thread until it fails or ``stop()`` is called; returns the
    /// failure (`nil` when stopped).
    func run() -> BusError? {
        guard let bus else { return nil }
        let result = ocl_bus_run(bus, wake, stopping, callback)
        drain()
        return result < 0 ? BusError(step: "serving the bus", errno: -result) : nil
    }

    /// Queues `work` for the bus thread.
    func perform(_ work: @escaping @Sendable () -> Void) {
        queue.withLock { $0.append(work) }
        ocl_wake(wake)
    }

    /// Runs the queued work: on the bus thread, when it is woken.
    func drain() {
        let work = queue.withLock { queue in
            defer { queue = [] }
            return queue
        }
        for item in work { item() }
    }

    func stop() {
        ocl_bus_request_stop(stopping, wake)
    }

    /// Runs the bus on a thread of its own until it stops; returns its failure.
    func runOnThread() async -> BusError? {
        await withCheckedContinuation { continuation in
            let work = BusThreadWork { [self] in continuation.resume(returning: run()) }
            var thread = pthread_t()
            let box = Unmanaged.passRetained(work).toOpaque()
            let made = pthread_create(
                &thread, nil,
                { raw in
                    let work = Unmanaged<BusThreadWork>.fromOpaque(raw!).takeRetainedValue()
                    work.body()
                    return nil
                }, box)
            if made != 0 {
                Unmanaged<BusThreadWork>.fromOpaque(box).release()
                continuation.resume(returning: BusError(step: "starting the bus thread", errno: made))
            } else {
                pthread_detach(thread)
            }
        }
    }

    /// The C side's calls for the connection at `context`, each handed to its service.
    private static func callbacks(_ connectionContext: UnsafeMutableRawPointer) -> ocl_bus_service {
        ocl_bus_service(
            method: { context, call, path, interface, member in
                guard let service = connection(context).service else { return -ENOENT }
                return service.method(
                    call!, path: String(cString: path!), interface: String(cString: interface!),
                    member: String(cString: member!))
            },
            get: { context, reply, path, interface, property, sender, error in
                guard let service = connection(context).service else { return -ENOENT }
                return service.get(
                    reply!, path: String(cString: path!), interface: String(cString: interface!),
                    property: String(cString: property!), sender: sender.map { String(cString: $0) } ?? "",
                    error: error)
            },
            set: { context, value, path, _, property, sender, error in
                guard let service = connection(context).service else { return -ENOENT }
                return service.set(
                    value!, path: String(cString: path!), property: String(cString: property!),
                    sender: sender.map { String(cString: $0) } ?? "", error: error)
            },
            gone: { context, name in connection(context).service?.gone(String(cString: name!)) },
            arrived: { context, name in connection(context).service?.arrived(String(cString: name!)) },
            replied: { context, token, reply in
                connection(context).service?.replied(token: token, reply: reply!)
            },
            wake: { context in connection(context).drain() },
            context: connectionContext)
    }
}

/// A step of the bus connection that failed, with the error the system gave.
struct BusError: Error, CustomStringConvertible {
    var step: String
    var errno: Int32

    /// Whether the service's name could not be had: another service owns it, or the bus's policy
    /// does not let this user own it.
    var isNameRefused: Bool {
        step.contains("owning the name") && (errno == EEXIST || errno == EACCES || errno == EPERM)
    }

    var description: String { "\(step) failed: \(String(cString: strerror(errno)))" }
}

/// The connection a callback of the C side was given.
private func connection(_ context: UnsafeMutableRawPointer?) -> BusConnection {
    Unmanaged<BusConnection>.fromOpaque(context!).takeUnretainedValue()
}

/// A closure for the bus thread.
private final class BusThreadWork {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
