// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
