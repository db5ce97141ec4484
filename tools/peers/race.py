# SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
# SPDX-License-Identifier: Apache-2.0
"""The race behind tools/compare-peers: runs every parser on the same generated log, interleaved,
several times each, and prints one table of medians with the performance targets as ratios.

Run it through tools/compare-peers, which installs the peers and builds the harnesses."""
import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time

MB = 1_000_000


def parse_size(text):
    match = re.fullmatch(r"(\d+)([KMG]?)", text.upper())
    if not match:
        sys.exit("compare-peers: --size '%s' is not a size: write a number with K, M or G, e.g. 100M" % text)
    return int(match.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match.group(2)]


def corpus(gpsloc, work, size_text, rate):
    """The simulated log of that size, generated once (the generator is deterministic)."""
    path = os.path.join(work, "corpus-%s-%dHz.nmea" % (size_text.upper(), rate))
    if not os.path.exists(path) or os.path.getsize(path) < parse_size(size_text):
        print("compare-peers: generating %s" % path, file=sys.stderr)
        subprocess.run([gpsloc, "simulate", "--size", size_text, "--rate", str(rate), "-o", path + ".part"],
                       check=True)
        os.replace(path + ".part", path)
    with open(path, "rb") as log:  # into the page cache
        while log.read(1 << 24):
            pass
    return path


