// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The text of `errno`'s current value.
package func errnoDescription(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}
