// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Who a client of gpsd's TCP port is: a program of this machine traced to its process, whatever
/// size a user grows the kernel's tables to; a network client only when no process of this
/// machine holds its end and its address is none of this machine's, and then nothing unless an
/// administrator granted its block.
@Suite(
    "gpslocd: who a client of gpsd's TCP port is", .serialized,
    .enabled(if: getuid() == 0, "needs root to make users and network namespaces"),
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe"), "gpsd-clients is not installed")
)
struct GPSDPortIdentityTests {
    /// The daemon, grants and reports of gpsd's protocol's tests.
    typealias GPSD = GPSDProtocolTests

    @Test(
        "a client in a network namespace of its own is a network client: nothing unless an administrator allows its address block, and nobody is asked"
    )
    func networkClient() async throws {
        let mallory = try await Account.ensure("ocl-mallory")
        let tag = String(UInt16.random(in: 1000...9999))
        let namespace = "ocl-net-\(tag)"
        let (outer, inner) = ("ocl-o\(tag)", "ocl-i\(tag)")
        let octet = Int.random(in: 1...250)
        let (host, client) = ("10.231.\(octet).1", "10.231.\(octet).2")
        let ip = URL(fileURLWithPath: "/usr/sbin/ip")
        for command in [
            ["netns", "add", namespace], ["link", "add", outer, "type", "veth", "peer", "name", inner],
            ["link", "set", inner, "netns", namespace], ["addr", "add", "\(host)/30", "dev", outer],
            ["link", "set", outer, "up"],
            ["netns", "exec", namespace, "ip", "addr", "add", "\(client)/30", "dev", inner],
            ["netns", "exec", namespace, "ip", "link", "set", inner, "up"],
        ] {
            let result = try await Runner.run(command, executable: ip)
            try #require(result.status == 0, "ip \(command.joined(separator: " ")): \(result.standardError)")
        }
        var failure: (any Error)?
        do {
            try await Self.servesOnlyLocalClients(
                mallory: mallory, namespace: namespace, host: host, client: client)
        } catch {
            failure = error
        }
        _ = try? await Runner.run(["link", "del", outer], executable: ip)
        _ = try? await Runner.run(["netns", "del", namespace], executable: ip)
        if let failure { throw failure }
    }

    @Test(
        "a table of sockets grown past 1 MiB by one user's own: neither that user nor another is served as a network client"
    )
    func grownSocketTable() async throws {
        let table = try await Self.grownSocketTable(pairs: 4500)
        #expect(table > 1 << 20, "/proc/net/tcp held \(table) bytes")
    }

