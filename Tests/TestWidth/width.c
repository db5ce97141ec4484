// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// How many tests Swift Testing runs at once in this package's test binary.
//
// Left to itself, Swift Testing starts every test at once: some 400 tasks queue on a concurrency
// pool of a thread per core, beside the daemons, gpsd and brokers the tests start. On two cores,
// a task waited 0.05 s to 10 s for its turn in that queue, so that a test whose work passes
// through a few tasks (a source's run, a relay) failed its 20 s wait while the suite ran, and
// passed alone. Eight tests at a time on two cores (four per core on more) gave turns of 5-10 ms
// on average and 74 ms at most, and the whole suite ended sooner (149-166 s against 172-186 s).
//
// Swift Testing reads the width from SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH when it
// starts; this sets it before main unless it was set by whoever ran the tests, whose value wins.

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void set_test_width(void) {
    static const char name[] = "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH";
    if (getenv(name) != NULL) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long width = cores > 2 ? 4 * cores : 8;
    char text[24];
    snprintf(text, sizeof text, "%ld", width);
    setenv(name, text, 0);
}
