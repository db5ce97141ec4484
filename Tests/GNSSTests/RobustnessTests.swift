// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import GNSSSimulation
import NMEA
import TestSupport
import Testing

@Suite("Any bytes are data")
struct RobustnessTests {
    @Test func tenMegabytesOfRandomBytes() async {
        var yielder = Yielder()
        var random = SeededGenerator(seed: 42)
        var bytes = [UInt8](repeating: 0, count: 10 << 20)
        var byteYielder = Yielder(roundsPerLook: 4096)
        for index in bytes.indices {
            await byteYielder.giveWay()
            // Bias toward the characters that matter to the framer.
            let roll = random.next()
            switch roll % 16 {
            case 0: bytes[index] = UInt8(ascii: "$")
            case 1: bytes[index] = UInt8(ascii: ",")
            case 2: bytes[index] = UInt8(ascii: "*")
            case 3: bytes[index] = 10
            default: bytes[index] = UInt8(truncatingIfNeeded: roll >> 8)
            }
        }
        var decoder = FixDecoder()
        var fixes = 0
        for chunk in stride(from: 0, to: bytes.count, by: 65536) {
            await yielder.giveWay()
            decoder.decode(bytes[chunk..<min(chunk + 65536, bytes.count)]) { _ in fixes += 1 }
        }
        decoder.finish { _ in fixes += 1 }
        let statistics = decoder.statistics.framer
        #expect(statistics.bytes == bytes.count)
        #expect(statistics.rejected > 100_000)
        #expect(statistics.skippedBytes > 0)
    }

    @Test func tenMegabytesOfMutatedNMEA() async {
        var yielder = Yielder()
        var simulator = RouteSimulator(seed: 9)
        var log: [UInt8] = []
        var epochs = 0
        while log.count < 10 << 20 {
            await yielder.giveWay()
            simulator.appendEpoch(to: &log)
            epochs += 1
        }
        var random = SeededGenerator(seed: 17)
        var mutated: [UInt8] = []
        mutated.reserveCapacity(log.count)
        var index = 0
        var flips = 0
        var cuts = 0
        var splices = 0
        var byteYielder = Yielder(roundsPerLook: 4096)
        while index < log.count {
            await byteYielder.giveWay()
            let roll = random.next() % 1000
            if roll < 3 {
                // Flip a byte.
                mutated.append(log[index] ^ UInt8(truncatingIfNeeded: random.next() | 1))
                flips += 1
                index += 1
            } else if roll < 4 {
                // Truncate: skip ahead a random distance.
                index += Int(random.next() % 60)
                cuts += 1
            } else if roll < 5 {
                // Splice in a piece from elsewhere in the log.
                let from = Int(random.next() % UInt64(log.count - 100))
                mutated.append(contentsOf: log[from..<(from + Int(random.next() % 100))])
                splices += 1
            } else {
                mutated.append(log[index])
                index += 1
            }
        }
        var decoder = FixDecoder()
        var fixes: [Fix] = []
        for start in stride(from: 0, to: mutated.count, by: 4096) {
            await yielder.giveWay()
            mutated.withUnsafeBytes { raw in
                decoder.decode(UnsafeRawBufferPointer(rebasing: raw[start..<min(start + 4096, raw.count)])) {
                    fixes.append($0)
                }
            }
        }
        decoder.finish { fixes.append($0) }
        let statistics = decoder.statistics.framer
        #expect(statistics.bytes == mutated.count)
        #expect(statistics[.badChecksum] > flips / 4)
        #expect(statistics[.truncated] > 0)
        // Nearly every epoch survives (a damaged time may split one in two).
        #expect(fixes.count > epochs * 9 / 10)
        #expect(fixes.count < epochs * 11 / 10)
        #expect(fixes.allSatisfy { $0.latitude.map { abs($0) <= 90 } ?? true })
        #expect(cuts > 0 && splices > 0)
    }
}
