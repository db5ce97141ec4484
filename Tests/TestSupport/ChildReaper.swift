// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking

/// Ends the programs the tests start when the test process ends without stopping them: a test
/// that crashes the process, or a run killed at its watchdog. Left running, a daemon keeps its
/// pseudo-terminals, sockets and ports, and the next run fails for what this one left behind
/// ("another program has this receiver open").
///
/// Every program started through ``Runner`` or ``RunningProcess`` is written to a list, with the
/// time it started (so that a number the system has given to another program since is left
/// alone). A watcher of its own, started with the first program, waits for the test process to
/// end and then kills each program of the list still running, with everything it started.
public enum ChildReaper {
    /// The watcher, in Python (which the tools already need): given the test process's number
    /// and the list, it looks at the one every second until it has ended, then reads the other.
    public static let watcher = #"""
        import os, sys, time
        parent, registry = int(sys.argv[1]), sys.argv[2]
        def fields(pid):
            # /proc/PID/stat after the name (which may hold spaces and parentheses); None once
            # the program has ended.
            try:
                with open(f"/proc/{pid}/stat") as f:
                    found = f.read().rsplit(")", 1)[1].split()
                return found if len(found) > 19 else None
            except (OSError, IndexError):
                return None
        def alive(pid):
            # Ended, or ended and not yet waited for (a zombie).
            found = fields(pid)
            return found is not None and found[0] != "Z"
        def stat(pid):
            found = fields(pid)
            return (int(found[1]), found[19]) if found else None  # parent, start time
        while alive(parent):
            time.sleep(1)
        try:
            with open(registry) as f:
                listed = [line.split() for line in f if line.strip()]
        except OSError:
            listed = []
        children = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (found := stat(int(entry))):
                children.setdefault(found[0], []).append(int(entry))
        doomed = []
        for pid, started in listed:
            found = stat(int(pid))
            if found is None or found[1] != started:
                continue
            tree = [int(pid)]
            for member in tree:
                tree.extend(children.get(member, []))
            doomed.extend(tree)
        for pid in doomed:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        try:
            os.unlink(registry)
        except OSError:
            pass
        """#

    private static let registry: String? = {
        let path = NSTemporaryDirectory() + "/ocl-test-children-\(getpid())"
        guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        // Foundation learns that a program it started has ended when the program's end of a
        // socket closes, and then waits for it: the watcher keeps what it inherits open until
        // it ends (closing it sooner held Foundation's one waiting thread, and every test that
        // waits for a program, until the test process ended).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", watcher, String(getpid()), path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            // No python3: nothing watches, and the list is not kept.
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
        return path
    }()

    private static let lock = Mutex<Void>(())

    /// Lists the program `pid`, just started, to be killed if the test process ends first.
    public static func register(_ pid: Int32) {
        guard let registry, let started = startTime(of: pid) else { return }
        lock.withLock { _ in
            guard let handle = FileHandle(forWritingAtPath: registry) else { return }
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data("\(pid) \(started)\n".utf8))
        }
    }

    /// Field 22 of `/proc/PID/stat`, the time the program started.
    public static func startTime(of pid: Int32) -> String? {
        ProcessStat(pid: pid)?[field: 22].map(String.init)
    }
}
