// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

// Decoding alone, as `gpsloc decode --format none` does it but without the program around it:
// frames an NMEA log, assembles every epoch into a `Fix` and prints the counts. Small enough to
// run under `valgrind --tool=callgrind` (gpsloc's debug information is too much for it), whose
// instruction counts repeat exactly: the way to compare two builds of the decoder on a shared
// machine.
//
//     fix-decode [FILE]      (standard input without FILE)
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
enum FixDecode {
    static func main() {
        var descriptor: Int32 = 0
        if let path = CommandLine.arguments.dropFirst().first, path != "-" {
            descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { fail("cannot open '\(path)': \(String(cString: strerror(errno)))") }
        }
        var decoder = FixDecoder()
        var fixes = 0
        var satellites = 0
        var latitudes = 0.0
        let tally: (Fix) -> Void = { fix in
            fixes += 1
            satellites += fix.satellites.count
            latitudes += fix.latitude ?? 0
        }
        // Page-aligned, as the product's log reader: the kernel copies into it fastest.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                fail("cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            decoder.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), tally)
        }
        decoder.finish(tally)
        let statistics = decoder.statistics
        print(
            "fix-decode sentences=\(statistics.framer.sentences) rejected=\(statistics.framer.rejected)"
                + " fixes=\(fixes) satellites=\(satellites) latitude-sum=\(Int((latitudes * 1000).rounded()))"
        )
    }

    static func fail(_ message: String) -> Never {
        let text = Array("fix-decode: \(message)\n".utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(1)
    }
}