    /// One user's own loopback connections, `pairs` of them, grow the kernel's table of TCP
    /// sockets while that user's and another user's gpspipe connect to gpsd's port with this
    /// machine's loopback block granted: neither is served as a network client, the other user is
    /// served as itself. Returns how large the table grew.
    static func grownSocketTable(pairs: Int) async throws -> Int {
        let mallory = try await Account.ensure("ocl-mallory")
        let bob = try await Account.ensure("ocl-bob")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let (daemon, port) = try await GPSD.daemon(source: receiver.source)
        // This machine's loopback block granted precise, as a careless administrator might: a program of
        // this machine must still never be taken for a network client of it.
        let admin = try daemon.client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":1,"app":"network:127.0.0.0/8","level":"always","approximate":false}"#)
        #expect(await admin.wait { $0.contains(.ok(id: 1)) }, "\(admin.output)")
        await admin.stop()
        try await GPSD.grant(daemon, uid: bob.uid, app: GPSD.gpspipe, approximate: false)
        let growers = try await Self.growSocketTable(pairs: pairs, as: mallory)
        defer { for grower in growers { grower.signal(SIGKILL) } }
        let table = try Self.fileSize("/proc/net/tcp")

        // Mallory's gpspipe has no decision: it gets none of the block's locations. (Her process is found
        // among the descriptors of all her processes, 120,000 in the largest case: 8 s to say so.)
        let undecided = try await Runner.run(
            mallory.setpriv() + [GPSD.gpspipe, "-w", "-x", "8", "127.0.0.1:\(port)"], executable: setprivPath)
        #expect(
            !GPSD.reports(undecided.standardOutput).contains { $0["class"] as? String == "TPV" },
            "\(undecided.standardOutput)")
        // Bob's, granted, is served as bob's.
        let granted = try await Runner.run(
            bob.setpriv() + [GPSD.gpspipe, "-w", "-n", "8", "127.0.0.1:\(port)"], executable: setprivPath)
        #expect(
            GPSD.reports(granted.standardOutput).contains { $0["class"] as? String == "TPV" },
            "\(granted.standardOutput)")
        #expect(!daemon.log.contains("as network:127"), "\(daemon.log)")
        // Known as the program it is, of the user it is: the ERROR names mallory's uid, and no network.
        let error = GPSD.reports(undecided.standardOutput).first { $0["class"] as? String == "ERROR" }?[
            "message"]
        #expect(
            (error as? String)?.contains("(uid \(mallory.uid))") == true
                && (error as? String)?.contains("network") == false, "\(undecided.standardOutput)")
        await daemon.stop()
        return table
    }

    /// `account`'s own loopback connections, `pairs` of them, held open: spread over as many
    /// processes as its limit of open files needs (each holds both ends of its pairs and listens on
    /// a port of its own). The processes, holding; kill them to let the sockets go.
    static func growSocketTable(pairs: Int, as account: Account) async throws -> [RunningProcess] {
        let script = """
            import resource, socket, sys, time
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(4096)
            held = []
            for _ in range(int(sys.argv[1])):
                held.append(socket.create_connection(listener.getsockname())); held.append(listener.accept()[0])
            print("holding", len(held), flush=True)
            time.sleep(600)
            """
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let perProcess = max(1000, min(9000, (Int(clamping: limit.rlim_max) - 200) / 2))
        var growers: [RunningProcess] = []
        var left = pairs
        while left > 0 {
            let these = min(left, perProcess)
            growers.append(
                try RunningProcess(
                    account.setpriv() + ["/usr/bin/python3", "-c", script, "\(these)"],
                    executable: setprivPath))
            left -= these
        }
        for grower in growers {
            let holding = await grower.waitForOutput(within: 300) { _ in
                grower.output.contains("holding") || !grower.isRunning
            }
            guard holding && grower.output.contains("holding") else {
                for grower in growers { grower.signal(SIGKILL) }
                throw Growing(text: "a process growing the table stopped: \(grower.errors)")
            }
        }
        return growers
    }

    struct Growing: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    /// A file's size, as `stat` would give it (for `/proc`, what reading it whole gives).
    static func fileSize(_ path: String) throws -> Int {
        try #require(FileHandle(forReadingAtPath: path)).readDataToEndOfFile().count
    }

    /// The network client's half of ``networkClient()``, in the namespace it made.
    static func servesOnlyLocalClients(mallory: Account, namespace: String, host: String, client: String)
        async throws
    {
        let ip = URL(fileURLWithPath: "/usr/sbin/ip")
        let receiver = try TenHertzReceiver()
        defer { receiver.stop() }
        let (daemon, port) = try await GPSD.daemon(source: receiver.source, host: host)
        try await GPSD.grant(daemon, uid: mallory.uid, app: GPSD.gpspipe, approximate: false)
        let remote = try await Runner.run(
            ["netns", "exec", namespace, setprivPath.path] + mallory.setpriv()
                + [GPSD.gpspipe, "-w", "-x", "2", "\(host):\(port)"], executable: ip)
        let reports = GPSD.reports(remote.standardOutput)
        #expect(!reports.contains { $0["class"] as? String == "TPV" }, "\(remote.standardOutput)")
        // Greeted as gpsd greets every client, refused ones included: VERSION, then the ERROR.
        #expect(
            reports.map { $0["class"] as? String ?? "" }.prefix(2) == ["VERSION", "ERROR"],
            "\(remote.standardOutput)")
        let message = reports.first { $0["class"] as? String == "ERROR" }?["message"] as? String
        #expect(
            message?.contains("a network client") == true, "\(remote.standardOutput)\(remote.standardError)")
        #expect(
            message?.contains("sudo gpsloc auth grant 'network:\(client)/32' always") == true,
            "\(message ?? "")")
        // The same program of the same user on this machine, at the same address, is known and served.
        let local = try await Runner.run(
            mallory.setpriv() + [GPSD.gpspipe, "-w", "-n", "8", "\(host):\(port)"], executable: setprivPath)
        #expect(
            GPSD.reports(local.standardOutput).contains { $0["class"] as? String == "TPV" },
            "\(local.standardOutput)")

        // An administrator allows the block approximately: the network client gets the block's
        // reduced location and nothing else. A when-in-use grant, or a name that is no block, is refused.
        let block = client.split(separator: ".").dropLast().joined(separator: ".") + ".0/30"
        let admin = try daemon.client(as: nil)
        await admin.hello()
        admin.send(
            #"{"op":"auth.grant","id":1,"app":"network:\#(block)","level":"whenInUse","approximate":true}"#)
        admin.send(
            #"{"op":"auth.grant","id":2,"app":"network:10.1.2.300","level":"always","approximate":true}"#)
        // gpsloc's own command, run by root: Always unless told otherwise, for a network client.
        let grant = try await Runner.run(
            ["auth", "grant", "network:\(block)", "--approximate"],
            environment: ["OPENCORELOCATION_SOCKET": daemon.socket])
        #expect(grant.status == 0, "\(grant.standardError)")
        #expect(await admin.wait { _ in admin.output.contains("not an address block") }, "\(admin.output)")
        #expect(admin.output.contains("a network client is never in use"), "\(admin.output)")
        #expect(admin.output.contains("'network:10.1.2.300' is not an address block"), "\(admin.output)")
        // The network's decisions are no user's, and are listed under the uid no process has.
        admin.send(#"{"op":"auth.show","id":4,"uid":4294967295}"#)
        #expect(
            await admin.wait(within: 10) { _ in admin.output.contains("network:\(block)") }, "\(admin.output)"
        )
        await admin.stop()
        let allowed = try await Runner.run(
            ["netns", "exec", namespace, setprivPath.path] + mallory.setpriv()
                + [GPSD.gpspipe, "-w", "-x", "3", "\(host):\(port)"], executable: ip)
        let reduced = GPSD.reports(allowed.standardOutput).filter { $0["class"] as? String == "TPV" }
        #expect(!reduced.isEmpty, "\(allowed.standardOutput)\(allowed.standardError)\n\(daemon.log)")
        for tpv in reduced {
            #expect(Set(tpv.keys) == ["class", "device", "mode", "time", "lat", "lon", "eph"], "\(tpv)")
        }
        #expect(!GPSD.reports(allowed.standardOutput).contains { $0["class"] as? String == "SKY" })
        #expect(daemon.log.contains("network client at \(client)"), "\(daemon.log)")
        await daemon.stop()
    }
}
