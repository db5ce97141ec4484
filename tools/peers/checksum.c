// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/* The floor of NMEA parsing: a plain C loop that only validates every sentence's checksum.
 * Reads a log from standard input in 1 MiB chunks, into a page-aligned buffer as our readers do;
 * for each line from '$' or '!', XORs the bytes up to '*' and compares them with the two
 * hexadecimal digits that follow.
 * Prints: checksum-loop sentences=N valid=V invalid=I bytes=B */
#include <stdio.h>
#include <unistd.h>

static int hex(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int main(void) {
    static unsigned char buffer[1 << 20] __attribute__((aligned(4096)));
    enum { IDLE, BODY, HIGH, LOW } state = IDLE;
    unsigned char sum = 0;
    int high = 0;
    long sentences = 0, valid = 0, invalid = 0, bytes = 0;
    ssize_t count;
    while ((count = read(0, buffer, sizeof buffer)) > 0) {
        bytes += count;
        for (ssize_t i = 0; i < count; i++) {
            unsigned char c = buffer[i];
            if (c == '$' || c == '!') {
                if (state != IDLE) { sentences++; invalid++; }
                state = BODY;
                sum = 0;
                continue;
            }
            switch (state) {
            case IDLE: break;
            case BODY:
                if (c == '*') state = HIGH;
                else if (c == '\r' || c == '\n') { sentences++; invalid++; state = IDLE; }
                else sum ^= c;
                break;
            case HIGH:
                high = hex(c);
                state = LOW;
                break;
            case LOW: {
                int low = hex(c);
                sentences++;
                if (high >= 0 && low >= 0 && (unsigned char)(high << 4 | low) == sum) valid++;
                else invalid++;
                state = IDLE;
                break;
            }
            }
        }
    }
    if (count < 0) { perror("checksum-loop: read"); return 1; }
    printf("checksum-loop sentences=%ld valid=%ld invalid=%ld bytes=%ld\n", sentences, valid, invalid, bytes);
    return 0;
}
