// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// libzstd (Debian package libzstd-dev), for reading zstd logs.
#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H

#include <zstd.h>

#endif
