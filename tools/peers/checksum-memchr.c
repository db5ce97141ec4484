// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/* A stronger floor of NMEA parsing than checksum.c's byte-at-a-time state machine: each line is
 * found with memchr (which the C library vectorises), its start with memchr for '$' or '!' and its
 * checksum field with memchr for '*'; the body between is XORed and compared with the two
 * hexadecimal digits that follow. Reads standard input in 1 MiB chunks into a page-aligned
 * buffer, carrying a line cut by a chunk's end over to the next.
 * Prints: checksum-memchr sentences=N valid=V invalid=I bytes=B */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int hex(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

enum { CHUNK = 1 << 20, LONGEST = 4096 };

int main(void) {
    static unsigned char buffer[LONGEST + CHUNK] __attribute__((aligned(4096)));
    long sentences = 0, valid = 0, invalid = 0, bytes = 0;
    size_t kept = 0;  /* bytes of an unfinished line at the buffer's start */
    ssize_t count;
    while ((count = read(0, buffer + kept, CHUNK)) > 0) {
        bytes += count;
        unsigned char *line = buffer, *end = buffer + kept + count;
        unsigned char *newline;
        while ((newline = memchr(line, '\n', (size_t)(end - line))) != NULL) {
            unsigned char *start = memchr(line, '$', (size_t)(newline - line));
            if (!start) start = memchr(line, '!', (size_t)(newline - line));
            if (start) {
                sentences++;
                unsigned char *star = memchr(start + 1, '*', (size_t)(newline - start - 1));
                if (star && newline - star >= 3) {
                    unsigned char sum = 0;
                    for (unsigned char *p = start + 1; p < star; p++) sum ^= *p;
                    int high = hex(star[1]), low = hex(star[2]);
                    if (high >= 0 && low >= 0 && (unsigned char)(high << 4 | low) == sum) valid++;
                    else invalid++;
                } else {
                    invalid++;
                }
            }
            line = newline + 1;
        }
        kept = (size_t)(end - line);
        if (kept > LONGEST) kept = 0;  /* no line is this long: drop it */
        memmove(buffer, line, kept);
    }
    if (count < 0) { perror("checksum-memchr: read"); return 1; }
    printf("checksum-memchr sentences=%ld valid=%ld invalid=%ld bytes=%ld\n", sentences, valid, invalid, bytes);
    return 0;
}
