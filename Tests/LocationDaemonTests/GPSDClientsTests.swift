// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// gpsd's own clients from Debian, unmodified, on gpslocd: each run at once by three users of
/// their own, one granted precise locations, one approximate ones, one nothing.
@Suite(
    "gpslocd: cgps, gpscsv, gpsprof and xgps", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cgps"), "gpsd-clients is not installed")
)
struct GPSDClientsTests {
    /// The three users, the receiver and a daemon serving gpsd's protocol on TCP, `app` granted
    /// to the first precisely and to the second approximately.
    struct Stage {
        let precise: Account
        let approximate: Account
        let denied: Account
        let receiver: TenHertzReceiver
        let daemon: DaemonHarness
        let port: Int

        /// With `source`, the daemon reads it instead of the 10 Hz receiver (which sends no
        /// satellites).
        init(app: String, source: String? = nil) async throws {
            precise = try await Account.ensure("ocl-alice")
            approximate = try await Account.ensure("ocl-bob")
            denied = try await Account.ensure("ocl-mallory")
            receiver = try TenHertzReceiver()
            (daemon, port) = try await GPSDProtocolTests.daemon(source: source ?? receiver.source)
            try await GPSDProtocolTests.grant(daemon, uid: precise.uid, app: app, approximate: false)
            try await GPSDProtocolTests.grant(daemon, uid: approximate.uid, app: app, approximate: true)
        }

        var accounts: [Account] { [precise, approximate, denied] }

        /// Whether a position is one of the receiver's fixes, to `tolerance` degrees.
        func isFix(_ latitude: Double, _ longitude: Double, tolerance: Double = 1e-6) -> Bool {
            receiver.fixes.contains {
                abs($0.latitude - latitude) < tolerance && abs($0.longitude - longitude) < tolerance
            }
        }

        func stop() async {
            receiver.stop()
            await daemon.stop()
        }
    }

