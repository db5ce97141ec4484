// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An object of each thread's own, made on the thread's first use and released when the thread
/// ends: what a hot path keeps per thread so that threads on different processors never touch
/// the same memory (a buffer a line is made in, the lines written last).
///
/// SwiftNIO's `ThreadSpecificVariable` holds its value boxed with itself and casts it back at
/// every read; this reads the object as it is. Made once, as a `static let`: its key is never
/// given back.
public final class ThreadLocal<Value: AnyObject>: Sendable {
    @usableFromInline let key: pthread_key_t
    @usableFromInline let make: @Sendable () -> Value

    public init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { value in
            if let value { Unmanaged<AnyObject>.fromOpaque(value).release() }
        }
        precondition(created == 0, "no thread-specific key left (error \(created))")
        self.key = key
        self.make = make
    }

    /// The calling thread's object.
    @inlinable
    public var value: Value {
        Unmanaged<Value>.fromOpaque(pthread_getspecific(key) ?? storeNew()).takeUnretainedValue()
    }

    /// Calls `body` with the calling thread's object, without a reference of the caller's own on
    /// it: the thread holds it until it ends, longer than `body` runs. For a path taken at every
    /// update, where ``value`` was retained and released for each (`BENCHMARKS.md`, round 2,
    /// twenty-third part). `body` must not keep the object.
    @inlinable
    public func withValue<Result>(_ body: (Value) -> Result) -> Result {
        let stored = pthread_getspecific(key) ?? storeNew()
        return Unmanaged<Value>.fromOpaque(stored)._withUnsafeGuaranteedRef(body)
    }

    /// Makes the calling thread's object, held by the thread; its address.
    @usableFromInline
    func storeNew() -> UnsafeMutableRawPointer {
        let stored = Unmanaged.passRetained(make()).toOpaque()
        pthread_setspecific(key, stored)
        return stored
    }
}
