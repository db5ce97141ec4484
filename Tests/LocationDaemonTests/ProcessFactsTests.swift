// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationDaemon
import Testing

/// What the daemon reads in `/proc` to know a client: tables of the files as Linux writes them.
@Suite("Client identity from /proc")
struct ProcessFactsTests {
    @Test(
        "cgroup paths give the Flatpak app id or the systemd unit",
        arguments: [
            ("0::/user.slice/user-1000.slice/session-3.scope\n", nil, nil),
            ("0::/system.slice/tracker.service\n", nil, "tracker.service"),
            (
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/logger.service\n", nil,
                "logger.service"
            ),
            (
                "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.Maps-41231.scope\n",
                "org.example.Maps", nil
            ),
            ("0::/user.slice/user-1000.slice/user@1000.service/init.scope\n", nil, nil),
            // A hybrid system: the systemd hierarchy names the unit, the unified one only "/".
            ("12:memory:/x\n1:name=systemd:/system.slice/boat.service\n0::/\n", nil, "boat.service"),
            (
                "1:name=systemd:/system.slice/boat.service\n0::/system.slice/other.service\n", nil,
                "other.service"
            ),
            ("12:memory:/x\n1:name=systemd:/system.slice/boat.service\n", nil, "boat.service"),
            ("", nil, nil),
        ] as [(String, String?, String?)])
    func cgroup(_ text: String, _ flatpak: String?, _ unit: String?) {
        let placement = ProcessFacts.placement(cgroupFile: text)
        #expect(placement.flatpak == flatpak)
        #expect(placement.unit == unit)
    }

    @Test("stat is read after the command's last parenthesis, whatever the command holds")
    func stat() throws {
        let plain = "4242 (gpsloc) S 1 4242 4242 34816 4242 4194304 0 0"
        let state = try #require(ProcessFacts.terminalState(statFile: plain))
        #expect(state == .init(processGroup: 4242, terminal: 34816, foregroundGroup: 4242))
        #expect(state.isForeground)

        // A command name may hold spaces and parentheses to mislead a naive split.
        let tricky = "77 (a) 1 2 (b) S 1 77 77 34817 99 4194304"
        let background = try #require(ProcessFacts.terminalState(statFile: tricky))
        #expect(background.processGroup == 77 && background.foregroundGroup == 99)
        #expect(!background.isForeground)

        let daemon = try #require(ProcessFacts.terminalState(statFile: "9 (svc) S 1 9 9 0 -1 0"))
        #expect(!daemon.isForeground, "no controlling terminal: never in use")
        #expect(ProcessFacts.terminalState(statFile: "garbage") == nil)
    }

    @Test("supplementary groups come from the status file's Groups line")
    func groups() {
        let status = "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\nGroups:\t4 20 27 1001 \nNSpid:\t1\n"
        #expect(ProcessFacts.groups(statusFile: status) == [4, 20, 27, 1001])
        #expect(ProcessFacts.groups(statusFile: "Groups:\n") == [])
    }
}
