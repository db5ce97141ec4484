// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationDaemon
import Testing

/// What the daemon reads in `/proc` to know a client: tables of the files as Linux writes them.
@Suite("Client identity from /proc")
struct ProcessFactsTests {
    @Test(
        "cgroup paths: a system unit only below the root's slices, a user's own units and Flatpak scopes apart",
        arguments: [
            ("0::/user.slice/user-1000.slice/session-3.scope\n", nil, nil, nil, nil),
            ("0::/system.slice/tracker.service\n", "tracker.service", nil, nil, nil),
            ("0::/tracker.service\n", "tracker.service", nil, nil, nil),
            // Below a service, its own (delegated) subtree: the names there are the service's to choose.
            ("0::/system.slice/runner.service/payload/tracker.service\n", "runner.service", nil, nil, nil),
            (
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/logger.service\n", nil, 1000,
                "logger.service", nil
            ),
            // A user names units in its manager's tree freely: never a system unit.
            (
                "0::/user.slice/user-65534.slice/user@65534.service/app.slice/tracker.service\n", nil, 65534,
                "tracker.service", nil
            ),
            (
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.Maps-41231.scope\n",
                nil, 1000, nil, "org.example.Maps"
            ),
            ("0::/user.slice/user-1000.slice/user@1000.service/init.scope\n", nil, 1000, nil, nil),
            // A hybrid system: the systemd hierarchy names the unit, the unified one only "/".
            (
                "12:memory:/x\n1:name=systemd:/system.slice/boat.service\n0::/\n", "boat.service", nil, nil,
                nil
            ),
            (
                "1:name=systemd:/system.slice/boat.service\n0::/system.slice/other.service\n",
                "other.service",
                nil, nil, nil
            ),
            ("12:memory:/x\n1:name=systemd:/system.slice/boat.service\n", "boat.service", nil, nil, nil),
            ("", nil, nil, nil, nil),
        ] as [(String, String?, UInt32?, String?, String?)])
    func cgroup(_ text: String, _ system: String?, _ manager: UInt32?, _ user: String?, _ flatpak: String?) {
        let placement = ProcessFacts.placement(cgroupFile: text)
        #expect(placement.systemUnit == system)
        #expect(placement.userManager == manager)
        #expect(placement.userUnit == user)
        #expect(placement.flatpakScope?.app == flatpak)
    }

    @Test("a Flatpak scope's name gives the app id and the number of the process that started it")
    func flatpakScope() throws {
        let text =
            "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Maps-4242.scope\n"
        let scope = try #require(ProcessFacts.placement(cgroupFile: text).flatpakScope)
        #expect(scope.app == "org.gnome.Maps" && scope.number == 4242)
        let unnumbered = ProcessFacts.placement(cgroupFile: "0::/app-flatpak-org.gnome.Maps.scope\n")
            .flatpakScope
        #expect(unnumbered?.app == "org.gnome.Maps" && unnumbered?.number == nil)
    }

    @Test("stat is read after the command's last parenthesis, whatever the command holds")
    func stat() throws {
        let plain = "4242 (gpsloc) S 1 4242 4242 34816 4242 4194304 0 0"
        let state = try #require(ProcessFacts.terminalState(statFile: plain))
        #expect(
            state
                == .init(parent: 1, processGroup: 4242, session: 4242, terminal: 34816, foregroundGroup: 4242)
        )
        #expect(state.isForeground)

        // A command name may hold spaces and parentheses to mislead a naive split.
        let tricky = "77 (a) 1 2 (b) S 1 77 77 34817 99 4194304"
        let background = try #require(ProcessFacts.terminalState(statFile: tricky))
        #expect(background.processGroup == 77 && background.foregroundGroup == 99)
        #expect(!background.isForeground)

        let daemon = try #require(ProcessFacts.terminalState(statFile: "9 (svc) S 1 9 9 0 -1 0"))
        #expect(!daemon.isForeground, "no controlling terminal: never in use")
        #expect(ProcessFacts.terminalState(statFile: "garbage") == nil)
        #expect(ProcessFacts.terminalState(statFile: "9 (svc) S 1 9") == nil, "cut before tpgid")
        #expect(ProcessFacts.terminalState(statFile: "9 (svc) S 1 9 9 x -1 0") == nil, "not a number")
        let spaced = try #require(ProcessFacts.terminalState(statFile: "12 (sh)  S  1 12 12 34818 -1\n"))
        #expect(spaced.terminal == 34818 && spaced.foregroundGroup == -1)
    }

    @Test("supplementary groups come from the status file's Groups line")
    func groups() {
        let status = "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\nGroups:\t4 20 27 1001 \nNSpid:\t1\n"
        #expect(ProcessFacts.groups(statusFile: status) == [4, 20, 27, 1001])
        #expect(ProcessFacts.groups(statusFile: "Groups:\n") == [])
    }
}
