// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSSSources
import Testing

/// One physical receiver, whatever it is called: the daemon keeps one reduced state per app per
/// receiver, so every spelling of one device must come to the same identity.
@Suite("The receiver behind a source address")
struct DeviceIdentityTests {
    static func identity(_ text: String) throws -> String { try SourceAddress(parsing: text).deviceIdentity }

    @Test("a file under ./, ../ and a link is one file")
    func files() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ocl-identity-\(UUID())")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/a/x.nmea", contents: Data())
        try FileManager.default.createSymbolicLink(
            atPath: root + "/link.nmea", withDestinationPath: root + "/a/x.nmea")
        let plain = try Self.identity("file:\(root)/a/x.nmea")
        #expect(try Self.identity("file:\(root)/a/./x.nmea") == plain)
        #expect(try Self.identity("file:\(root)/a/b/../x.nmea") == plain)
        #expect(try Self.identity("file:\(root)/link.nmea") == plain)
        _ = FileManager.default.createFile(atPath: root + "/a/y.nmea", contents: Data())
        #expect(try Self.identity("file:\(root)/a/y.nmea") != plain)
    }

    @Test("a serial device by a by-id link, by its own path, and through gpsd on this machine")
    func devices() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ocl-identity-\(UUID())")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/by-id", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/ttyUSB0", contents: Data())
        try FileManager.default.createSymbolicLink(
            atPath: root + "/by-id/usb-u-blox_GNSS-if00", withDestinationPath: "../ttyUSB0")
        let device = try Self.identity("serial:\(root)/ttyUSB0")
        #expect(try Self.identity("serial:\(root)/by-id/usb-u-blox_GNSS-if00?baud=9600") == device)
        #expect(try Self.identity("gpsd://localhost:2947\(root)/ttyUSB0") == device)
        #expect(try Self.identity("gpsd://127.0.0.1\(root)/by-id/usb-u-blox_GNSS-if00") == device)
        // gpsd on another machine reads another device, whatever it calls it.
        #expect(try Self.identity("gpsd://boat.example:2947\(root)/ttyUSB0") != device)
    }

    @Test("network sources by host and port, the host's case aside")
    func network() throws {
        #expect(try Self.identity("tcp://Boat.Example:10110") == Self.identity("tcp://boat.example:10110"))
        #expect(try Self.identity("tcp://boat.example:10110") != Self.identity("tcp://boat.example:10111"))
        #expect(try Self.identity("gpsd://localhost:2947") == Self.identity("gpsd://LOCALHOST:2947"))
    }
}
