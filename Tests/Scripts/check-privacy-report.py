#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
# SPDX-License-Identifier: Apache-2.0
"""Checks NDJSON on standard input against the App Privacy Report schema (argv[1]): prints one
line per line that breaks it, then 'checked N lines'; exits 1 when any does, or when an access's
begin and end do not pair up."""
import json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
bad = 0
begins, ends = set(), set()
count = 0
for number, line in enumerate(sys.stdin, 1):
    if not line.strip():
        continue
    count += 1
    try:
        entry = json.loads(line)
    except ValueError as error:
        print(f"line {number}: not JSON: {error}")
        bad += 1
        continue
    for error in validator.iter_errors(entry):
        print(f"line {number}: {error.message}")
        bad += 1
    if entry.get("kind") == "intervalBegin":
        begins.add(entry["identifier"])
    if entry.get("kind") == "intervalEnd":
        ends.add(entry["identifier"])
for orphan in sorted(ends - begins):
    print(f"an intervalEnd without its intervalBegin: {orphan}")
    bad += 1
print(f"checked {count} lines")
sys.exit(1 if bad else 0)
