// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import GNSSSources
import TestSupport
import Testing

@Suite("gpsd through libgps")
struct LibGPSSourceTests {
    @Test("gpsd+libgps:// and gpsd+shm: are understood; without the LibGPS trait they say how to get them")
    func addresses() throws {
        #expect(
            try SourceAddress(parsing: "gpsd+libgps://localhost:2948/dev/ttyUSB0")
                == .libgps(host: "localhost", port: 2948, device: "/dev/ttyUSB0"))
        #expect(try SourceAddress(parsing: "gpsd+shm:") == .gpsdSharedMemory)
        #if !LibGPS
            let error = #expect(throws: SourceError.self) { try SourceAddress.gpsdSharedMemory.open() }
            #expect(error?.description.contains("build with --enable-all-traits (needs libgps-dev)") == true)
        #endif
    }

    #if LibGPS
        /// A gpsd reading a pseudo-terminal that plays the drive, with its port.
        func daemon() async throws -> (
            pty: PseudoTerminal, receiver: PseudoTerminal.Transmitter, gpsd: RunningProcess, port: Int
        ) {
            let pty = try PseudoTerminal()
            let receiver = pty.transmitContinuously(
                try driveSample(epochs: 300, allSentences: true).bytes, baud: 115200)
            let port = Daemons.freePort()
            let gpsd = try Daemons.gpsd(device: pty.slavePath, port: port)
            #expect(await Daemons.waitUntilListening(port: port))
            return (pty, receiver, gpsd, port)
        }

        @Test("libgps and the JSON protocol give the same fixes from the same gpsd run")
        func agreesWithJSON() async throws {
            let (pty, receiver, gpsd, port) = try await daemon()
            let json = Received()
            let libgps = Received()
            let jsonRun = Task { try await GPSDSource(port: port).run { json.add($0) } }
            let libgpsRun = Task {
                try await LibGPSSource(.socket(host: "localhost", port: port, device: nil)).run {
                    libgps.add($0)
                }
            }
            func lastByTime(_ fixes: [Fix]) -> [UTCTimestamp: Fix] {
                var last: [UTCTimestamp: Fix] = [:]
                for fix in fixes where fix.hasPosition { if let time = fix.time { last[time] = fix } }
                return last
            }
            await eventually(30) {
                Set(lastByTime(json.all).keys).intersection(lastByTime(libgps.all).keys).count >= 8
            }
            jsonRun.cancel()
            libgpsRun.cancel()
            _ = try? await jsonRun.value
            _ = try? await libgpsRun.value
            await gpsd.stop()
            await receiver.stop()
            pty.close()

            let fromJSON = lastByTime(json.all)
            let fromLibGPS = lastByTime(libgps.all)
            let common = Set(fromJSON.keys).intersection(fromLibGPS.keys).sorted()
            // The newest epoch may still be arriving when the two stopped.
            for time in common.dropLast() {
                let a = fromJSON[time]!
                let b = fromLibGPS[time]!
                #expect(a.mode == b.mode && a.status == b.status, "at \(time)")
                #expect(a.latitude == b.latitude && a.longitude == b.longitude, "at \(time)")
                #expect(a.altitudeMSL == b.altitudeMSL && a.altitudeHAE == b.altitudeHAE, "at \(time)")
                #expect(a.speed == b.speed && a.course == b.course, "at \(time)")
            }
            #expect(
                common.count >= 8,
                "JSON: \(json.all.count) fixes, libgps: \(libgps.all.count) \(libgps.all.prefix(3))")
        }

        @Test("gpsd+shm: reads the fixes gpsd exports in shared memory")
        func sharedMemory() async throws {
            let (pty, receiver, gpsd, _) = try await daemon()
            let sample = try driveSample(epochs: 300, allSentences: true)
            let received = Received()
            let run = Task { try await LibGPSSource(.sharedMemory).run { received.add($0) } }
            await eventually(30) { received.all.filter { $0.hasPosition && $0.time != nil }.count >= 3 }
            run.cancel()
            _ = try? await run.value
            await gpsd.stop()
            await receiver.stop()
            pty.close()
            // Every exported position is one of the drive's (whichever gpsd on this machine wrote it).
            for fix in received.all where fix.hasPosition && fix.time != nil {
                let ours = sample.fixes.first { $0.time == fix.time }
                #expect(ours != nil, "no epoch at \(fix.time!)")
                if let ours {
                    #expect(
                        abs(ours.latitude! - fix.latitude!) < 1e-6
                            && abs(ours.longitude! - fix.longitude!) < 1e-6)
                }
            }
        }
    #endif
}
