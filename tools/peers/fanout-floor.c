// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0
//
// The floor under a daemon's fan-out: one thread writes one line to each of N connected Unix
// stream sockets, one write system call each, as any daemon that serves N clients must; nothing
// else (no decoding, no JSON, no event loop). The sockets' other ends are held by a child process
// that reads nothing, as `tools/daemon-load --hold` has its clients do. Each round is timed from
// before the first write to after the last; rounds are a tenth of a second apart, as a 10 Hz
// receiver's epochs are.
//
//     fanout-floor CLIENTS LINE-BYTES ROUNDS
//
// Prints the median, the fastest and the slowest round in milliseconds, one line.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: fanout-floor CLIENTS LINE-BYTES ROUNDS\n");
    return 64;
  }
  int clients = atoi(argv[1]), bytes = atoi(argv[2]), rounds = atoi(argv[3]);
  if (clients < 1 || bytes < 1 || bytes > 65536 || rounds < 1) {
    fprintf(stderr, "fanout-floor: CLIENTS and ROUNDS must be 1 or more, LINE-BYTES 1 to 65536\n");
    return 64;
  }
  struct rlimit limit = {2 * clients + 64, 2 * clients + 64};
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    fprintf(stderr, "fanout-floor: cannot allow %d descriptors: %s\n", 2 * clients + 64, strerror(errno));
    return 1;
  }
  int *ours = calloc(clients, sizeof(int)), *theirs = calloc(clients, sizeof(int));
  double *times = calloc(rounds, sizeof(double));
  char *line = malloc(bytes);
  if (!ours || !theirs || !times || !line) return 1;
  memset(line, 'x', bytes);
  line[bytes - 1] = '\n';
  for (int i = 0; i < clients; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) {
      fprintf(stderr, "fanout-floor: socketpair: %s\n", strerror(errno));
      return 1;
    }
    ours[i] = pair[0];
    theirs[i] = pair[1];
  }
  pid_t holder = fork();
  if (holder < 0) return 1;
  if (holder == 0) {
    for (int i = 0; i < clients; i++) close(ours[i]);
    for (;;) pause();
  }
  for (int i = 0; i < clients; i++) close(theirs[i]);
  int status = 0;
  for (int round = 0; round < rounds && status == 0; round++) {
    double start = now_ms();
    for (int i = 0; i < clients; i++) {
      if (write(ours[i], line, bytes) != bytes) {
        fprintf(stderr, "fanout-floor: write: %s\n", strerror(errno));
        status = 1;
        break;
      }
    }
    times[round] = now_ms() - start;
    usleep(100000);
  }
  kill(holder, SIGKILL);
  if (status != 0) return status;
  qsort(times, rounds, sizeof(double), by_value);
  printf("median %.2f ms, fastest %.2f ms, slowest %.2f ms\n", times[rounds / 2], times[0], times[rounds - 1]);
  return 0;
}
