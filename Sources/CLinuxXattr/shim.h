// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// The C library's extended attributes (getxattr and its kin), which Swift's Glibc module leaves
// out: the daemon asks whether a file carries a POSIX access control list.
#include <sys/xattr.h>
