import Foundation

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

    /// Runs `executable` (`gpsloc` unless named) with `arguments`, feeding `input` on standard input.
    public static func run(
        _ arguments: [String], input: Data? = nil, executable: URL = gpsloc
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
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
