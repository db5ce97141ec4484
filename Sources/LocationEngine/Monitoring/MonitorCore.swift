// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one live monitor of a name in an app's engine, shared by every monitor the app opens with
/// that name (every `CLMonitor`, in the Apple API): its conditions, their storage, the event
/// subscribers and the feed of fixes.
///
/// Conditions are stored in `monitors/<client>/<name>.monitor` in the authorization store's
/// directory, as JSON written atomically after every change and every consumed event.
///
/// Events that come while nobody iterates wait for the next subscriber, every change in order
/// (up to ``pendingLimit`` per condition, the oldest giving way). The daemon keeps its monitors
/// evaluating with nobody listening (``evaluateInBackground()``), so that an app that is not
/// running finds what happened when it iterates `events` again.
package final class MonitorCore: MonitorBackend {
    package let name: String
    let path: String
    let engine: AppEngine

    private struct State {
        var engine = MonitorEngine()
        var subscribers: [Int: Mailbox<MonitorEvent>] = [:]
        /// Events that arrived while nobody iterated `events`, for the next subscriber.
        var pending: [MonitorEvent] = []
        var nextID = 0
        /// Whether the monitor is a member of the app's ``MonitorFeed``.
        var feeding = false
        /// The feed runs with no subscriber too (the daemon's monitors).
        var background = false
        /// Conditions of types that cannot be stored, already reported.
        var unstorable: Set<String> = []
    }

    private let state: Mutex<State>

    /// How many events of one condition wait for a subscriber at most: a vehicle that crossed a
    /// boundary all week while its app was away leaves its latest crossings, not an unbounded log.
    static let pendingLimit = 64

    init(name: String, engine: AppEngine) {
        self.name = name
        self.engine = engine
        let directory = Self.directory(engine)
        path = directory + "/" + Self.fileName(name) + ".monitor"
        var rules = MonitorEngine()
        do {
            for stored in try Self.load(path) {
                guard let condition = stored.condition else { continue }
                rules.restore(
                    condition, identifier: stored.identifier, lastEvent: (stored.state, stored.date))
            }
        } catch {
            var message = error.description
            if error.isCorrupt {
                let aside = path + ".corrupt"
                message +=
                    rename(path, aside) == 0
                    ? "; it was moved to \(aside) and the monitor starts empty"
                    : "; the monitor starts empty: remove the file to store conditions again"
            }
            engine.configuration.log(message)
        }
        rules.othersCount = engine.monitorCensus.circles(excluding: path)
        var state = State(engine: rules)
        Self.deliver(rules.refresh(date: Date()), &state)
        self.state = Mutex(state)
    }

    deinit {
        if state.withLock({ $0.feeding }) { engine.monitorFeed.leave(self) }
    }

    // MARK: Conditions

    package func add(_ condition: MonitorCondition, identifier: String, assuming: MonitoringState) {
        let others = engine.monitorCensus.circles(excluding: path)
        change { engine in
            engine.othersCount = others
            return engine.add(condition, identifier: identifier, assuming: assuming, date: Date())
        }
    }

    package func remove(_ identifier: String) {
        change { engine in engine.remove(identifier, date: Date()) }
    }

    package var identifiers: [String] { state.withLock { $0.engine.entries.map(\.identifier) } }

    package func record(for identifier: String) -> MonitorRecord? {
        state.withLock { state in
            state.engine.entry(identifier).map {
                ($0.condition, $0.lastEvent)
            }
        }
    }

    package func consumed(_ event: MonitorEvent) {
        let changed = state.withLock { $0.engine.consumed(event) }
        if changed { change { _ in [] } }
    }

    /// Changes the engine, stores the result and delivers the events.
    private func change(_ body: (inout MonitorEngine) -> [MonitorEvent]) {
        var messages: [String] = []
        state.withLock { state in
            var events = body(&state.engine)
            let failure = save(state.engine, unstorable: &state.unstorable, messages: &messages)
            if (failure != nil) != state.engine.persistenceFailing {
                if let failure { messages.append(failure) }
                events += state.engine.persistence(failing: failure != nil, date: Date())
            }
            Self.deliver(events, &state)
        }
        for message in messages { engine.configuration.log(message) }
    }

    private static func deliver(_ events: [MonitorEvent], _ state: inout State) {
        guard !events.isEmpty else { return }
        if state.subscribers.isEmpty {
            state.pending += events
            trim(&state.pending)
        } else {
            for id in state.subscribers.keys.sorted() {
                for event in events { state.subscribers[id]!.post(event) }
            }
        }
    }

    // MARK: Events

    /// A new subscriber to the events; the first one starts the feed of fixes, which holds an
    /// implicit when-in-use session, and the last one to leave stops it.
    package func subscribe() -> Mailbox<MonitorEvent> {
        let box = Mutex<Int?>(nil)
        let channel = Mailbox<MonitorEvent>(capacity: 1) { [weak self] in
            guard let id = box.withLock({ $0 }) else { return }
            self?.unsubscribe(id)
        }
        state.withLock { state in
            state.nextID += 1
            box.withLock { $0 = state.nextID }
            state.subscribers[state.nextID] = channel
            for event in state.pending { channel.post(event) }
            state.pending = []
            startFeed(&state)
        }
        return channel
    }

    private func startFeed(_ state: inout State) {
        guard !state.feeding else { return }
        state.feeding = true
        engine.monitorFeed.join(self)
    }

    /// Keeps the conditions evaluated with nobody iterating `events`, for as long as the monitor
    /// lives; their events wait for the next subscriber.
    package func evaluateInBackground() {
        state.withLock { state in
            state.background = true
            startFeed(&state)
        }
    }

    /// Events a subscriber was given and never received (its app went away): they wait for the
    /// next subscriber again, before those that came after them.
    package func requeue(_ events: [MonitorEvent]) {
        state.withLock { state in
            if state.subscribers.isEmpty {
                state.pending = events + state.pending
                Self.trim(&state.pending)
            } else {
                Self.deliver(events, &state)
            }
        }
    }

    /// Keeps the latest ``pendingLimit`` events of each condition.
    static func trim(_ pending: inout [MonitorEvent]) {
        var counts: [String: Int] = [:]
        for event in pending { counts[event.identifier, default: 0] += 1 }
        guard counts.values.contains(where: { $0 > pendingLimit }) else { return }
        var seen: [String: Int] = [:]
        var kept: [MonitorEvent] = []
        for event in pending.reversed() {
            seen[event.identifier, default: 0] += 1
            if seen[event.identifier]! <= pendingLimit { kept.append(event) }
        }
        pending = kept.reversed()
    }

    private func unsubscribe(_ id: Int) {
        let leave = state.withLock { state -> Bool in
            state.subscribers.removeValue(forKey: id)
            guard state.subscribers.isEmpty, !state.background, state.feeding else { return false }
            state.feeding = false
            return true
        }
        if leave { engine.monitorFeed.leave(self) }
    }

    /// The receiver has nothing more (a replayed log ended): so have the events.
    func feedEnded() {
        let subscribers = state.withLock { state in
            defer {
                state.subscribers = [:]
                state.feeding = false
            }
            return Array(state.subscribers.values)
        }
        for channel in subscribers { channel.finish() }
    }

    func receive(_ update: LocationUpdate) {
        state.withLock { state in
            let events = state.engine.update(
                authorization: update.flags, location: update.location, date: Date())
            Self.deliver(events, &state)
        }
    }

    // MARK: Storage

    /// One stored condition with the last event the app consumed.
    struct Stored: Codable {
        var identifier: String
        var circle: GeographicCircle?
        var beacon: BeaconIdentity?
        var state: MonitoringState
        var date: Date

        var condition: MonitorCondition? {
            if let circle { return .circle(circle) }
            return beacon.map { .beacon($0) }
        }
    }

    struct File: Codable {
        var version = 1
        var conditions: [Stored]
    }

    struct LoadError: Error, CustomStringConvertible {
        var description: String
        /// The file exists but does not hold a monitor's conditions.
        var isCorrupt = false
    }

    static func directory(_ engine: AppEngine) -> String { engine.monitorCensus.directory }

    /// A name made safe as one path component: anything but letters, digits, `-`, `_` and inner
    /// dots is percent-encoded.
    package static func fileName(_ name: String) -> String {
        var result = ""
        for (index, byte) in name.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                result.append(Character(UnicodeScalar(byte)))
            case UInt8(ascii: ".") where index > 0:
                result.append(".")
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result.isEmpty ? "%" : result
    }

    /// The name ``fileName(_:)`` made `fileName` of; `nil` for a name it cannot have made.
    package static func name(fromFileName fileName: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = fileName.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return fileName == "%" ? "" : String(validating: bytes, as: UTF8.self)
    }

    static func load(_ path: String) throws(LoadError) -> [Stored] {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw LoadError(description: "monitor file \(path) cannot be read (\(errnoDescription()))")
            }
            return []
        }
        return try decode(data, path: path)
    }

    /// A monitor file's conditions.
    static func decode(_ data: Data, path: String) throws(LoadError) -> [Stored] {
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode(File.self, from: data).conditions
        } catch {
            throw LoadError(description: "monitor file \(path) is not valid (\(error))", isCorrupt: true)
        }
    }

    /// Writes the conditions; returns what failed, or `nil`.
    private func save(_ rules: MonitorEngine, unstorable: inout Set<String>, messages: inout [String])
        -> String?
    {
        var conditions: [Stored] = []
        for entry in rules.entries {
            var circle: GeographicCircle?
            var beacon: BeaconIdentity?
            switch entry.condition {
            case .circle(let condition): circle = condition
            case .beacon(let condition): beacon = condition
            case .other(let typeName, _):
                if unstorable.insert(entry.identifier).inserted {
                    messages.append(
                        "monitor \"\(name)\": condition \"\(entry.identifier)\" is a "
                            + "\(typeName), which is not monitored or stored")
                }
                continue
            }
            conditions.append(
                Stored(
                    identifier: entry.identifier, circle: circle, beacon: beacon,
                    state: entry.lastEvent.state,
                    date: entry.lastEvent.date))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data: Data
        do { data = try encoder.encode(File(conditions: conditions)) + Data("\n".utf8) } catch {
            return "monitor file \(path) cannot be encoded (\(error))"
        }
        let directory = Self.directory(engine)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return "monitor directory \(directory) cannot be created (\(errorWords(error))); "
                + "conditions are kept in memory only: set OPENCORELOCATION_STATE_DIR to a writable directory"
        }
        if let failure = writeAtomically(data, to: path) {
            return "monitor file \(path) cannot be written (\(failure)); conditions are kept in memory only"
        }
        engine.monitorCensus.record(
            path, circles: conditions.count { $0.circle?.isValid == true }, bytes: data.count)
        return nil
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

@_spi(FrontEnd) extension MonitorEvent: Deliverable {
    /// Every event is a change of a condition: none is ever dropped.
    public var isReplaceable: Bool { false }
    public func repeats(_ other: MonitorEvent) -> Bool { false }
}
