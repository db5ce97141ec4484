// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

@_exported import Synchronization

#if OCL_THREAD_SANITIZER
    import CThreadSanitizer
#endif

/// The standard library's `Mutex`, which every module of this package uses in its place (importing
/// `Locking` rather than `Synchronization`), so that ThreadSanitizer sees it.
///
/// On Linux the standard library's mutex waits on a futex inside a library built without the
/// sanitizer, so ThreadSanitizer sees no ordering between two threads that take it in turn and
/// reports every value it guards as a race. Built with `-DOCL_THREAD_SANITIZER` (as
/// `tools/sanitize thread` builds), taking and leaving the lock tell the sanitizer so; otherwise
/// this is the standard library's mutex, inlined, and costs nothing more.
public struct Mutex<Value: ~Copyable>: ~Copyable {
    @usableFromInline let base: Synchronization.Mutex<Value>

    @inlinable
    public init(_ initialValue: consuming sending Value) {
        base = Synchronization.Mutex(initialValue)
    }

    /// Calls `body` with the value, holding the lock.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if OCL_THREAD_SANITIZER
            // The mutex's own address names it; taking the value's would itself be an access.
            let address = withUnsafePointer(to: self) { UnsafeMutableRawPointer(mutating: $0) }
        #endif
        return try base.withLock { (value: inout sending Value) throws(E) -> sending Result in
            #if OCL_THREAD_SANITIZER
                __tsan_acquire(address)
                defer { __tsan_release(address) }
            #endif
            return try body(&value)
        }
    }
}

extension Mutex: @unchecked Sendable where Value: ~Copyable {}
