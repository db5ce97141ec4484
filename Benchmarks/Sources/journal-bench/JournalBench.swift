// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// The track journal's figures: records sealed per second on one core, and a journal of a given
// size written for `gpsloc journal verify|decrypt` to be timed on.
//
//   journal-bench seal [RECORDS]                 seals RECORDS locations in memory (default 2,000,000)
//   journal-bench write DIR PUBLIC-KEY BYTES     writes a journal of about BYTES (no fdatasync)

import Foundation
import TrackJournal

func location(_ index: Int) -> JournalRecord {
    .location(
        JournalLocation(
            time: 1_790_000_000 + Double(index) * 0.1, latitude: 52.37 + Double(index % 10_000) * 1e-6,
            longitude: 4.89 + Double(index % 7_000) * 1e-6, horizontalAccuracy: 3.5, altitude: 12,
            verticalAccuracy: 5, speed: 13.9, speedAccuracy: 0.5, course: Float(index % 360), courseAccuracy: 2,
            flags: 4))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "seal":
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 2_000_000 : 2_000_000
    let sealer = try JournalSealer(
        recipient: JournalPrivateKey().publicKey, journal: [UInt8](repeating: 7, count: 16), segment: 1,
        created: 0)
    let records = (0..<1000).map(location)
    var bytes = 0
    let started = ContinuousClock.now
    for index in 0..<count { bytes += try sealer.frame(records[index % 1000], counter: UInt64(index)).count }
    let elapsed = seconds(started.duration(to: .now))
    print(
        String(
            format: "sealed %d records in %.3f s: %.0f records/s on one core, %.1f bytes each (%d of them payload)",
            count, elapsed, Double(count) / elapsed, Double(bytes) / Double(count), records[0].bytes.count - 1))
case "write":
    guard arguments.count == 5, let target = Int(arguments[4]) else {
        print("usage: journal-bench write DIR PUBLIC-KEY BYTES")
        exit(64)
    }
    let key = try JournalKeys.publicKey(String(contentsOfFile: arguments[3], encoding: .utf8), path: arguments[3])
    var clock = 1_790_000_000.0
    let writer = try JournalWriter(
        directory: arguments[2], recipient: key,
        limits: .init(segmentBytes: 8 << 20, segmentSeconds: 1e12, totalBytes: target * 2, syncEachRecord: false)
    ) { clock }
    let started = ContinuousClock.now
    var index = 0
    let perRecord = 54 + 25
    while index * perRecord < target {
        try writer.append(location(index))
        clock += 0.1
        index += 1
    }
    try writer.close()
    print(String(format: "wrote %d records (about %d bytes) in %.1f s", index, index * perRecord, seconds(started.duration(to: .now))))
default:
    print("usage: journal-bench seal [RECORDS] | write DIR PUBLIC-KEY BYTES")
    exit(64)
}
