// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Waits until `condition` holds, looking every `interval` and for at most `seconds` in all;
/// says whether it held. For the live tests, whose daemons and threads take real time.
public func waitUntil(
    within seconds: Double, every interval: Duration = .milliseconds(10), _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return condition()
}
