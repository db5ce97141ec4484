// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// Nothing to call: width.c sets the tests' width as the test binary loads.
