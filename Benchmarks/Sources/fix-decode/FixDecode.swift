// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import HarnessInput

// Decoding alone, as `gpsloc decode --format none` does it but without the program around it:
// frames an NMEA log, assembles every epoch into a `Fix` and prints the counts. Small enough to
// run under `valgrind --tool=callgrind` (gpsloc's debug information is too much for it), whose
// instruction counts repeat exactly: the way to compare two builds of the decoder on a shared
// machine.
//
//     fix-decode [FILE]      (standard input without FILE)

@main
enum FixDecode {
    static func main() {
        var decoder = FixDecoder()
        var fixes = 0
        var satellites = 0
        var latitudes = 0.0
        let tally: (Fix) -> Void = { fix in
            fixes += 1
            satellites += fix.satellites.count
            latitudes += fix.latitude ?? 0
        }
        forEachInputChunk(program: "fix-decode") { decoder.decode($0, tally) }
        decoder.finish(tally)
        let statistics = decoder.statistics
        print(
            "fix-decode sentences=\(statistics.framer.sentences) rejected=\(statistics.framer.rejected)"
                + " fixes=\(fixes) satellites=\(satellites) latitude-sum=\(Int((latitudes * 1000).rounded()))"
        )
    }
}
