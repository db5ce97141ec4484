// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// What the C library has that Swift's Glibc module leaves out: extended attributes (whether a
// file carries an access control list) and pidfd_open (pinning a process found by its pid).
#include <sys/xattr.h>
#include <sys/pidfd.h>

// memfd_create (decrypted sentences held in memory, never on disk), which needs _GNU_SOURCE.
int memfd_create(const char *name, unsigned int flags);
#define CLINUX_MFD_CLOEXEC 1U
