// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import TestSupport
import Testing

/// The watcher that ends what a test process started when that process dies without stopping
/// it: a stand-in for a test process starts a program, which starts another, and is killed.
@Suite("The tests' programs end with the test process")
struct ChildReaperTests {
    static func alive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    @Test("a listed program and what it started are killed; a number now another program's is not")
    func orphansAreKilled() async throws {
        let directory = NSTemporaryDirectory() + "ocl-reaper-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The stand-in starts a shell that starts a sleep, says the shell's number, and sleeps.
        let parent = try RunningProcess(
            ["-c", #"sh -c 'sleep 300 & wait' & echo $!; exec sleep 300"#],
            executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(await parent.waitForOutput(within: 10) { $0.hasSuffix("\n") })
        let child = try #require(Int32(parent.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        var grandchild: Int32?
        #expect(
            await waitUntil(within: 10) {
                let children = try? String(
                    contentsOfFile: "/proc/\(child)/task/\(child)/children", encoding: .utf8)
                grandchild = children?.split(separator: " ").first.flatMap { Int32($0) }
                return grandchild != nil
            })
        // Another program, listed with a start time that is not its own: as a number the system
        // gave again after the listed program ended.
        let bystander = try RunningProcess(["300"], executable: URL(fileURLWithPath: "/bin/sleep"))
        defer { bystander.signal(SIGKILL) }
        let started = try #require(ChildReaper.startTime(of: child))
        let registry = directory + "/children"
        try "\(child) \(started)\n\(bystander.processIdentifier) 1\n".write(
            toFile: registry, atomically: true, encoding: .utf8)

        let watcher = try RunningProcess(
            ["-c", ChildReaper.watcher, String(parent.processIdentifier), registry],
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        defer { watcher.signal(SIGKILL) }
        try await Task.sleep(for: .milliseconds(1500))
        #expect(Self.alive(child), "nothing is killed while the test process lives")
        parent.signal(SIGKILL)
        #expect(await waitUntil(within: 10) { !Self.alive(child) }, "the listed program was killed")
        if let grandchild {
            #expect(await waitUntil(within: 10) { !Self.alive(grandchild) }, "what it started was killed")
        }
        #expect(await watcher.wait(within: 10) == 0, "\(watcher.errors)")
        #expect(bystander.isRunning, "a program whose start time is not the listed one is left alone")
        #expect(!FileManager.default.fileExists(atPath: registry))
    }
}
