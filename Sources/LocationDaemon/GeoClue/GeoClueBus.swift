// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CSDBus
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// gpslocd's connection to the system bus, owned by a thread of its own: sd-bus is not
/// thread-safe, so every call on the bus happens on that thread, and work from elsewhere (an
/// engine's update, an agent's question) is queued to it with ``perform(_:)``.
final class GeoClueBus: @unchecked Sendable {
    /// The connection; touched on the bus thread only (and by `init` before the thread runs).
    private(set) var bus: OpaquePointer?
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let wake: Int32
    private let stopping = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// Connects to the system bus with `handlers` on every object; throws what failed.
    init(handlers: UnsafePointer<ocl_geoclue_handlers>, context: UnsafeMutableRawPointer)
        throws(GeoClueBusError)
    {
        stopping.initialize(to: 0)
        wake = ocl_wake_fd()
        guard wake >= 0 else { throw GeoClueBusError(step: "making an eventfd", errno: errno) }
        var step: UnsafePointer<CChar>?
        var opened: OpaquePointer?
        let result = ocl_geoclue_open(&opened, handlers, context, &step)
        guard result >= 0, let opened else {
            close(wake)
            throw GeoClueBusError(step: step.map { String(cString: $0) } ?? "opening the bus", errno: -result)
        }
        bus = opened
    }

    deinit {
        if let bus { sd_bus_flush_close_unref(bus) }
        close(wake)
        stopping.deallocate()
    }

    /// Runs the bus on the calling thread until it fails or ``stop()`` is called; returns the
    /// failure (`nil` when stopped).
    func run(handlers: UnsafePointer<ocl_geoclue_handlers>, context: UnsafeMutableRawPointer)
        -> GeoClueBusError?
    {
        guard let bus else { return nil }
        let result = ocl_geoclue_run(bus, wake, stopping, handlers, context)
        drain()
        return result < 0 ? GeoClueBusError(step: "serving the bus", errno: -result) : nil
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
        ocl_geoclue_request_stop(stopping, wake)
    }
}

/// A step of the bus connection that failed, with the error the system gave.
struct GeoClueBusError: Error, CustomStringConvertible {
    var step: String
    var errno: Int32

    var description: String {
        let reason = String(cString: strerror(errno))
        if step.contains("owning the name") && (errno == EEXIST || errno == EACCES || errno == EPERM) {
            return
                "\(step) failed (\(reason)): another service owns it (GeoClue itself? `systemctl disable --now "
                + "geoclue.service; systemctl mask geoclue.service`), or the bus's policy does not let this user own it "
                + "(install /usr/share/dbus-1/system.d/org.freedesktop.GeoClue2.gpslocd.conf)"
        }
        return "\(step) failed: \(reason)"
    }
}

extension GeoClueBus {
    /// Runs the bus on a thread of its own until it stops; returns its failure.
    func runOnThread(handlers: UnsafePointer<ocl_geoclue_handlers>, context: UnsafeMutableRawPointer) async
        -> GeoClueBusError?
    {
        await withCheckedContinuation { continuation in
            let work = BusThreadWork { [self] in
                continuation.resume(returning: run(handlers: handlers, context: context))
            }
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
                continuation.resume(returning: GeoClueBusError(step: "starting the bus thread", errno: made))
            } else {
                pthread_detach(thread)
            }
        }
    }

    private static func service(_ context: UnsafeMutableRawPointer?) -> GeoClueService {
        Unmanaged<GeoClueService>.fromOpaque(context!).takeUnretainedValue()
    }

    /// What the C side calls for a ``GeoClueService`` (its `context`). Made once, never freed:
    /// the C side keeps a pointer to it.
    nonisolated(unsafe) static let serviceHandlers: UnsafePointer<ocl_geoclue_handlers> = {
        let handlers = UnsafeMutablePointer<ocl_geoclue_handlers>.allocate(capacity: 1)
        handlers.initialize(
            to: ocl_geoclue_handlers(
                method: { context, call, path, interface, member in
                    service(context).method(
                        call!, path: String(cString: path!), interface: String(cString: interface!),
                        member: String(cString: member!))
                },
                get: { context, reply, path, interface, property, sender, error in
                    service(context).get(
                        reply!, path: String(cString: path!), interface: String(cString: interface!),
                        property: String(cString: property!),
                        sender: sender.map { String(cString: $0) } ?? "",
                        error: error)
                },
                set: { context, value, path, _, property, sender, error in
                    service(context).set(
                        value!, path: String(cString: path!), property: String(cString: property!),
                        sender: sender.map { String(cString: $0) } ?? "", error: error)
                },
                gone: { context, name in service(context).gone(String(cString: name!)) },
                authorized: { context, token, failed, authorized, level in
                    service(context).authorized(
                        token: token, failed: failed, authorized: authorized, level: level)
                },
                wake: { context in service(context).drainBus() }))
        return UnsafePointer(handlers)
    }()
}

/// A closure for the bus thread.
private final class BusThreadWork {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
