// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// The engine's fan-out, as gpslocd runs it: run them with `swift package benchmark` in
// Benchmarks/ (`--target EngineBenchmarks` for these alone).
//
// One iteration is one fix, handed to the receiver's service on the calling thread as gpslocd's
// event loop hands it a fix it has just decoded, run through each app's engine (its decision,
// its sessions, its privacy pipeline) into each subscriber's mailbox, then taken out of every
// mailbox as the daemon's connections take it (read until the last that waits), and written as
// the subscriber's line of gpslocd's protocol into a buffer kept for the subscriber (each
// update's JSON written once for all the app's subscribers, as gpslocd does). What is not here
// is the socket: the write and its system call (`tools/daemon-load` measures the daemon whole).
//
// The malloc count is per fix, for every subscriber together: on the steady path it must not
// grow with the subscribers, only with the apps (each app's list of actions, and its update's
// line written once).
import Benchmark
import Foundation
import GNSS
import GNSSSimulation
@_spi(FrontEnd) import LocationEngine
@_spi(FrontEnd) import LocationWire
import Synchronization

/// A live receiver the benchmark drives: the service hands it the call that takes each fix as it
/// is read, and each iteration makes that call with the next fix.
final class DrivenReceiver: FixSource {
    let origin = FixOrigin.receiver
    let name = "benchmark receiver"
    private let delivery = Mutex<(@Sendable (Fix) -> Void)?>(nil)

    /// The service's call for each fix, once the service has started the receiver.
    var deliver: (@Sendable (Fix) -> Void)? { delivery.withLock { $0 } }

    func run(_ deliver: @escaping @Sendable (Fix) async -> Void) async throws {
        try await run(.awaited(deliver), connected: { _ in })
    }

    func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws {
        guard case .immediate(let deliver) = delivery else {
            fatalError("a live receiver's fixes are delivered at once")
        }
        self.delivery.withLock { $0 = deliver }
        connected(name)
        // Open until the service lets it go.
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}

/// Apps, each with its engine and its subscribers, on one driven receiver.
final class FanOut: @unchecked Sendable {
    let subscribers: Int
    private let receiver = DrivenReceiver()
    private let service: LocationService
    private var engines: [AppEngine] = []
    /// Each subscriber's mailbox, its line's buffer and its lines' start.
    private var leases: [MailboxLease<LocationUpdate>] = []
    private var lines: [[UInt8]] = []
    private var heads: [[UInt8]] = []
    /// Each app's update lines, as gpslocd keeps them for the app's subscribers.
    private var updateLines: [WireUpdateLines] = []
    private let subscribersPerApp: Int
    private let fixes: [Fix]
    private var next = 0
    /// The service's call for each fix read.
    private let deliver: @Sendable (Fix) -> Void
    private let wake: @Sendable () -> Void = {}

    init(apps: Int, subscribersPerApp: Int, fixes: [Fix]) {
        self.fixes = fixes
        subscribers = apps * subscribersPerApp
        self.subscribersPerApp = subscribersPerApp
        // The stores are read when each engine starts, and not again (no prompt, no change).
        let directory = NSTemporaryDirectory() + "engine-benchmark-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        service = LocationService(
            source: receiver, clock: ContinuousClock(), staleAfter: .seconds(24 * 3600),
            reopenAfterSilence: nil)
        for app in 0..<apps {
            let client = "org.example.fanout\(app)"
            let store = AuthorizationStore(directory: directory + "/\(app)")
            try! store.update { $0.clients[client] = ClientAuthorization(decision: .always, precise: true) }
            let engine = AppEngine(
                .init(
                    client: client,
                    manifest: Manifest(
                        whenInUseUsageDescription: "to show where it is",
                        alwaysUsageDescription: "to log where it goes"),
                    store: store, prompter: ScriptedPrompter(), activity: AppActivity(inUse: true),
                    service: service, watchesStore: false, receiverName: "benchmark", log: { _ in }))
            engines.append(engine)
            updateLines.append(WireUpdateLines())
            for _ in 0..<subscribersPerApp {
                leases.append(MailboxLease(engine.subscribeUpdates(profile: .default)))
                heads.append(WireUpdateLines.head(subscription: lines.count))
                lines.append([])
            }
        }
        var deliver = receiver.deliver
        while deliver == nil {
            usleep(1000)
            deliver = receiver.deliver
        }
        self.deliver = deliver!
        // The first fixes: subscriptions settle (authorized, available) and every buffer grows
        // to its line's size.
        for _ in 0..<3 { _ = deliverNext() }
    }

    /// One fix to every subscriber; returns how many updates the subscribers took.
    func deliverNext() -> Int {
        deliver(fixes[next])
        next = (next + 1) % fixes.count
        var taken = 0
        for index in leases.indices {
            // As gpslocd's pumps read: until the mailbox says the update taken was the last.
            while true {
                let read = leases[index].mailbox.readUpdateUntilLast(waking: wake) { update in
                    lines[index].removeAll(keepingCapacity: true)
                    updateLines[index / subscribersPerApp].withLine(of: update, head: heads[index]) {
                        lines[index].append(contentsOf: $0)
                    }
                    taken += 1
                }
                guard case .read(last: false) = read else { break }
            }
        }
        return taken
    }

}

/// A simulated drive at 1 Hz, decoded into its fixes.
func simulatedFixes(epochs: Int) -> [Fix] {
    var simulator = RouteSimulator(seed: 1, rate: 1)
    let bytes = simulator.log(epochs: epochs)
    var decoder = FixDecoder()
    var fixes: [Fix] = []
    bytes.withUnsafeBytes { decoder.decode($0) { fixes.append($0) } }
    decoder.finish { fixes.append($0) }
    return fixes.filter { $0.latitude != nil }
}

let benchmarks: @Sendable () -> Void = {
    let fixes = simulatedFixes(epochs: 600)
    for (apps, perApp) in [(1, 1), (1, 1000), (10, 100)] {
        let subscribers = apps * perApp
        Benchmark(
            "Fan-out: one fix to \(subscribers) subscriber\(subscribers == 1 ? "" : "s") of \(apps) app\(apps == 1 ? "" : "s"), polled and written as lines",
            configuration: .init(
                // Not `.instructions`: where the processor's counters cannot be read, the
                // framework reads /proc for it within each iteration, and its allocations count.
                metrics: [.mallocCountTotal, .wallClock, .throughput], warmupIterations: 10,
                maxDuration: .seconds(3))
        ) { benchmark, fanOut in
            for _ in benchmark.scaledIterations {
                let taken = fanOut.deliverNext()
                // Every subscriber had the fix: a benchmark of nothing would fail here.
                precondition(taken == fanOut.subscribers, "\(taken) of \(fanOut.subscribers) updates taken")
            }
        } setup: {
            FanOut(apps: apps, subscribersPerApp: perApp, fixes: fixes)
        }
    }
}
