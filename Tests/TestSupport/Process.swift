// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking

/// The result of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// Runs the built `gpsloc` binary (or another program) and collects what it prints.
public enum Runner {
    /// The `gpsloc` binary built next to the test bundle, or `$GPSLOC` if set.
    public static var gpsloc: URL {
        if let override = ProcessInfo.processInfo.environment["GPSLOC"] {
            return URL(fileURLWithPath: override)
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent == "MacOS" {
            for _ in 0..<3 { directory.deleteLastPathComponent() }
        }
        return directory.appendingPathComponent("gpsloc")
    }

    /// A process for `executable` with `arguments`, its standard output and error on pipes.
    static func makeProcess(_ executable: URL, _ arguments: [String]) -> (Process, output: Pipe, error: Pipe)
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        return (process, output, error)
    }

    /// Runs `executable` (`gpsloc` unless named) with `arguments`, feeding `input` on standard input.
    ///
    /// The waiting happens on a thread of its own: a test that waited on one of the few threads
    /// Swift's concurrency runs on would stall every other test meanwhile.
    public static func run(
        _ arguments: [String], input: Data? = nil, executable: URL = gpsloc,
        environment: [String: String] = [:]
    ) async throws -> ProcessResult {
        try await onAThreadOfItsOwn {
            try runWaiting(arguments, input: input, executable: executable, environment: environment)
        }
    }

    private static func runWaiting(
        _ arguments: [String], input: Data?, executable: URL, environment: [String: String]
    ) throws -> ProcessResult {
        let (process, output, error) = makeProcess(executable, arguments)
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        ChildReaper.register(process.processIdentifier)
        if let input {
            DispatchQueue.global().async {
                inputPipe.fileHandleForWriting.write(input)
                try? inputPipe.fileHandleForWriting.close()
            }
        }
        // Read both pipes concurrently so that neither fills up and blocks the child.
        nonisolated(unsafe) var errorData = Data()
        let errorDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errorData = error.fileHandleForReading.readDataToEndOfFile()
            errorDone.signal()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorDone.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// A program left running while the test talks to it: what it prints is collected as it comes,
/// on threads of its own, so the test can wait for a line and then stop it.
public final class RunningProcess: Sendable {
    private let process: Process
    /// The program, pinned as it starts: signalled through this, never by a pid that another
    /// process may hold once it has ended.
    private let pinned: PinnedProcess?
    /// Standard input, when the program was started with one to write to.
    private let input: FileHandle?
    private final class Collected: Sendable {
        let state = Mutex<(output: String, errors: String, ended: Int)>(("", "", 0))
        func withLock<R>(_ body: (inout (output: String, errors: String, ended: Int)) -> R) -> R {
            state.withLock { body(&$0) }
        }
    }
    private let collected = Collected()

    /// Starts `executable` (`gpsloc` unless named) with `arguments`; with `input`, its standard
    /// input is a pipe that ``write(_:)`` feeds, and `environment` adds to the test's own.
    public init(
        _ arguments: [String], executable: URL = Runner.gpsloc, input: Bool = false,
        environment: [String: String] = [:], standardInput: FileHandle? = nil
    ) throws {
        let (process, output, error) = Runner.makeProcess(executable, arguments)
        if let standardInput {
            process.standardInput = standardInput
            self.input = nil
        } else if input {
            let pipe = Pipe()
            process.standardInput = pipe
            self.input = pipe.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
            self.input = nil
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        self.process = process
        try process.run()
        pinned = PinnedProcess(process.processIdentifier)
        ChildReaper.register(process.processIdentifier)
        for (pipe, isOutput) in [(output, true), (error, false)] {
            let handle = pipe.fileHandleForReading
            Thread { [collected] in
                while true {
                    let data = handle.availableData
                    let text = String(decoding: data, as: UTF8.self)
                    collected.withLock {
                        if data.isEmpty {
                            $0.ended += 1
                        } else if isOutput {
                            $0.output += text
                        } else {
                            $0.errors += text
                        }
                    }
                    if data.isEmpty { return }
                }
            }.start()
        }
    }

    /// Writes `text` to the program's standard input (started with `input: true`). A program that
    /// ended closed its input: the write fails (EPIPE) instead of the signal ending the tests.
    public func write(_ text: String) {
        _ = Self.ignoreBrokenPipes
        try? input?.write(contentsOf: Data(text.utf8))
    }

    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    /// Closes the program's standard input.
    public func closeInput() { try? input?.close() }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `signal` to the program, unless it has ended.
    public func signal(_ signal: Int32) { pinned?.signal(signal) }

    /// Standard output so far.
    public var output: String { collected.withLock { $0.output } }
    /// Standard error so far.
    public var errors: String { collected.withLock { $0.errors } }
    public var isRunning: Bool { process.isRunning }

    /// Waits, up to `seconds`, until `condition` holds for the standard output so far; says
    /// whether it did.
    @discardableResult
    public func waitForOutput(within seconds: Double = 30, _ condition: (String) -> Bool) async -> Bool {
        await waitUntil(within: seconds) { condition(output) }
    }

    /// Sends SIGTERM (unless it has ended) and waits, up to `seconds`, for the program to end and
    /// its output to be read; returns its exit status.
    @discardableResult
    public func stop(within seconds: Double = 10) async -> Int32? {
        if process.isRunning { signal(SIGTERM) }
        return await wait(within: seconds)
    }

    /// Waits, up to `seconds`, for the program to end by itself and its output to be read.
    public func wait(within seconds: Double = 30) async -> Int32? {
        if await waitUntil(within: seconds, { !process.isRunning && collected.withLock { $0.ended == 2 } }) {
            return process.terminationStatus
        }
        if process.isRunning { signal(SIGKILL) }
        return nil
    }
}
