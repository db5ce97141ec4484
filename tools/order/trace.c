// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0
//
// tools/order-gpslocd's tracer, preloaded into gpslocd (LD_PRELOAD, EXECUTED_CODE=FILE): records
// every instruction of the program's own code that runs. The code starts without execute
// permission; each fetch faults, is recorded, and runs alone (the trap flag), after which its
// page is closed again. Slow (minutes for a start that takes milliseconds), exact, and meant for
// nothing but making the order file. At exit, FILE gets the file offset of each instruction run;
// each SIGUSR2 before it ends a phase of the run: FILE.0, FILE.1, … get those the phase ran, and
// the next phase starts with none (FILE then holds the last phase's alone).
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static unsigned long start, end;
static unsigned char *executed;   // a bit per byte of code
static char exe[4096];
static char output[4096];          // FILE
static __thread unsigned long reopened;
static unsigned long code_offset;  // the code segment's offset in the file
static int snapshots;
static void snapshot(int sig);

static void segv(int sig, siginfo_t *info, void *context) {
    unsigned long address = (unsigned long)info->si_addr;
    if (address < start || address >= end) { signal(SIGSEGV, SIG_DFL); raise(SIGSEGV); return; }
    unsigned long byte = address - start;
    executed[byte >> 3] |= 1 << (byte & 7);
    unsigned long page = address & ~4095UL;
    mprotect((void *)page, 4096, PROT_READ | PROT_EXEC);
    reopened = page;
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL] |= 0x100;
}

static void trap(int sig, siginfo_t *info, void *context) {
    if (reopened) { mprotect((void *)reopened, 4096, PROT_READ); reopened = 0; }
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL] &= ~0x100UL;
}

__attribute__((constructor)) static void begin(void) {
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *out = getenv("EXECUTED_CODE");
    // Room for FILE's name and a snapshot's ".N".
    if (n <= 0 || !out || strlen(out) + 3 > sizeof output) return;
    exe[n] = 0;
    strcpy(output, out);
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[8192];
    while (fgets(line, sizeof line, maps)) {
        unsigned long a, b, offset; char perms[8]; char path[4096] = "";
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &a, &b, perms, &offset, path) >= 4
            && strcmp(path, exe) == 0 && perms[2] == 'x') { start = a; end = b; code_offset = offset; }
    }
    fclose(maps);
    if (!start) return;
    executed = calloc((end - start) / 8 + 1, 1);
    struct sigaction action = {0};
    action.sa_sigaction = segv;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &action, NULL);
    action.sa_sigaction = trap;
    sigaction(SIGTRAP, &action, NULL);
    signal(SIGUSR2, snapshot);
    mprotect((void *)start, end - start, PROT_READ);
}

// The file offset of each instruction recorded, a line each in hex, to `path`, then forgotten:
// only system calls and functions a signal handler may call. Written to `path`.part and renamed,
// so that `path` appears whole.
static void write_executed(const char *path) {
    char part[sizeof output + 8];
    size_t length = strlen(path);
    memcpy(part, path, length);
    memcpy(part + length, ".part", 6);
    int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    char buffer[1 << 16];
    size_t used = 0;
    for (unsigned long byte = 0; byte < end - start; byte++) {
        if (!(executed[byte >> 3] & (1 << (byte & 7)))) continue;
        char digits[24];
        int count = 0;
        unsigned long value = code_offset + byte;
        do { digits[count++] = "0123456789abcdef"[value & 15]; value >>= 4; } while (value);
        if (used + count + 1 > sizeof buffer) { write(fd, buffer, used); used = 0; }
        while (count) buffer[used++] = digits[--count];
        buffer[used++] = '\n';
    }
    write(fd, buffer, used);
    close(fd);
    rename(part, path);
    memset(executed, 0, (end - start) / 8 + 1);
}

// A phase ends: what it ran, to FILE.N.
static void snapshot(int sig) {
    char path[sizeof output];
    size_t length = strlen(output);
    memcpy(path, output, length);
    path[length] = '.';
    path[length + 1] = (char)('0' + snapshots++ % 10);
    path[length + 2] = 0;
    write_executed(path);
}

__attribute__((destructor)) static void finish(void) {
    if (!start) return;
    mprotect((void *)start, end - start, PROT_READ | PROT_EXEC);
    write_executed(output);
}