    /// Runs a shell command to its end, its output nowhere a test waits on.
    static func shell(_ command: String) {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [Int32(0), 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
        }
        let arguments: [UnsafeMutablePointer<CChar>?] = [
            strdup("/bin/sh"), strdup("-c"), strdup(command), nil,
        ]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", &actions, nil, arguments, environ) == 0 else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// A Python client runs as its interpreter: its user's decision is the interpreter's.
    static let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path

    @Test(
        "cgps draws the receiver's position for a precise grant, an approximate one for the other, none when denied"
    )
    func cgps() async throws {
        let stage = try await Stage(app: "/usr/bin/cgps")
        let tmux = "/usr/bin/tmux"
        // cgps draws on a terminal: tmux gives it one, 100 columns wide, and shows its screen.
        // tmux's server outlives the command that started it: its output goes nowhere the test
        // runner waits on.
        let directory = NSTemporaryDirectory() + "ocl-cgps-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for account in stage.accounts {
            let command =
                ([setprivPath.path] + account.setpriv() + ["/usr/bin/cgps", "127.0.0.1:\(stage.port)"])
                .joined(separator: " ")
            Self.shell("\(tmux) -S \(directory)/\(account.name) new-session -d -x 100 -y 30 '\(command)'")
        }
        defer {
            for account in stage.accounts {
                Self.shell("\(tmux) -S \(directory)/\(account.name) kill-server")
            }
        }
        func screen(_ account: Account) -> String {
            let file = "\(directory)/\(account.name).screen"
            Self.shell("\(tmux) -S \(directory)/\(account.name) capture-pane -p > \(file)")
            return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
        /// The latitude and longitude cgps shows ("Latitude: 52.37309400 N").
        func position(_ text: String) -> (Double, Double)? {
            func value(_ label: String) -> Double? {
                guard let line = text.split(separator: "\n").first(where: { $0.contains(label) }) else {
                    return nil
                }
                let after = line[line.range(of: label)!.upperBound...]
                let number = after.drop { !"0123456789.-".contains($0) }.prefix { "0123456789.".contains($0) }
                guard var degrees = Double(number) else { return nil }
                let rest = after.drop { !"0123456789.-".contains($0) }.dropFirst(number.count)
                if rest.trimmingCharacters(in: .whitespaces).hasPrefix("S")
                    || rest.trimmingCharacters(in: .whitespaces).hasPrefix("W")
                {
                    degrees = -degrees
                }
                return degrees
            }
            guard let latitude = value("Latitude"), let longitude = value("Longitude") else { return nil }
            return (latitude, longitude)
        }
        var screens: [String: String] = [:]
        _ = await waitUntil(within: 15) {
            for account in stage.accounts { screens[account.name] = screen(account) }
            return position(screens[stage.precise.name] ?? "") != nil
                && position(screens[stage.approximate.name] ?? "") != nil
                && screens[stage.denied.name]?.contains(#""class":"ERROR""#) == true
        }
        let precise = try #require(
            position(screens[stage.precise.name] ?? ""), "\(screens[stage.precise.name] ?? "")")
        #expect(stage.isFix(precise.0, precise.1, tolerance: 1e-7), "\(screens[stage.precise.name] ?? "")")
        let approximate = try #require(
            position(screens[stage.approximate.name] ?? ""), "\(screens[stage.approximate.name] ?? "")")
        #expect(
            !stage.isFix(approximate.0, approximate.1, tolerance: 1e-4),
            "\(screens[stage.approximate.name] ?? "")")
        #expect(stage.isFix(approximate.0, approximate.1, tolerance: 0.2), "within the reduction's reach")
        #expect(position(screens[stage.denied.name] ?? "") == nil, "\(screens[stage.denied.name] ?? "")")
        // cgps shows what it reads below its panes: the ERROR that says why and what to run.
        #expect(
            screens[stage.denied.name]?.contains(#""class":"ERROR""#) == true,
            "\(screens[stage.denied.name] ?? "")")
        await stage.stop()
    }

    @Test(
        "gpscsv writes the receiver's TPVs for a precise grant, reduced ones for an approximate one, none when denied"
    )
    func gpscsv() async throws {
        let stage = try await Stage(app: Self.python)
        // gpscsv ends after 20 TPVs, or is ended after 8 s (SIGKILL: the test runner's children
        // inherit SIGTERM blocked), its rows written as they come.
        func run(_ account: Account) async throws -> ProcessResult {
            try await Runner.run(
                account.setpriv() + [
                    "/usr/bin/timeout", "-s", "KILL", "8", "/usr/bin/gpscsv", "-n", "20", "-f",
                    "time,lat,lon,speed", "127.0.0.1:\(stage.port)",
                ], executable: setprivPath, environment: ["PYTHONUNBUFFERED": "1"])
        }
        async let precise = run(stage.precise)
        async let approximate = run(stage.approximate)
        async let denied = run(stage.denied)
        let (a, b, m) = try await (precise, approximate, denied)
        func rows(_ output: String) -> [[Substring]] {
            output.split(separator: "\n").dropFirst().map {
                $0.split(separator: ",", omittingEmptySubsequences: false)
            }
        }
        let preciseRows = rows(a.standardOutput).filter { $0.count == 4 && Double($0[1]) != nil }
        #expect(
            a.standardOutput.hasPrefix("time,lat,lon,speed"),
            "\(a.standardOutput.prefix(200))\(a.standardError)")
        #expect(preciseRows.count >= 15, "10 Hz for 3 s: \(preciseRows.count)")
        #expect(preciseRows.allSatisfy { stage.isFix(Double($0[1]) ?? 0, Double($0[2]) ?? 0) })
        #expect(preciseRows.contains { !$0[3].isEmpty }, "a precise TPV has the speed")
        let reducedRows = rows(b.standardOutput).filter { $0.count == 4 && Double($0[1]) != nil }
        #expect(!reducedRows.isEmpty && reducedRows.count <= 2, "\(b.standardOutput)\(b.standardError)")
        #expect(
            reducedRows.allSatisfy { !stage.isFix(Double($0[1]) ?? 0, Double($0[2]) ?? 0, tolerance: 1e-4) })
        #expect(reducedRows.allSatisfy { $0[3].isEmpty }, "a reduced TPV has no speed")
        #expect(
            rows(m.standardOutput).allSatisfy { Double($0.dropFirst().first ?? "") == nil },
            "\(m.standardOutput)")
        await stage.stop()
    }

    @Test(
        "gpsprof profiles the receiver's fixes for a precise grant; approximate or denied, it has nothing to plot"
    )
    func gpsprof() async throws {
        let stage = try await Stage(app: Self.python)
        // gpsprof plots once it has `samples` fixes; it is ended after `seconds` (SIGKILL: the test
        // runner's children inherit SIGTERM blocked) when they do not come.
        func run(_ account: Account, samples: Int, seconds: Int) async throws -> ProcessResult {
            try await Runner.run(
                account.setpriv() + [
                    "/usr/bin/timeout", "-s", "KILL", "\(seconds)", "/usr/bin/gpsprof", "-n", "\(samples)",
                    "-f",
                    "uninstrumented", "127.0.0.1:\(stage.port)",
                ], executable: setprivPath, environment: ["PYTHONUNBUFFERED": "1"])
        }
        async let precise = run(stage.precise, samples: 20, seconds: 20)
        async let approximate = run(stage.approximate, samples: 3, seconds: 5)
        async let denied = run(stage.denied, samples: 3, seconds: 5)
        let (a, b, m) = try await (precise, approximate, denied)
        // gnuplot's script: one data line (the fix's latency) per TPV with a fix after the plot
        // command, the receiver's path in its title.
        func samples(_ output: String) -> Int {
            guard let plot = output.range(of: "plot \"-\"") else { return 0 }
            return output[plot.upperBound...].split(separator: "\n").count { Double($0) != nil }
        }
        #expect(samples(a.standardOutput) >= 10, "\(a.standardOutput.prefix(600))\(a.standardError)")
        #expect(a.standardOutput.contains(stage.receiver.terminal.slavePath), "the receiver in the title")
        #expect(
            samples(b.standardOutput) == 0,
            "3 samples take the reducer longer than 5 s: \(b.standardOutput.prefix(600))")
        #expect(samples(m.standardOutput) == 0, "\(m.standardOutput.prefix(600))")
        await stage.stop()
    }

    /// How many pixels of an `xwd` picture are a saturated colour (a satellite's mark in xgps's
    /// sky view, coloured by signal), rather than the greys of the window and its text.
    static func colouredPixels(xwd data: Data) -> Int? {
        let bytes = [UInt8](data)
        func field(_ index: Int) -> Int {
            let offset = index * 4
            return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }
        guard bytes.count > 100 else { return nil }
        let (headerSize, height, byteOrder, bitsPerPixel, bytesPerLine, colours) = (
            field(0), field(5), field(7), field(11), field(12), field(19)
        )
        guard bitsPerPixel == 32 else { return nil }
        let start = headerSize + colours * 12
        guard bytes.count >= start + height * bytesPerLine else { return nil }
        var count = 0
        for row in 0..<height {
            var offset = start + row * bytesPerLine
            for _ in 0..<(bytesPerLine / 4) {
                // 0x00RRGGBB in the picture's byte order.
                let (red, green, blue) =
                    byteOrder == 0
                    ? (bytes[offset + 2], bytes[offset + 1], bytes[offset])
                    : (bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
                if Int(max(red, green, blue)) - Int(min(red, green, blue)) > 80 { count += 1 }
                offset += 4
            }
        }
        return count
    }

    @Test(
        "xgps under Xvfb draws the satellites in view for a precise grant, none when approximate or denied",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "xvfb is not installed"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xwd"), "x11-apps is not installed"))
    func xgps() async throws {
        let stage = try await Stage(
            app: Self.python, source: "file:\(Fixtures.url("drive-1hz.nmea").path)")
        let base = 90 + Int(getpid() % 8) * 3
        let displays = [(stage.precise, base), (stage.approximate, base + 1), (stage.denied, base + 2)]
        // Killed with SIGKILL (the test runner's children inherit SIGTERM blocked), Xvfb leaves its
        // lock and socket behind: they are removed before and after.
        func clear() {
            for (_, display) in displays {
                Self.shell("rm -f /tmp/.X\(display)-lock /tmp/.X11-unix/X\(display)")
            }
        }
        clear()
        for (_, display) in displays {
            Self.shell("/usr/bin/Xvfb :\(display) -ac -screen 0 900x700x24 -nolisten tcp &")
        }
        defer {
            Self.shell("pkill -KILL -f '^/usr/bin/Xvfb :(\(base)|\(base + 1)|\(base + 2)) '")
            clear()
        }
        _ = await waitUntil(within: 10) {
            displays.allSatisfy { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0.1)") }
        }
        for (account, display) in displays {
            let command =
                ([setprivPath.path] + account.setpriv() + ["/usr/bin/xgps", "127.0.0.1:\(stage.port)"])
                .joined(separator: " ")
            Self.shell("DISPLAY=:\(display) \(command) &")
        }
        defer { Self.shell("pkill -KILL -f '^/usr/bin/python3 /usr/bin/xgps 127.0.0.1:\(stage.port)'") }
        func pictures() -> [String: Int] {
            var pictures: [String: Int] = [:]
            for (account, display) in displays {
                let file = NSTemporaryDirectory() + "ocl-xgps-\(getpid())-\(display).xwd"
                Self.shell("/usr/bin/xwd -root -silent -display :\(display) > \(file)")
                defer { try? FileManager.default.removeItem(atPath: file) }
                let data = try? Data(contentsOf: URL(fileURLWithPath: file))
                pictures[account.name] = data.flatMap { Self.colouredPixels(xwd: $0) }
            }
            return pictures
        }
        // The log is replayed at its pace, one epoch a second, and xgps (Python and GTK) starts
        // slowly on a loaded machine: the precise one's sky is waited for, then every window is
        // given three epochs more to draw whatever it was sent.
        _ = await waitUntil(within: 40, every: .seconds(1)) {
            (pictures()[stage.precise.name] ?? 0) > 200
        }
        try await Task.sleep(for: .seconds(3))
        let drawn = pictures()
        let precise = try #require(drawn[stage.precise.name], "no picture of xgps for the precise user")
        let approximate = try #require(
            drawn[stage.approximate.name], "no picture for the approximate user")
        let denied = try #require(drawn[stage.denied.name], "no picture of xgps for the denied user")
        // An approximate client gets no SKY: its sky view is as empty as a denied one's.
        #expect(
            precise > max(approximate, denied) + 200, "coloured pixels: \(precise), \(approximate), \(denied)"
        )
        print(
            "xgps: \(precise) coloured pixels drawn for the precise user, \(approximate) for the approximate one, "
                + "\(denied) for the denied one")
        await stage.stop()
    }
}
