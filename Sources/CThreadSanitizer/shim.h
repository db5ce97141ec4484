// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// ThreadSanitizer's annotations, from its runtime (compiler-rt's tsan_interface.h): linked only
// into a build made with -sanitize=thread, and called only when Locking is compiled for one.
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
