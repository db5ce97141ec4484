// swift-tools-version: 6.2
// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0
// The coverage-guided fuzzers of OpenCoreLocation, a package of their own: each target is built
// with libFuzzer (`--sanitize=fuzzer`), which brings its own `main`, so they cannot live in the
// library's package. Run one with `tools/fuzz TARGET --time SECONDS` at the top of the repository.
import PackageDescription

let package = Package(
    name: "Fuzz",
    dependencies: [.package(name: "OpenCoreLocation", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "NMEA", package: "OpenCoreLocation")]),
        .executableTarget(
            name: "fuzz-nmea-stream",
            dependencies: [
                .product(name: "NMEA", package: "OpenCoreLocation"),
                .product(name: "GNSS", package: "OpenCoreLocation"), "FuzzSupport",
            ]),
        .executableTarget(
            name: "fuzz-nmea-fields",
            dependencies: [
                .product(name: "NMEA", package: "OpenCoreLocation"),
                .product(name: "GNSS", package: "OpenCoreLocation"), "FuzzSupport",
            ]),
        .executableTarget(
            name: "fuzz-gpsd-json",
            dependencies: [
                .product(name: "GNSS", package: "OpenCoreLocation"),
                .product(name: "GNSSSources", package: "OpenCoreLocation"), "FuzzSupport",
            ]),
        .executableTarget(
            name: "fuzz-manifest",
            dependencies: [.product(name: "LocationEngine", package: "OpenCoreLocation")]),
        .executableTarget(
            name: "fuzz-wire-request",
            dependencies: [.product(name: "LocationWire", package: "OpenCoreLocation"), "FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
