# SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
# SPDX-License-Identifier: Apache-2.0
"""A harness for pynmea2 (Debian's python3-nmea2): reads an NMEA log from standard input line by
line, parses every line into pynmea2's typed sentence with checksum checking, reads a field of each
typed value so that the work is really done, and prints the counts."""
import sys

import pynmea2


def main():
    counts = {}
    sentences = rejected = satellites = 0
    latitudes = 0.0
    for raw in sys.stdin.buffer:
        line = raw.decode("ascii", "replace").strip()
        if not line or line.startswith("#"):
            continue
        try:
            sentence = pynmea2.parse(line, check=True)
        except (pynmea2.ParseError, pynmea2.ChecksumError, pynmea2.SentenceTypeError, ValueError):
            rejected += 1
            continue
        sentences += 1
        kind = getattr(sentence, "sentence_type", type(sentence).__name__)
        counts[kind] = counts.get(kind, 0) + 1
        if kind in ("RMC", "GGA", "GLL"):
            try:
                latitudes += sentence.latitude
            except (TypeError, ValueError):
                pass
        elif kind == "GSV":
            satellites += sum(1 for index in range(1, 5) if getattr(sentence, "sv_prn_num_%d" % index, None))
        elif kind == "GSA":
            satellites += sum(1 for index in range(1, 13) if getattr(sentence, "sv_id%02d" % index, None))
    parts = " ".join("%s=%d" % (kind, counts[kind]) for kind in sorted(counts))
    print("pynmea2 sentences=%d rejected=%d satellites=%d latitude-sum=%.3f %s"
          % (sentences, rejected, satellites, latitudes, parts))


if __name__ == "__main__":
    main()
