// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking
import TestSupport

/// A system bus of the test's own: Debian's dbus-daemon with a system bus's default policy (no
/// name owned, no method called, but the bus daemon's own) and the policy files gpslocd ships
/// (`dist/dbus`), which are all that lets gpslocd own GeoClue2's name and call agents, and own
/// the activity indicator's name and be read there.
final class PrivateSystemBus: Sendable {
    let directory: String
    private let running: Mutex<RunningProcess?> = Mutex(nil)
    var process: RunningProcess? { running.withLock { $0 } }
    var socket: String { directory + "/system_bus_socket" }
    /// What `DBUS_SYSTEM_BUS_ADDRESS` says for it.
    var address: String { "unix:path=" + socket }

    static let daemonPath = "/usr/bin/dbus-daemon"

    init() async throws {
        directory = NSTemporaryDirectory() + "ocl-bus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let policy = Fixtures.packageRoot.appendingPathComponent(
            "dist/dbus/org.freedesktop.GeoClue2.gpslocd.conf"
        ).path
        let indicatorPolicy = Fixtures.packageRoot.appendingPathComponent(
            "dist/dbus/org.opencorelocation.Activity.conf"
        ).path
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(directory)/system_bus_socket</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <deny own="*"/>
                <deny send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/>
                <allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                <allow receive_type="signal"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
                <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
              </policy>
              <include>\(policy)</include>
              <include>\(indicatorPolicy)</include>
            </busconfig>
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory + "/system.conf"))
        try await launch()
    }

    /// Starts dbus-daemon on the configuration and waits for its socket.
    private func launch() async throws {
        let process = try RunningProcess(
            ["--nofork", "--nopidfile", "--nosyslog", "--config-file=\(directory)/system.conf"],
            executable: URL(fileURLWithPath: Self.daemonPath))
        running.withLock { $0 = process }
        let socket = socket
        let up = await waitUntil(within: 10) {
            FileManager.default.fileExists(atPath: socket) || !process.isRunning
        }
        guard up, process.isRunning else {
            throw BusError(description: "dbus-daemon did not start: \(process.errors)")
        }
    }

    /// The bus goes away (every connection with it) and a new one listens at the same address.
    func restart() async throws {
        process?.signal(SIGKILL)
        _ = await process?.wait(within: 10)
        try? FileManager.default.removeItem(atPath: socket)
        try await launch()
    }

    func stop() async {
        process?.signal(SIGKILL)
        _ = await process?.wait(within: 10)
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct BusError: Error, CustomStringConvertible {
        var description: String
    }
}
