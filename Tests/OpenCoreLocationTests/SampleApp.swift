// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Locking
import OpenCoreLocation

/// The app around the samples: records what they do, and provides the functions they call.
final class SampleApp: Sendable {
    private struct State {
        var notes: [String] = []
        var diagnostics: [CLServiceSession.Diagnostic] = []
        var kept: [Kept] = []
        var done = false
        var reactions: [Bool] = []
        var locations: [CLLocation] = []
        var conditions: [String] = []
    }

    private let state = Mutex(State())

    var notes: [String] { state.withLock { $0.notes } }
    var diagnostics: [CLServiceSession.Diagnostic] { state.withLock { $0.diagnostics } }
    var reactions: [Bool] { state.withLock { $0.reactions } }
    var locations: [CLLocation] { state.withLock { $0.locations } }
    var done: Bool { state.withLock { $0.done } }
    /// What the monitor sample showed, as "identifier state".
    var conditions: [String] { state.withLock { $0.conditions } }

    func note(_ text: String) { state.withLock { $0.notes.append(text) } }
    func finish() { state.withLock { $0.done = true } }
    func keep(_ object: AnyObject) {
        let kept = Kept(object)
        state.withLock { $0.kept.append(kept) }
    }

    /// Holds what a sample keeps alive (a manager, a session) for the rest of the test.
    private final class Kept: @unchecked Sendable {
        let object: AnyObject
        init(_ object: AnyObject) { self.object = object }
    }
    func diagnostic(_ value: CLServiceSession.Diagnostic) { state.withLock { $0.diagnostics.append(value) } }

    func showHelloPrompt() async { note("hello") }
    func doFurtherWork() async { note("further work") }
    func updateLocationUI(location: CLLocation) {
        state.withLock { $0.locations.append(location) }
    }
    let monitorName = "SampleMonitor"
    let applePark = CLLocationCoordinate2D(latitude: 37.334_900, longitude: -122.009_020)
    func updateConditionsUI(for identifier: String, state: CLMonitor.Event.State) {
        self.state.withLock { $0.conditions.append("\(identifier) \(state)") }
    }
    func reactToChanges(authorized: Bool) { state.withLock { $0.reactions.append(authorized) } }
}
