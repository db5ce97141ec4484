// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// zlib (Debian package zlib1g-dev, which Swift on Linux itself needs), for reading gzip logs.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

// inflateInit2 is a macro Swift cannot import.
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    // 15 bits of window, +16: a gzip header (not a bare zlib stream).
    return inflateInit2(stream, 15 + 16);
}

#endif
