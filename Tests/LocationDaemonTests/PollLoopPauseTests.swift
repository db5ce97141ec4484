// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import Testing

/// The pause the daemon's accepting thread takes when it is out of descriptors: it lasts until
/// its deadline, and a stop ends it at once.
@Suite("A poll loop's pause")
struct PollLoopPauseTests {
    @Test("a pause lasts until its deadline; a stop from another thread ends it at once")
    func pause() throws {
        let loop = try PollLoop()
        let start = ContinuousClock.now
        #expect(!loop.pause(until: start + .milliseconds(50)))
        #expect(ContinuousClock.now - start >= .milliseconds(50))

        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.05)
            loop.stop()
        }
        let stopping = ContinuousClock.now
        #expect(loop.pause(until: stopping + .seconds(30)))
        #expect(ContinuousClock.now - stopping < .seconds(10), "the stop did not end the pause")
    }
}
