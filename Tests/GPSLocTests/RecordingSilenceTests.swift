// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine
import Telematics
import Testing

/// Why a recorder records nothing, said on a manual clock: at once, again when the reason changes
/// and every ten minutes while it lasts, never for each update.
@Suite("A recorder's silence, explained")
struct RecordingSilenceTests {
    static func refused(_ set: (inout AuthorizationFlags) -> Void) -> LocationUpdate {
        var flags = AuthorizationFlags()
        set(&flags)
        return LocationUpdate(location: nil, flags: flags)
    }

    static let location = LocationUpdate(
        location: Location(
            coordinate: Coordinate(latitude: 52.37, longitude: 4.89), horizontalAccuracy: 5,
            timestamp: Date(timeIntervalSince1970: 1_773_475_200)),
        flags: AuthorizationFlags())

    @Test("said at once, then every reminder while it lasts; a new reason at once; a location ends it")
    func toldOnTime() {
        let start = ContinuousClock.now
        var silence = RecordingSilence(grant: "gpsloc auth grant 'com.example.rec' always")
        let inUseOnly = Self.refused { $0.insufficientlyInUse = true }
        let first = silence.note(inUseOnly, at: start)
        #expect(first?.hasPrefix("recording nothing: it may have location while in use only") == true)
        #expect(first?.hasSuffix("it needs Always (gpsloc auth grant 'com.example.rec' always)") == true)
        // Ten updates a second for ten minutes: one reminder, at the end.
        var said: [String] = []
        for tenth in 1...6000 {
            if let line = silence.note(inUseOnly, at: start + .milliseconds(100 * tenth)) {
                said.append(line)
            }
        }
        #expect(
            said.count == 1 && said[0].hasPrefix("still recording nothing: it may have location"), "\(said)")
        #expect(silence.reason?.refused == true && !silence.recorded)

        let denied = Self.refused { $0.authorizationDenied = true }
        #expect(
            silence.note(denied, at: start + .seconds(601))?.hasPrefix(
                "recording nothing: this program is denied") == true)
        #expect(silence.note(denied, at: start + .seconds(602)) == nil)
        #expect(silence.note(Self.location, at: start + .seconds(603)) == "locations come again; recording")
        #expect(silence.recorded && silence.reason == nil)
        #expect(silence.note(Self.location, at: start + .seconds(604)) == nil)
    }

    @Test("a receiver without a fix is said, and is no refusal; an update with no reason says nothing")
    func noFix() {
        let start = ContinuousClock.now
        var silence = RecordingSilence()
        let line = silence.note(
            LocationUpdate(location: nil, flags: AuthorizationFlags(), unavailable: true), at: start)
        #expect(line?.contains("the receiver gives no fix") == true)
        #expect(silence.reason?.refused == false)
        var quiet = RecordingSilence()
        #expect(quiet.note(LocationUpdate(location: nil, flags: AuthorizationFlags()), at: start) == nil)
        // Without a command to give, the reason still says what is needed.
        #expect(
            RecordingSilence.reason(of: Self.refused { $0.insufficientlyInUse = true })?.text.hasSuffix(
                "it needs Always") == true)
    }
}