def run(argv, stdin_path=None, capture="stdout", work="."):
    """Runs one program; returns (seconds, peak RSS in KiB, captured text). The peak RSS comes
    from GNU time, because a child's own rusage would count the Python process it forked from."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    rss_file = os.path.join(work, "peak-rss")
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv, stdin=stdin,
                            stdout=subprocess.PIPE if capture == "stdout" else subprocess.DEVNULL,
                            stderr=subprocess.PIPE if capture == "stderr" else subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if stdin_path:
        stdin.close()
    if result.returncode != 0:
        sys.exit("compare-peers: %s failed (exit %d)" % (" ".join(argv), result.returncode))
    with open(rss_file) as report:
        peak = int(report.read().split()[-1])
    text = (result.stdout if capture == "stdout" else result.stderr if capture == "stderr" else b"") or b""
    return seconds, peak, text.decode(errors="replace").strip()


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores, Linux %s" % (model, os.cpu_count() or 0, platform.release())


def main():
    options = argparse.ArgumentParser(prog="tools/compare-peers")
    options.add_argument("--gpsloc", required=True)
    options.add_argument("--nmea-parse", required=True)
    options.add_argument("--work", required=True)
    options.add_argument("--size", default="100M", help="size of the generated log (default 100M)")
    options.add_argument("--rate", type=int, default=1, help="epochs per second in the log (default 1)")
    options.add_argument("--runs", type=int, default=9, help="runs of each fast program (default 9)")
    options.add_argument("--slow-runs", type=int, default=3,
                         help="runs of gpsdecode and pynmea2, which take tens of seconds each (default 3)")
    options.add_argument("--baseline", metavar="DIR",
                         help="a checkout of an earlier commit (git worktree add DIR 9a70f70) with its release "
                              "builds: its gpsloc and nmea-parse are timed in the same run, with the ratios to them")
    options.add_argument("--no-mallocs", action="store_true", help="skip the malloc benchmark")
    options.add_argument("--no-memory", action="store_true",
                         help="skip the peak-memory runs on 1 MB and 1 GB logs")
    arguments = options.parse_args()
    if arguments.runs < 1 or arguments.slow_runs < 1:
        sys.exit("compare-peers: --runs and --slow-runs must be at least 1")
    work = arguments.work
    gpsloc = arguments.gpsloc
    log = corpus(gpsloc, work, arguments.size, arguments.rate)
    size = os.path.getsize(log)

    # name, what it measures, argv, stdin, what to capture, slow
    programs = [
        ("cat", "read the file, nothing else", ["cat", log], None, None, False),
        ("C checksum loop", "frame + validate checksums only (C, ours)", [os.path.join(work, "checksum-loop")],
         log, "stdout", False),
        ("C memchr loop", "the same, lines found with memchr (C, ours)", [os.path.join(work, "checksum-memchr")],
         log, "stdout", False),
        ("OpenCoreLocation parse", "frame + checksum + every sentence typed", [arguments.nmea_parse, log], None,
         "stdout", False),
        ("OpenCoreLocation decode", "parse + epochs + satellites (gpsloc decode --format none)",
         [gpsloc, "decode", "--format", "none", log], None, "stderr", False),
        ("OpenCoreLocation gpsd JSON", "decode + TPV/SKY JSON (gpsloc decode --format gpsd)",
         [gpsloc, "decode", "--format", "gpsd", "--quiet", log], None, None, False),
        ("go-nmea", "every sentence typed (Go, harness of ours)", [os.path.join(work, "go-nmea-harness")], log,
         "stdout", False),
        ("gpsdecode", "gpsd's decoder, NMEA in, JSON out (C)", ["gpsdecode"], log, None, True),
        ("pynmea2", "every sentence typed (Python)",
         ["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "pynmea2", "harness.py")], log, "stdout",
         True),
    ]
    if arguments.baseline:
        base_gpsloc = os.path.join(arguments.baseline, ".build", "release", "gpsloc")
        base_parse = os.path.join(arguments.baseline, "Benchmarks", ".build", "release", "nmea-parse")
        for path in (base_gpsloc, base_parse):
            if not os.access(path, os.X_OK):
                sys.exit("compare-peers: --baseline: %s is missing; build it in %s with `swift build -c release "
                         "--product gpsloc` and `swift build -c release --package-path Benchmarks --product "
                         "nmea-parse`" % (path, arguments.baseline))
        programs += [
            ("baseline parse", "nmea-parse of --baseline", [base_parse, log], None, "stdout", False),
            ("baseline decode", "gpsloc decode --format none of --baseline",
             [base_gpsloc, "decode", "--format", "none", log], None, "stderr", False),
        ]
    times = {name: [] for name, *_ in programs}
    peaks = {name: 0 for name, *_ in programs}
    outputs = {}
    rounds = max(arguments.runs, arguments.slow_runs)
    for round_index in range(rounds):
        # Interleaved, and each round starts one program later, so that drift in the machine's
        # load spreads over every program.
        order = programs[round_index % len(programs):] + programs[:round_index % len(programs)]
        for name, _, argv, stdin, capture, slow in order:
            if round_index >= (arguments.slow_runs if slow else arguments.runs):
                continue
            print("compare-peers: round %d/%d: %s" % (round_index + 1, rounds, name), file=sys.stderr)
            seconds, peak, text = run(argv, stdin, capture, work)
            times[name].append(seconds)
            peaks[name] = max(peaks[name], peak)
            if text and name not in outputs:
                outputs[name] = text

    sentences = int(re.search(r"sentences=(\d+)", outputs["C checksum loop"]).group(1))
    median = {name: statistics.median(values) for name, values in times.items()}

    print("Log: %s, %.1f MB, %d sentences (simulated NMEA 4.10, %d Hz, GPS+GLONASS+Galileo+BeiDou)"
          % (os.path.basename(log), size / MB, sentences, arguments.rate))
    print("Machine: %s" % machine())
    print("Runs: %d of each fast program, %d of gpsdecode and pynmea2, interleaved; medians of wall time"
          % (arguments.runs, arguments.slow_runs))
    print()
    print("| program | what it does | median | MB/s | sentences/s | peak RSS |")
    print("|---|---|---:|---:|---:|---:|")
    for name, what, *_ in programs:
        seconds = median[name]
        print("| %s | %s | %.3f s | %.1f | %s | %.1f MB |" % (
            name, what, seconds, size / MB / seconds, "{:,}".format(int(sentences / seconds)),
            peaks[name] / 1024))
    print()
    print("Every run, in seconds (the machine is shared: the spread shows how much it was disturbed):")
    for name, *_ in programs:
        print("  %s: %s" % (name, " ".join("%.3f" % value for value in sorted(times[name]))))
    print()
    print("What each harness counted:")
    for name, *_ in programs:
        if name in outputs:
            print("  %s: %s" % (name, " ".join(outputs[name].split())))
    print()

    results = []

    def target(label, value, bar, unit="×"):
        met = value >= bar
        results.append(met)
        print("%-58s %7.2f%s  (needs ≥ %g%s)  %s" % (label, value, unit, bar, unit, "met" if met else "NOT MET"))

    print("Targets (ratios of medians from this run):")
    target("parse: OpenCoreLocation vs go-nmea", median["go-nmea"] / median["OpenCoreLocation parse"], 15)
    target("parse: share of the C checksum loop's speed",
           100 * median["C checksum loop"] / median["OpenCoreLocation parse"], 50, "%")
    target("parse: share of the C memchr loop's speed",
           100 * median["C memchr loop"] / median["OpenCoreLocation parse"], 60, "%")
    target("decode to fixes: OpenCoreLocation vs go-nmea", median["go-nmea"] / median["OpenCoreLocation decode"], 8)
    target("gpsd JSON: gpsloc decode --format gpsd vs gpsdecode",
           median["gpsdecode"] / median["OpenCoreLocation gpsd JSON"], 10)

    if arguments.baseline:
        print()
        print("Against --baseline %s (same run):" % arguments.baseline)
        print("  parse: %.2f× its speed; decode (--format none): %.2f× its speed" % (
            median["baseline parse"] / median["OpenCoreLocation parse"],
            median["baseline decode"] / median["OpenCoreLocation decode"]))

    if not arguments.no_mallocs:
        # The benchmark package's malloc counter, over sentences parsed in steady state.
        print()
        print("Heap allocations per standard sentence (swift package benchmark, malloc counter):")
        package = os.path.join(os.path.dirname(__file__), "..", "..", "Benchmarks")
        report = subprocess.run(
            ["swift", "package", "--package-path", package, "benchmark", "--filter", "Mallocs.*", "--no-progress"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        title = re.search(r"Mallocs: (\d+) sentences", report.stdout)
        row = re.search(r"Malloc \(total\)[^│]*│(.*)", report.stdout)
        if report.returncode != 0 or not title or not row:
            print(report.stdout[-2000:])
            sys.exit("compare-peers: the malloc benchmark did not run")
        counts = [int(cell.replace(",", "")) for cell in row.group(1).split("│")[:-1] if cell.strip()]
        worst = max(counts[:-1])  # every percentile up to p100, not the sample count
        per_sentence = worst / int(title.group(1))
        met = worst == 0
        results.append(met)
        print("  worst iteration: %d mallocs for %s sentences = %g per sentence (needs 0)  %s"
              % (worst, title.group(1), per_sentence, "met" if met else "NOT MET"))

    if not arguments.no_memory:
        print()
        print("Peak RSS of gpsloc decode --format gpsd (limit 32 MB):")
        for size_text in ("1M", arguments.size.upper(), "1G"):
            if size_text == arguments.size.upper():
                peak = peaks["OpenCoreLocation gpsd JSON"]
            else:
                path = corpus(gpsloc, work, size_text, arguments.rate)
                _, peak, _ = run([gpsloc, "decode", "--format", "gpsd", "--quiet", path], None, None, work)
            met = peak / 1024 < 32
            results.append(met)
            print("  %-6s %6.1f MB  %s" % (size_text, peak / 1024, "met" if met else "NOT MET"))
    print()
    print("All targets met." if all(results) else "Not every target is met.")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
