// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// liblzma (Debian package liblzma-dev), for reading xz logs.
#ifndef CLZMA_SHIM_H
#define CLZMA_SHIM_H

#include <lzma.h>

// LZMA_STREAM_INIT is a macro Swift cannot import.
static inline lzma_stream clzma_stream_init(void) {
    lzma_stream stream = LZMA_STREAM_INIT;
    return stream;
}

// LZMA_CONCATENATED is a macro of an expression Swift cannot import.
static const uint32_t clzma_concatenated = LZMA_CONCATENATED;

#endif
