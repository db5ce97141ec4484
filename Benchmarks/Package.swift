// swift-tools-version: 6.2
// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0
// The benchmarks of OpenCoreLocation, a package of their own so that the library itself does not
// depend on the benchmark framework. Run them with `swift package benchmark` in this directory;
// `tools/compare-peers` at the top of the repository runs `nmea-parse` against other parsers.
import PackageDescription

let package = Package(
    name: "Benchmarks",
    dependencies: [
        .package(name: "OpenCoreLocation", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "NMEABenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NMEA", package: "OpenCoreLocation"),
                .product(name: "GNSS", package: "OpenCoreLocation"),
                .product(name: "GNSSSimulation", package: "OpenCoreLocation"),
            ],
            path: "Benchmarks/NMEABenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GNSS", package: "OpenCoreLocation"),
                .product(name: "GNSSSimulation", package: "OpenCoreLocation"),
                .product(name: "LocationEngine", package: "OpenCoreLocation"),
                .product(name: "LocationWire", package: "OpenCoreLocation"),
            ],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The race harnesses' input, read as the product reads a log.
        .target(name: "HarnessInput", path: "Sources/HarnessInput"),
        .executableTarget(
            name: "nmea-parse",
            dependencies: ["HarnessInput", .product(name: "NMEA", package: "OpenCoreLocation")],
            path: "Sources/nmea-parse"
        ),
        .executableTarget(
            name: "fix-decode",
            dependencies: ["HarnessInput", .product(name: "GNSS", package: "OpenCoreLocation")],
            path: "Sources/fix-decode"
        ),
        .executableTarget(
            name: "journal-bench",
            dependencies: [.product(name: "TrackJournal", package: "OpenCoreLocation")],
            path: "Sources/journal-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
