// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// What the C library has that Swift's Glibc module leaves out: extended attributes (whether a
// file carries an access control list) and pidfd_open (pinning a process found by its pid).
#include <sys/xattr.h>
#include <sys/pidfd.h>

// memfd_create (decrypted sentences held in memory, never on disk), which needs _GNU_SOURCE.
int memfd_create(const char *name, unsigned int flags);
#define CLINUX_MFD_CLOEXEC 1U

// prctl(PR_SET_NAME): a thread's name in top -H and /proc, without Foundation's Thread.
#include <sys/prctl.h>
static inline int clinux_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

// The processors a thread may run on, and confining it to some: the sched_getaffinity and
// sched_setaffinity system calls (glibc's wrappers and their CPU_SET macros are _GNU_SOURCE's,
// which Swift's import of the C library leaves out). What a container's or a unit's CPU set
// leaves, not the processors online.
#include <sys/syscall.h>
#include <unistd.h>

// Confines the calling thread to the `count` processors of `ids` (sched_setaffinity on the
// thread itself); 0, or -1 with errno.
static inline int clinux_pin_current_thread(const int *ids, int count) {
    unsigned long mask[64] = {0};
    for (int index = 0; index < count; index++) {
        int cpu = ids[index];
        if (cpu < 0 || cpu >= (int)(8 * sizeof(mask))) continue;
        mask[cpu / (8 * sizeof(unsigned long))] |= 1UL << (cpu % (8 * sizeof(unsigned long)));
    }
    return (int)syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask);
}

// The numbers of the first `capacity` processors the calling thread may run on, lowest first,
// into `ids`; how many were written (0 when the affinity cannot be read).
static inline int clinux_usable_processor_ids(int *ids, int capacity) {
    unsigned long mask[64] = {0};
    long bytes = syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
    if (bytes <= 0) return 0;
    int count = 0;
    int bits = (int)(bytes / (long)sizeof(unsigned long)) * (int)(8 * sizeof(unsigned long));
    for (int cpu = 0; cpu < bits && count < capacity; cpu++) {
        if (mask[cpu / (8 * sizeof(unsigned long))] >> (cpu % (8 * sizeof(unsigned long))) & 1UL) {
            ids[count++] = cpu;
        }
    }
    return count;
}

// The calling thread's nice value (setpriority on the thread itself: Linux keeps one per
// thread, and glibc's PRIO_PROCESS with 0 means the calling thread alone); 0, or -1 with errno.
// Lowering it needs CAP_SYS_NICE or a RLIMIT_NICE that allows it.
#include <sys/resource.h>
static inline int clinux_set_current_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

// Gives the calling thread the nice value of the process's main thread (what `nice -n` or a
// unit's `Nice=` set for the program), where it has another; 0, or -1 with errno (EACCES or
// EPERM where that lowers it and the thread may not).
#include <errno.h>
static inline int clinux_adopt_process_nice(void) {
    errno = 0;
    int process = getpriority(PRIO_PROCESS, (id_t)getpid());
    if (process == -1 && errno != 0) return -1;
    errno = 0;
    int own = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    if (own == -1 && errno != 0) return -1;
    return own == process ? 0 : setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), process);
}

// accept4, which needs _GNU_SOURCE: a connection's descriptor made non-blocking and closed on
// exec in the one call, so that no other thread's fork and exec inherits it.
#include <sys/socket.h>
static inline int clinux_accept_nonblocking(int socket) {
    return accept4(socket, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// socket(2) and socketpair(2) closed on exec (and non-blocking when asked) in the one call. The
// flags are named here only: once this module includes <sys/socket.h>, which module Swift credits
// with SOCK_CLOEXEC depends on the order a compiler process loads its modules in, so a Swift file
// that imports Glibc alone finds it in one build and not in the next.
static inline int clinux_socket(int domain, int type, int nonblocking) {
    return socket(domain, type | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
}
static inline int clinux_socketpair(int domain, int type, int pair[2]) {
    return socketpair(domain, type | SOCK_CLOEXEC, 0, pair);
}
