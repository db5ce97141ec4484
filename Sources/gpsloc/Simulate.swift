// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import GNSS
import GNSSSimulation
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a simulated multi-constellation NMEA 4.10 log of a vehicle route.",
        discussion: """
            The same seed always gives the same log. Use --epochs for a duration, or --size for a \
            log of at least that many bytes (e.g. 100M for benchmarks).
            """
    )

    enum FaultLevel: String, ExpressibleByArgument, CaseIterable {
        case none, realistic, heavy

        var faults: RouteSimulator.Faults {
            switch self {
            case .none: .init()
            case .realistic: .realistic
            case .heavy: .heavy
            }
        }
    }

    // `.unconditional` for the numbers: `--epochs -5` is refused with a reason, not taken for an
    // option ("Missing value").
    @Option(parsing: .unconditional, help: "How many epochs to write.")
    var epochs: Int?

    @Option(help: "Write at least this many bytes instead: a number with an optional K, M or G suffix.")
    var size: String?

    @Option(parsing: .unconditional, help: "Epochs per second, 1 to 50.")
    var rate: Int = 1

    @Option(parsing: .unconditional, help: "Seed for the route and the noise (0 or more).")
    var seed: UInt64 = 1

    @Option(
        help:
            "Faults to inject: none, realistic or heavy (bad checksums, truncations, binary bytes, no-fix stretches)."
    )
    var faults: FaultLevel = .none

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        guard (1...50).contains(rate) else { throw ValidationError("--rate must be 1…50 epochs per second") }
        if epochs == nil && size == nil {
            throw ValidationError("give --epochs N or --size BYTES (e.g. --size 100M)")
        }
        if epochs != nil && size != nil {
            throw ValidationError("give --epochs N or --size BYTES, not both: the log ends at the first")
        }
        if let epochs, epochs < 1 { throw ValidationError("--epochs must be at least 1") }
        if let size, Self.bytes(size) == nil {
            throw ValidationError(
                "--size '\(size)' is not a size: write a number with an optional K, M or G suffix, e.g. 100M")
        }
    }

    static func bytes(_ text: String) -> Int? {
        var digits = Substring(text)
        var multiplier = 1
        switch text.last?.uppercased() {
        case "K": multiplier = 1 << 10
        case "M": multiplier = 1 << 20
        case "G": multiplier = 1 << 30
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard let value = Int(digits), value > 0 else { return nil }
        return value * multiplier
    }

    func run() throws {
        try CommandLog.bootstrap()
        var simulator = RouteSimulator(seed: seed, rate: rate, faults: faults.faults)
        let file: FileDescriptor
        if let output {
            do {
                file = try FileDescriptor.open(
                    output, .writeOnly, options: [.create, .truncate, .closeOnExec],
                    permissions: [.ownerReadWrite, .groupRead, .otherRead])
            } catch {
                // An I/O error, not a usage error: status 1, and no usage text.
                printError("gpsloc simulate: error: cannot write '\(output)': \(error)")
                throw ExitCode.failure
            }
        } else {
            file = .standardOutput
        }
        defer { if output != nil { try? file.close() } }
        let descriptor = file.rawValue
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        var written = 0
        var count = 0
        let targetBytes = size.flatMap(Self.bytes)
        var meter = ProgressMeter(label: output ?? "standard output", enabled: progress.enabled)
        defer { meter.finish() }
        while true {
            if let epochs, count >= epochs { break }
            if let targetBytes, written + buffer.count >= targetBytes { break }
            simulator.appendEpoch(to: &buffer)
            count += 1
            if buffer.count >= 1 << 16 {
                try Self.write(buffer, to: descriptor)
                written += buffer.count
                buffer.removeAll(keepingCapacity: true)
                if let targetBytes {
                    meter.update(done: written, total: targetBytes)
                } else {
                    meter.update(done: count, total: epochs, unit: "epochs")
                }
            }
        }
        try Self.write(buffer, to: descriptor)
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32) throws {
        do {
            try writeAll(bytes, to: descriptor)
        } catch {
            printError("gpsloc simulate: error: cannot write the log: \(error)")
            throw ExitCode.failure
        }
    }
}
