// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0
//
// The floor under a gpsd-protocol daemon's CPU per client update: one thread, one poll loop, a
// receiver's pseudo-terminal read as it comes and a socket its watchers connect to. Each GGA
// sentence ends an epoch: its time becomes one TPV report, written to every watcher that has sent
// anything (its ?WATCH), one write system call each. Nothing else: no checksum, no fix, no JSON
// writer, no privacy, no per-client decision. What any daemon of gpsd's protocol pays at least for
// the same receiver and the same watchers; `tools/daemon-load --gpsd` runs it beside gpsd.
//
//     watcher-floor DEVICE PORT        (watchers on TCP, loopback)
//     watcher-floor DEVICE SOCKET-PATH (watchers on a Unix socket, as gpslocd's own clients)
//
// Runs until killed; a watcher that goes away is dropped.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

enum { MAX_WATCHERS = 4096 };

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: watcher-floor DEVICE (PORT | SOCKET-PATH)\n");
    return 64;
  }
  int device = open(argv[1], O_RDWR | O_NOCTTY | O_NONBLOCK);
  if (device < 0) {
    fprintf(stderr, "watcher-floor: cannot open %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  struct termios raw;
  if (tcgetattr(device, &raw) == 0) {
    cfmakeraw(&raw);
    tcsetattr(device, TCSANOW, &raw);
  }
  // A path is a Unix socket's (the floor of gpslocd's own protocol), else a TCP port on loopback.
  int local = argv[2][0] == '/';
  int listener = socket(local ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int yes = 1;
  int bound;
  if (local) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(argv[2]) >= sizeof address.sun_path) {
      fprintf(stderr, "watcher-floor: the socket's path is too long: %s\n", argv[2]);
      return 64;
    }
    strcpy(address.sun_path, argv[2]);
    bound = bind(listener, (struct sockaddr *)&address, sizeof address);
  } else {
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2])),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bound = bind(listener, (struct sockaddr *)&address, sizeof address);
  }
  if (bound != 0 || listen(listener, 128) != 0) {
    fprintf(stderr, "watcher-floor: cannot listen on %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  // poll's entries: the device, the listener, then the watchers; `watching` by the same index.
  static struct pollfd fds[MAX_WATCHERS + 2];
  static char watching[MAX_WATCHERS + 2];
  int count = 2;
  fds[0] = (struct pollfd){.fd = device, .events = POLLIN};
  fds[1] = (struct pollfd){.fd = listener, .events = POLLIN};
  char line[256];
  size_t used = 0;
  char input[4096];
  for (;;) {
    if (poll(fds, count, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[1].revents & POLLIN) {
      int client;
      while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
        if (count == MAX_WATCHERS + 2) {
          close(client);
          continue;
        }
        if (!local) setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
        watching[count] = 0;
        fds[count++] = (struct pollfd){.fd = client, .events = POLLIN};
      }
    }
    for (int i = 2; i < count; i++) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, input, sizeof input);
      if (got > 0) {
        watching[i] = 1;
        continue;
      }
      if (got < 0 && errno == EAGAIN) continue;
      close(fds[i].fd);
      fds[i] = fds[--count];
      watching[i] = watching[count];
      fds[i].revents = 0;
      i--;
    }
    if (!(fds[0].revents & POLLIN)) continue;
    ssize_t got;
    while ((got = read(device, input, sizeof input)) > 0) {
      for (ssize_t k = 0; k < got; k++) {
        char byte = input[k];
        if (byte != '\n') {
          if (used < sizeof line - 1) line[used++] = byte;
          continue;
        }
        line[used] = 0;
        used = 0;
        // $GPGGA,hhmmss.ss,...: the epoch's last sentence and its time.
        if (strncmp(line + 3, "GGA,", 4) != 0 || strlen(line) < 16) continue;
        const char *t = line + 7;
        char report[256];
        int size = snprintf(report, sizeof report,
                            "{\"class\":\"TPV\",\"device\":\"%s\",\"mode\":3,"
                            "\"time\":\"2026-03-14T%.2s:%.2s:%.2s%.3s0Z\",\"ept\":0.005,"
                            "\"lat\":52.373100000,\"lon\":4.892200000,\"alt\":12.000,"
                            "\"track\":45.0000,\"speed\":12.501,\"climb\":0.000}\r\n",
                            argv[1], t, t + 2, t + 4, t + 6);
        for (int i = 2; i < count; i++) {
          if (watching[i] && write(fds[i].fd, report, size) < 0 && errno != EAGAIN) watching[i] = 0;
        }
      }
    }
  }
}
