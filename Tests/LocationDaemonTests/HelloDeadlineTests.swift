// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationWire
import TestSupport
import Testing

@testable import OpenCoreLocation

/// A connection's first request must come within `--hello-timeout`; once it has, the deadline is
/// gone: the connection may stay silent, and its deadline costs the daemon nothing more.
@Suite("gpslocd: the hello deadline")
struct HelloDeadlineTests {
    /// A connection of the test's own that says hello and reads the daemon's answer.
    static func greeted(_ socket: String) throws -> DaemonConnection {
        let connection = try DaemonConnection.open(path: socket)
        var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        #expect(connection.send(WireRequest.hello(version: WireProtocol.version, receiver: nil).encoded()))
        let line = try #require(try connection.readLine(timeout: 5000, splitter: &splitter))
        guard case .hello = try WireEvent.parse(line) else {
            Issue.record("not a hello: \(String(decoding: line, as: UTF8.self))")
            return connection
        }
        return connection
    }

    /// How many times the process's threads have gone to sleep: each is a wake-up after it.
    static func sleeps(of pid: Int32) -> Int {
        let tasks = "/proc/\(pid)/task"
        var total = 0
        for task in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let status = try? String(contentsOfFile: "\(tasks)/\(task)/status", encoding: .utf8) else {
                continue
            }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: "\t").last ?? "") ?? 0
            }
        }
        return total
    }

    @Test("a silent connection is closed at the deadline, with why; a greeted one is kept")
    func silentClosedGreetedKept() async throws {
        let daemon = try DaemonHarness(sources: [], extra: ["--hello-timeout", "1"])
        defer { try? FileManager.default.removeItem(atPath: daemon.root) }
        try await daemon.start()
        let silent = try DaemonConnection.open(path: daemon.socket)
        let greeted = try Self.greeted(daemon.socket)
        var splitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        let line = try #require(try silent.readLine(timeout: 5000, splitter: &splitter))
        #expect(String(decoding: line, as: UTF8.self).contains("no hello came within 1.0 seconds"))
        #expect((try? silent.readLine(timeout: 5000, splitter: &splitter)) == nil, "then closed")
        // Past the greeted one's deadline too: it is still served.
        try await Task.sleep(for: .milliseconds(500))
        var greetedSplitter = LineSplitter(maximumLength: WireProtocol.maximumEventLength)
        #expect(greeted.send(WireRequest.hello(version: WireProtocol.version, receiver: nil).encoded(id: 2)))
        let answer = try #require(try greeted.readLine(timeout: 5000, splitter: &greetedSplitter))
        #expect(String(decoding: answer, as: UTF8.self).contains("\"id\":2"))
        await daemon.stop()
    }

    @Test("a hundred greeted connections leave the daemon asleep when their deadlines pass")
    func greetedDeadlinesCostNothing() async throws {
        let daemon = try DaemonHarness(sources: [], extra: ["--hello-timeout", "1"])
        defer { try? FileManager.default.removeItem(atPath: daemon.root) }
        let process = try await daemon.start()
        // Connected 10 ms apart, so that deadlines left to fire would wake the daemon a hundred
        // times, one by one, over the second after the last is greeted.
        var connections: [DaemonConnection] = []
        for _ in 0..<100 {
            connections.append(try Self.greeted(daemon.socket))
            try await Task.sleep(for: .milliseconds(10))
        }
        let before = Self.sleeps(of: process.processIdentifier)
        try await Task.sleep(for: .milliseconds(1500))
        let woken = Self.sleeps(of: process.processIdentifier) - before
        // An idle daemon wakes a few times a second (the in-use check of its clients' processes).
        #expect(woken < 30, "the daemon woke \(woken) times while 100 greeted connections' deadlines passed")
        withExtendedLifetime(connections) {}
        await daemon.stop()
    }
}
