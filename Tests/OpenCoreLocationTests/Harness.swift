// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import Locking
import OpenCoreLocation
import TestSupport
import Testing

@testable import LocationEngine
@testable import LocationHosting

/// A location context with everything scripted: a temporary authorization store, a scripted
/// prompter, an in-use switch, a scripted receiver and a manual clock.
struct Harness {
    static let manifest = Manifest(
        whenInUseUsageDescription: "Shows where you are on the map.",
        alwaysUsageDescription: "Logs your trips in the background.",
        temporaryUsageDescriptions: ["DirectionsKey": "Turn-by-turn directions need precise location."])

    let directory: String
    let store: AuthorizationStore
    let prompter: ScriptedPrompter
    let activity: AppActivity
    let source: ScriptedFixSource
    let clock: ManualClock
    let service: LocationService
    let context: LocationContext
    let messages: Messages
    let client = "com.example.tracker"

    final class Messages: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    init(
        manifest: Manifest = Harness.manifest, answers: [PromptAnswer] = [],
        stored: ((inout AuthorizationSnapshot) -> Void)? = nil, inUse: Bool = true,
        origin: FixOrigin = .receiver, watchesStore: Bool = false, directory: String? = nil,
        devicePath: String? = nil
    ) throws {
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "ocl-\(UUID().uuidString)"
            ).path
        self.directory = directory
        store = AuthorizationStore(directory: directory)
        if let stored { try store.update(stored) }
        prompter = ScriptedPrompter(answers)
        activity = AppActivity(inUse: inUse)
        source = ScriptedFixSource(origin: origin, devicePath: devicePath)
        clock = ManualClock()
        let messages = Messages()
        service = LocationService(source: source, clock: clock, log: { messages.append($0) })
        self.messages = messages
        context = LocationContext(
            .init(
                client: client, manifest: manifest, store: store, prompter: prompter,
                activity: activity, service: service, watchesStore: watchesStore,
                log: { messages.append($0) }))
    }

    /// Runs `body` with this harness's context as the current one.
    func run<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws -> T {
        try await LocationContext.withContext(context, operation: body)
    }

    var record: ClientAuthorization { (try? store.load())?[client] ?? ClientAuthorization() }

    /// How many update subscriptions the app's engine holds: a subscriber whose task has not
    /// started yet has none, and misses what is sent before it does.
    var updateSubscriptions: Int { context.engine.state.withLock { $0.updates.count } }
}

/// Yields until `condition` holds (for state reached through other tasks), failing after 60 s of
/// wall time instead of hanging. Past the first rounds it also naps a millisecond between looks,
/// so a machine busy with other tests gets the time it needs instead of a spurious failure. The
/// time is generous because it runs while the condition's tasks may not: a location crosses
/// several tasks on its way to a delegate, and with the whole suite running on two cores each
/// step can wait behind other tests' work (a CI machine took over 30 s for 300 of them).
func settle(
    isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool,
    within seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation
) async {
    let deadline = ContinuousClock.now + .seconds(seconds)
    var rounds = 0
    while ContinuousClock.now < deadline {
        if condition() { return }
        rounds += 1
        if rounds < 1000 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    if condition() { return }
    Issue.record("condition not reached", sourceLocation: sourceLocation)
}
