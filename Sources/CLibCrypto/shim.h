// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// OpenSSL's libcrypto (Debian package libssl-dev), for the engine's SHA-256 and HMAC-SHA256: the
// system's library, so that a program of the engine alone compiles no cryptography of its own.
#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/hmac.h>

#endif
