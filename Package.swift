// swift-tools-version: 6.2
// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "OpenCoreLocation",
    products: [
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "GNSS", targets: ["GNSS"]),
        .library(name: "GNSSSimulation", targets: ["GNSSSimulation"]),
        .library(name: "GNSSSources", targets: ["GNSSSources"]),
        .library(name: "TrackJournal", targets: ["TrackJournal"]),
        .library(name: "Telematics", targets: ["Telematics"]),
        .library(name: "LocationEngine", targets: ["LocationEngine"]),
        .library(name: "OpenCoreLocation", targets: ["OpenCoreLocation"]),
        .library(name: "LocationHosting", targets: ["LocationHosting"]),
        .library(name: "LocationWire", targets: ["LocationWire"]),
        .executable(name: "gpsloc", targets: ["gpsloc"]),
        .executable(name: "gpslocd", targets: ["gpslocd"]),
    ],
    traits: [
        .trait(
            name: "LibGPS",
            description: "Read gpsd through libgps as well (gpsd+libgps:// and gpsd+shm:); needs libgps-dev."),
        .trait(
            name: "Journal",
            description:
                "gpsloc record, journal and decode --key: the encrypted track journal (swift-crypto's HPKE)."),
        .trait(
            name: "MQTT",
            description:
                "gpsloc uplink: locations to an MQTT broker through libmosquitto; needs libmosquitto-dev.",
            enabledTraits: ["Journal"]),
        // `swift build --disable-default-traits --product gpsloc` builds a gpsloc that decodes,
        // simulates and watches without compiling any cryptography (tools/decode-example).
        .default(enabledTraits: ["Journal", "MQTT"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        // `swift package generate-documentation` for the DocC catalogs (tools/docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "NMEA", dependencies: ["CNMEAScan"]),
        // The framer's inner loop in the processor's vector registers (a header, inlined).
        .systemLibrary(name: "CNMEAScan"),
        .target(name: "GNSS", dependencies: ["NMEA"]),
        .target(name: "GNSSSimulation", dependencies: ["GNSS", "NMEA"]),
        // The commit, the day and the Swift version of this build, for the programs' --version.
        .plugin(name: "BuildStamp", capability: .buildTool()),
        .target(name: "BuildInfo", dependencies: ["GNSS"], plugins: ["BuildStamp"]),
        // ThreadSanitizer's annotations, for Locking in a build made with it.
        .systemLibrary(name: "CThreadSanitizer"),
        .target(name: "Locking", dependencies: ["CThreadSanitizer"]),
        .target(
            name: "DescriptorIO",
            dependencies: ["CLinux", "Locking", .product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "GNSSSources",
            dependencies: [
                "GNSS", "DescriptorIO", "Locking", "CLinux", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .target(name: "CGPS", condition: .when(traits: ["LibGPS"])), "CZlib", "CLzma", "CZstd",
            ]),
        // The encrypted, power-cut-safe track journal: its format, writer, reader and keys, and the
        // journal read back as a source. Its own module, so that the sources need no cryptography.
        .target(
            name: "TrackJournal",
            dependencies: [
                "GNSS", "GNSSSources", "CLinux", "CZlib",
                .product(name: "SystemPackage", package: "swift-system"),
                // HPKE and ChaCha20-Poly1305.
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // What a telematics box embeds: the recorder, and the uplink (its queue, outbox, OwnTracks
        // encoding, and the MQTT publisher behind the MQTT trait).
        .target(
            name: "Telematics",
            dependencies: [
                "GNSS", "DescriptorIO", "LocationEngine", "LocationHosting", "Locking", "TrackJournal",
                .target(name: "CMosquitto", condition: .when(traits: ["MQTT"])),
            ]),
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(
            name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLzma", pkgConfig: "liblzma", providers: [.apt(["liblzma-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // The engine's SHA-256 and HMAC-SHA256 (the journal's HPKE stays on swift-crypto: Debian's
        // OpenSSL 3.0 has none).
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // <sys/xattr.h> and <sys/pidfd.h>, which Swift's Glibc module leaves out.
        .systemLibrary(name: "CLinux"),
        // sd-bus (libsystemd) for the daemon's D-Bus services: a connection served on a thread of
        // its own and the variadic calls Swift cannot make, for any number of services. Needs
        // libsystemd-dev.
        .target(name: "CSDBus", linkerSettings: [.linkedLibrary("systemd")]),
        // GeoClue2's own tables on it: its interfaces' vtables (which sd-bus's macros build), its
        // signals and its agent's call.
        .target(name: "CGeoClueBus", dependencies: ["CSDBus"]),
        // The activity indicator's object on it (org.opencorelocation.Activity1).
        .target(name: "CActivityBus", dependencies: ["CSDBus"]),
        // The privacy engine: authorization, sessions, the reducer, monitors, fan-out. Every
        // front-end (the Apple-API façade, the daemon's protocols) sits on it; it knows none of them.
        .target(
            name: "LocationEngine",
            dependencies: [
                "GNSS", "DescriptorIO", "Locking", "CLibCrypto",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "LocationWire", dependencies: ["GNSS", "LocationEngine", "Locking", "NMEA"]),
        // Where an app's engine runs: in its own process, or in gpslocd reached over its socket;
        // in the engine's types, without Foundation, so that gpsloc needs no more than this.
        .target(
            name: "LocationHosting",
            dependencies: [
                "GNSS", "DescriptorIO", "LocationEngine", "LocationWire", "Locking",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The Apple-API façade over the engine: in process, or as a client of gpslocd. The only
        // module with full Foundation (NSObject, NSSecureCoding), which brings ICU with it.
        .target(
            name: "OpenCoreLocation", dependencies: ["GNSS", "LocationEngine", "LocationHosting", "Locking"]),
        .target(
            name: "LocationDaemon",
            dependencies: [
                "DescriptorIO", "GNSS", "GNSSSources", "LocationEngine", "LocationWire", "Locking", "CLinux",
                "CSDBus", "CGeoClueBus", "CActivityBus",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .executableTarget(
            name: "gpslocd",
            dependencies: [
                "BuildInfo", "DescriptorIO", "GNSS", "LocationDaemon", "LocationEngine", "GNSSSources",
                "TrackJournal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .executableTarget(
            name: "gpsloc",
            dependencies: [
                "BuildInfo", "GNSS", "GNSSSimulation", "GNSSSources", "LocationEngine", "LocationWire",
                "LocationHosting", "DescriptorIO", "Locking", "CLinux",
                .target(name: "Telematics", condition: .when(traits: ["Journal"])),
                .target(name: "TrackJournal", condition: .when(traits: ["Journal"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A program of one's own, as README's "Core Location on Linux" writes it.
        .executableTarget(
            name: "where-am-i", dependencies: ["GNSSSources", "LocationEngine", "OpenCoreLocation"],
            path: "examples/WhereAmI"),
        // A telematics box of one's own: the recorder and the uplink embedded (README, docs/telematics.md).
        .executableTarget(
            name: "telematics-box",
            dependencies: ["GNSSSources", "LocationEngine", "LocationHosting", "Telematics", "TrackJournal"],
            path: "examples/TelematicsBox"),
        .target(
            name: "TestSupport", dependencies: ["DescriptorIO", "NMEA", "GNSS", "Locking", "TestWidth"],
            path: "Tests/TestSupport"),
        // How many tests run at once (Tests/TestWidth/width.c says why).
        .target(name: "TestWidth", path: "Tests/TestWidth"),
        .testTarget(name: "NMEATests", dependencies: ["NMEA", "GNSS", "TestSupport"]),
        .testTarget(name: "GNSSTests", dependencies: ["GNSS", "GNSSSimulation", "TestSupport"]),
        .testTarget(
            name: "GNSSSourcesTests",
            dependencies: [
                "DescriptorIO", "GNSSSources", "Locking", "NMEA", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "TrackJournalTests",
            dependencies: [
                "TrackJournal", "GNSSSources", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "LocationEngineTests", dependencies: ["LocationEngine", "GNSS", "TestSupport"]),
        .testTarget(
            name: "OpenCoreLocationTests",
            dependencies: [
                "OpenCoreLocation", "LocationEngine", "LocationWire", "GNSSSources", "Locking", "TestSupport",
            ]),
        .testTarget(
            name: "GPSLocTests",
            dependencies: ["DescriptorIO", "gpsloc", "where-am-i", "telematics-box", "TestSupport"]),
        // Apple-platform code in the Swift 5 language mode, as most apps still build.
        .testTarget(
            name: "Swift5SamplesTests", dependencies: ["OpenCoreLocation", "LocationEngine"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "LocationDaemonTests",
            dependencies: [
                "DescriptorIO", "GNSSSources", "LocationDaemon", "LocationEngine", "LocationWire", "Locking",
                "OpenCoreLocation",
                "TestSupport",
                .product(name: "NIOPosix", package: "swift-nio"),
                "gpslocd",
                "gpsloc",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
