// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if MQTT
    import ArgumentParser
    import Dispatch
    import FoundationEssentials
    import GNSS
    import GNSSSources
    import Locking
    import LocationEngine
    import LocationHosting

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    struct Uplink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Publish every location update to an MQTT broker as OwnTracks JSON, storing what it cannot send yet.",
            discussion: """
                An app like any other (a client of gpslocd under its own decision, or with --source the \
                app named by --app), holding an Always session: an approximate grant publishes reduced \
                locations only (no alt, vac, vel or cog). Each update is kept in the outbox before it is \
                sent (QoS 1, a persistent session) and counts as delivered when the broker acknowledges \
                it: while the broker is unreachable the outbox grows, and when it is back the messages \
                go out in order. After a restart, what was not acknowledged is sent again (QoS 1 allows \
                duplicates; OwnTracks consumers drop them by tst).
                """
        )

        @OptionGroup var options: AppOptions

        @Option(help: "The broker: mqtt://HOST[:PORT] (1883) or mqtts://HOST[:PORT] (8883, TLS).")
        var broker: String

        @Option(help: "The topic (default owntracks/USER/DEVICE: this user's name and this host's).")
        var topic: String?

        @Option(
            help: "OwnTracks' tracker id, shown on maps (two characters; default the device's first two).")
        var tid: String?

        @Option(
            help:
                "The MQTT client id, fixed so that the broker keeps the session (default gpsloc-uplink-HOST)."
        )
        var clientID: String?

        @Option(help: "Log in with this username...")
        var username: String?

        @Option(help: "...and the password in this file (its first line).")
        var passwordFile: String?

        @Option(help: "TLS: the CA certificate that signed the broker's (PEM).")
        var cafile: String?

        @Option(help: "TLS: this client's certificate (PEM), to log in by certificate...")
        var cert: String?

        @Option(help: "...and its key (PEM).")
        var certKey: String?

        @Option(help: "Where unsent messages are kept (made when missing, mode 0700).")
        var outbox: String

        @Option(
            help:
                "The outbox's cap in bytes: past it, the oldest unsent messages go, counted (default 64 MiB)."
        )
        var outboxSize: Int = 64 << 20

        func validate() throws {
            guard Self.endpoint(broker) != nil else {
                throw ValidationError("--broker \(broker) is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
            }
            if (cert == nil) != (certKey == nil) {
                throw ValidationError("--cert and --cert-key go together")
            }
            if passwordFile != nil && username == nil {
                throw ValidationError("--password-file needs --username")
            }
        }

        static func endpoint(_ url: String) -> (host: String, port: Int32, tls: Bool)? {
            let tls = url.hasPrefix("mqtts://")
            guard tls || url.hasPrefix("mqtt://") else { return nil }
            let rest = url.drop { $0 != "/" }.dropFirst(2)
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
            let port = parts.count == 2 ? Int32(parts[1]) : (tls ? 8883 : 1883)
            guard let port, port > 0, port < 65536 else { return nil }
            return (String(host), port, tls)
        }

        func run() async throws {
            let (host, port, tls) = Self.endpoint(broker)!
            let device =
                ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "box"
            let user = String(cString: getpwuid(getuid())?.pointee.pw_name ?? strdup("gpsloc"))
            let topic = topic ?? "owntracks/\(user)/\(device)"
            let tid = tid ?? String(device.prefix(2))
            var password: String?
            if let passwordFile {
                guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                    printError("gpsloc uplink: error: --password-file \(passwordFile) cannot be read")
                    throw ExitCode.failure
                }
                password = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            }
            let settings = MQTTPublisher.Settings(
                host: host, port: port, clientID: clientID ?? "gpsloc-uplink-\(device)", username: username,
                password: password, caFile: cafile ?? (tls ? "/etc/ssl/certs/ca-certificates.crt" : nil),
                certificateFile: cert, keyFile: certKey)
            let queue: UplinkQueue
            do {
                queue = try UplinkQueue(
                    outbox: UplinkOutbox(directory: outbox, capBytes: outboxSize), topic: topic,
                    settings: settings)
            } catch {
                printError("gpsloc uplink: error: \(error)")
                throw ExitCode.failure
            }
            printError(
                "gpsloc uplink: publishing to \(broker) on \(topic); \(queue.waiting) messages from the outbox first"
            )
            let context = try options.makeContext(command: "uplink")
            let publishing = Task {
                let session = context.holdSession(.always)
                defer { session.invalidate() }
                for await update in context.liveUpdates(for: .default) {
                    guard let location = update.location else { continue }
                    queue.send(Self.ownTracks(location, reduced: update.flags.accuracyLimited, tid: tid))
                }
            }
            let signals = onTermination { publishing.cancel() }
            defer { signals.forEach { $0.cancel() } }
            await publishing.value
            // The updates ended (a replayed log played out, or a signal): what is queued goes out
            // before the uplink does (a while).
            await queue.drain(within: .seconds(10))
            queue.stop()
            try AppOptions.checkSource(of: context)
        }

        /// An OwnTracks location message; a reduced location carries position, accuracy and time only.
        static func ownTracks(_ location: Location, reduced: Bool, tid: String) -> [UInt8] {
            let line = JSONObjectWriter.object { json in
                json.add("_type", string: "location")
                json.add("tid", string: tid)
                json.add("tst", integer: Int(location.timestamp.timeIntervalSince1970.rounded(.down)))
                json.add("lat", location.coordinate.latitude, decimals: 7)
                json.add("lon", location.coordinate.longitude, decimals: 7)
                json.add("acc", integer: Int(location.horizontalAccuracy.rounded()))
                guard !reduced else { return }
                if location.verticalAccuracy > 0 {
                    json.add("alt", integer: Int(location.altitude.rounded()))
                    json.add("vac", integer: Int(location.verticalAccuracy.rounded()))
                }
                if location.speed >= 0 { json.add("vel", integer: Int((location.speed * 3.6).rounded())) }
                if location.course >= 0 { json.add("cog", integer: Int(location.course.rounded())) }
            }
            return Array(line.utf8)
        }
    }

    /// What the uplink has to send, in order: the outbox's unacknowledged messages, then each new
    /// one. Sent while connected, up to 100 awaiting their acknowledgement; a disconnection puts
    /// those back at the front, to be sent again once connected.
    final class UplinkQueue: Sendable {
        private struct State {
            var pending = Backlog()
            /// Sent and not yet acknowledged, in the order sent, by message id.
            var inflight: [(mid: Int32, position: JournalPosition, payload: [UInt8])] = []
            var connected = false
            var stopping = false
            var lastSaid = ""
            /// Acknowledged and not yet under the outbox's mark (an older one is still awaited).
            var acknowledged: [JournalPosition] = []
            /// Acknowledgements that came before their message's id was noted.
            var early: Set<Int32> = []

            /// The newest acknowledged position with nothing older still to send. Both queues
            /// are in the outbox's order, so the oldest outstanding is at one of their fronts.
            mutating func mark() -> JournalPosition? {
                let outstanding = [
                    inflight.first(where: { $0.position.segment > 0 })?.position, pending.firstKept,
                ].compactMap { $0 }.min()
                let done = acknowledged.filter { position in outstanding.map { position < $0 } ?? true }
                acknowledged.removeAll { position in outstanding.map { position < $0 } ?? true }
                return done.max()
            }
        }

        private let outbox: UplinkOutbox
        private let topic: String
        private let state = Mutex(State())
        private let publisher = Mutex<MQTTPublisher?>(nil)
        static let window = 100

        init(outbox: UplinkOutbox, topic: String, settings: MQTTPublisher.Settings) throws {
            self.outbox = outbox
            self.topic = topic
            let unsent = try outbox.unsent()
            state.withLock { $0.pending.append(contentsOf: unsent) }
            let made = try MQTTPublisher(settings) { [weak self] event in self?.handle(event) }
            publisher.withLock { $0 = made }
        }

        var waiting: Int { state.withLock { $0.pending.count + $0.inflight.count } }

        /// Keeps `payload` in the outbox and sends it when its turn comes.
        func send(_ payload: [UInt8]) {
            do {
                let position = try outbox.keep(payload)
                state.withLock { $0.pending.append((position, payload)) }
            } catch {
                say("gpsloc uplink: \(error); this message is sent without being kept")
                state.withLock { $0.pending.append((JournalPosition(segment: 0, counter: 0), payload)) }
            }
            pump()
        }

        private func handle(_ event: MQTTPublisher.Event) {
            switch event {
            case .connected:
                state.withLock { $0.connected = true }
                say("gpsloc uplink: connected; \(waiting) messages to send")
                pump()
            case .refused(let reason):
                say("gpsloc uplink: the broker refused the connection: \(reason)")
            case .disconnected(let reason):
                let stopping = state.withLock { state in
                    state.connected = false
                    // Sent again once connected: the broker may not have them.
                    state.pending.prepend(contentsOf: state.inflight.map { ($0.position, $0.payload) })
                    state.inflight = []
                    return state.stopping
                }
                if !stopping {
                    say(
                        "gpsloc uplink: the broker is unreachable (\(reason)); keeping messages until it is back"
                    )
                }
            case .acknowledged(let mid):
                let through = state.withLock { state -> JournalPosition? in
                    guard let index = state.inflight.firstIndex(where: { $0.mid == mid }) else {
                        state.early.insert(mid)
                        return nil
                    }
                    let acknowledged = state.inflight.remove(at: index)
                    if acknowledged.position.segment > 0 { state.acknowledged.append(acknowledged.position) }
                    return state.mark()
                }
                if let through { outbox.acknowledge(through: through) }
                pump()
            }
        }

        /// Sends what is pending while connected and the window has room.
        private func pump() {
            guard let publisher = publisher.withLock({ $0 }) else { return }
            while true {
                let next = state.withLock { state -> (JournalPosition, [UInt8])? in
                    guard state.connected, state.inflight.count < Self.window, !state.pending.isEmpty else {
                        return nil
                    }
                    return state.pending.popFirst()
                }
                guard let (position, payload) = next else { return }
                guard let mid = publisher.publish(topic: topic, payload: payload) else {
                    state.withLock { $0.pending.prepend(contentsOf: [(position, payload)]) }
                    return
                }
                // Its acknowledgement, on libmosquitto's thread, may have come already.
                let through = state.withLock { state -> JournalPosition? in
                    guard state.early.remove(mid) != nil else {
                        state.inflight.append((mid, position, payload))
                        return nil
                    }
                    if position.segment > 0 { state.acknowledged.append(position) }
                    return state.mark()
                }
                if let through { outbox.acknowledge(through: through) }
            }
        }

        /// Waits until everything is acknowledged, or `limit` passes.
        func drain(within limit: Duration) async {
            let deadline = ContinuousClock.now.advanced(by: limit)
            while waiting > 0 && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }

        func stop() {
            let unsent = state.withLock { state in
                state.stopping = true
                return state.pending.count + state.inflight.count
            }
            if unsent > 0 {
                printError(
                    "gpsloc uplink: stopping with \(unsent) messages kept in the outbox for the next run")
            }
            publisher.withLock { $0 }?.stop()
            outbox.close()
        }

        /// Says `text` on standard error unless it said it last.
        private func say(_ text: String) {
            let new = state.withLock { state -> Bool in
                defer { state.lastSaid = text }
                return state.lastSaid != text
            }
            if new { printError(text) }
        }
    }

    /// The messages waiting to be sent, oldest first: taken from the front in constant time (a
    /// long outage leaves hundreds of thousands), put back at the front after a disconnection.
    struct Backlog {
        private var items: [(JournalPosition, [UInt8])] = []
        private var head = 0

        var count: Int { items.count - head }
        var isEmpty: Bool { head == items.count }

        /// The oldest waiting message that the outbox kept (one it could not keep has segment 0).
        var firstKept: JournalPosition? { items[head...].first { $0.0.segment > 0 }?.0 }

        mutating func append(_ item: (JournalPosition, [UInt8])) { items.append(item) }
        mutating func append(contentsOf more: [(JournalPosition, [UInt8])]) { items += more }

        mutating func popFirst() -> (JournalPosition, [UInt8])? {
            guard head < items.count else { return nil }
            let item = items[head]
            items[head].1 = []
            head += 1
            // The taken ones are let go once they are half of the array.
            if head >= 1024 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }

        mutating func prepend(contentsOf front: [(JournalPosition, [UInt8])]) {
            if front.count <= head {
                head -= front.count
                items.replaceSubrange(head..<(head + front.count), with: front)
            } else {
                items = front + items[head...]
                head = 0
            }
        }
    }
#endif
