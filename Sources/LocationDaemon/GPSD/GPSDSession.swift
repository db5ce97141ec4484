// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import GNSSSources
import LocationEngine
import Locking

/// gpsd's protocol (`gpsd_json(5)`, protocol 3) for one connection, under the decision of the
/// program behind it: a program with precise access is sent gpsd's TPV and SKY reports of every
/// fix (and GST and ATT when the receiver sends GST and a true heading); one with approximate access a TPV of its app's reduced locations only (`class`, `device`,
/// `mode`, `time`, `lat`, `lon`, `eph`), at the reducer's cadence, from the same reduced state as
/// its Core Location updates; one denied or not yet decided the VERSION, DEVICES and an ERROR that
/// says why and which command changes it. Settings of a receiver are never changed.
///
/// Commands are `?VERSION`, `?WATCH[={…}]`, `?POLL`, `?DEVICES` and `?DEVICE[={…}]`, each ended by
/// `;` or a line's end; replies and reports end in CRLF, as gpsd's.
final class GPSDSession: ProtocolSession {
    /// gpsd's protocol version this speaks (gpsd 3.22's): clients check the major number.
    static let protocolVersion = (major: 3, minor: 14)

    private struct Policy {
        var enable = false
        var json = false
        var nmea = false
        var raw = 0
        var scaled = false
        var timing = false
        var split24 = false
        var pps = false
        var device: String?
    }

    private struct State {
        var policy = Policy()
        /// The program as its hub hosts it, while it watches.
        var program: UnmodifiedProgram?
        /// What ends the watch: its tasks' and its feeds' cancellations.
        var stops: [@Sendable () -> Void] = []
        /// The last reports sent, for `?POLL`.
        var lastTPV: [UInt8]?
        var lastSKY: [UInt8]?
        /// The last refusal said, so that it is said once until it changes.
        var lastRefusal: String?
        /// Whether a watcher of more than TPV was told that approximate access brings TPV alone.
        var toldApproximate = false
        /// When each watched receiver (by path) was last reached, for DEVICE and DEVICES.
        /// `nil` for one seen gone (an absent key: not seen since the session began).
        var activated: [String: UTCTimestamp?] = [:]
        /// Whether the last thing served was a precise fix: only then does a pulse go out.
        var precise = false
        /// The watch's period of use, for the access history and the indicators.
        var period: UsePeriod?
        var closed = false
    }

    private let identity: PeerIdentity
    private let hub: Daemon
    private let output: ConnectionOutput
    private let reportCache: GPSDReportCache
    private let state = Mutex(State())
    private let started = Date()

    /// A session that has said its VERSION, as gpsd greets its clients; precise watchers' reports
    /// from `reports`, shared by every session of the daemon.
    init(identity: PeerIdentity, on connection: ConnectionContext, reports: GPSDReportCache) {
        self.identity = identity
        hub = connection.hub
        output = connection.output
        reportCache = reports
        version()
    }

    private func send(_ line: [UInt8]) { output.send(line) }

    /// One command, without its `;`: the first, as a hello, lets the connection stay silent after.
    func handle(_ request: [UInt8]) -> Bool {
        handle(String(decoding: request, as: UTF8.self))
        return true
    }

    private func handle(_ text: String) {
        let command = text.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard command.first == "?" else {
            error("Unrecognized request '\(Self.shown(command))'")
            return
        }
        let body = command.dropFirst()
        let verb = body.prefix { $0 != "=" }
        let argument = body.drop { $0 != "=" }.dropFirst()
        switch verb {
        case "VERSION":
            version()
        case "DEVICES":
            devices()
        case "DEVICE":
            device(argument)
        case "WATCH":
            watch(argument)
        case "POLL":
            poll()
        default:
            error("Unrecognized request '\(Self.shown(verb))'")
        }
    }

    /// The connection ended: the subscriptions end, and the app's session with them.
    func close() {
        let (stops, program) = state.withLock { state in
            state.closed = true
            defer { state.stops = [] }
            return (state.stops, state.program)
        }
        for stop in stops { stop() }
        program?.detach()
    }

    // MARK: Commands

    private struct WatchArguments: Decodable {
        var enable: Bool?
        var json: Bool?
        var nmea: Bool?
        var raw: Int?
        var scaled: Bool?
        var timing: Bool?
        var split24: Bool?
        var pps: Bool?
        var device: String?
    }

    private func watch(_ argument: Substring) {
        var arguments = WatchArguments()
        if !argument.isEmpty {
            do {
                arguments = try JSONDecoder().decode(WatchArguments.self, from: Data(argument.utf8))
            } catch {
                self.error("Invalid WATCH: \(Self.shown(argument)) is not a WATCH object")
                return
            }
        }
        if let device = arguments.device, receiver(named: device) == nil {
            self.error("Invalid WATCH: no receiver '\(Self.shown(device))'; ?DEVICES lists them")
            return
        }
        let (policy, start, stop) = state.withLock { state -> (Policy, Bool, Bool) in
            let was = state.policy.enable
            if !argument.isEmpty {
                // An object that enables without naming a format asks for JSON, as gpsd takes it.
                state.policy.enable = arguments.enable ?? true
                state.policy.json = arguments.json ?? (state.policy.enable && arguments.nmea != true)
                state.policy.nmea = arguments.nmea ?? state.policy.nmea
                state.policy.raw = arguments.raw ?? state.policy.raw
                state.policy.scaled = arguments.scaled ?? state.policy.scaled
                state.policy.timing = arguments.timing ?? state.policy.timing
                state.policy.split24 = arguments.split24 ?? state.policy.split24
                state.policy.pps = arguments.pps ?? state.policy.pps
                if let device = arguments.device { state.policy.device = device }
            }
            return (state.policy, state.policy.enable && !was, was && !state.policy.enable)
        }
        devices()
        reply { json in
            json.add("class", string: "WATCH")
            json.add("enable", bool: policy.enable)
            json.add("json", bool: policy.json)
            json.add("nmea", bool: policy.nmea)
            json.add("raw", integer: policy.raw)
            json.add("scaled", bool: policy.scaled)
            json.add("timing", bool: policy.timing)
            json.add("split24", bool: policy.split24)
            json.add("pps", bool: policy.pps)
            if let device = policy.device { json.add("device", string: device) }
        }
        if start { startWatching(device: policy.device) }
        if stop { stopWatching() }
    }

    /// gpsd's VERSION: the protocol is gpsd's 3.14; the release names gpslocd.
    private func version() { send(GPSDProtocol.version()) }

    private func poll() {
        let (tpv, sky, active) = state.withLock { ($0.lastTPV, $0.lastSKY, $0.policy.enable) }
        let now = UTCTimestamp.now.iso8601
        var line: [UInt8] = Array(
            #"{"class":"POLL","time":"\#(now)","active":\#(active ? 1 : 0),"tpv":["#.utf8)
        if let tpv { line += tpv }
        line += Array(#"],"sky":["#.utf8)
        if let sky { line += sky }
        line += Array("]}\r\n".utf8)
        send(line)
    }

    private func devices() {
        var line: [UInt8] = Array(#"{"class":"DEVICES","devices":["#.utf8)
        for (index, receiver) in hub.distinctReceivers.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            FixFormat.appendGPSDDevice(
                path: Self.path(of: receiver), activated: activation(of: receiver), to: &line)
        }
        line += Array("]}\r\n".utf8)
        send(line)
    }

    private func device(_ argument: Substring) {
        if !argument.isEmpty {
            // Anything but naming a receiver would change it: gpslocd never lets a client do that.
            let members: [String: JSONValue]
            if case .object(let object)? = JSONValue.parse(argument.utf8) {
                members = object
            } else {
                members = [:]
            }
            if members.keys.contains(where: { $0 != "path" && $0 != "class" }) {
                error("gpslocd does not change a receiver's settings for a client; ?DEVICE only reports them")
                return
            }
        }
        guard let receiver = hub.distinctReceivers.first else {
            error("gpslocd has no receiver")
            return
        }
        let activated = activation(of: receiver)
        var line: [UInt8] = []
        FixFormat.appendGPSDDevice(path: Self.path(of: receiver), activated: activated, to: &line)
        send(line + [13, 10])
    }

    /// When a receiver was last reached: as this session saw it, else (a receiver open before the
    /// session began) when the daemon started; `nil` while it is closed.
    private func activation(of receiver: Receiver) -> UTCTimestamp? {
        let path = Self.path(of: receiver) ?? receiver.name
        if let seen = state.withLock({ $0.activated[path] }) { return seen }  // reached, or gone
        return receiver.service.isRunning ? Self.timestamp(started) : nil
    }

    /// A receiver reached or gone: gpsd's DEVICE, with `activated` while it is open and without
    /// it once it closed.
    private func receive(_ event: SourceEvent, receiver: Receiver) {
        let path = Self.path(of: receiver) ?? receiver.name
        let activated: UTCTimestamp?
        switch event {
        case .connected:
            activated = .now
        case .disconnected, .failed, .ended:
            activated = nil
        case .reconnecting, .stale:
            return
        }
        let watching = state.withLock { state -> Bool in
            // `.some(nil)` keeps the key: the receiver was seen gone, not never seen.
            state.activated[path] = .some(activated)
            return state.policy.enable
        }
        guard watching else { return }
        var line: [UInt8] = []
        FixFormat.appendGPSDDevice(path: Self.path(of: receiver), activated: activated, to: &line)
        send(line + [13, 10])
    }

    // MARK: Watching

    private func startWatching(device: String?) {
        let name = device.flatMap(receiver(named:))?.name
        let program: UnmodifiedProgram
        do {
            program = try hub.attachUnmodified(identity, receiver: name)
        } catch {
            self.error(error.description)
            return
        }
        let client = program.client
        let watched =
            name.flatMap { name in hub.configuration.receivers.first { $0.name == name } }
            ?? hub.configuration.receivers.first
        let events = watched?.service.sourceEvents()
        let eventTask = Task { [weak self] in
            guard let events, let watched else { return }
            for await event in events { self?.receive(event, receiver: watched) }
        }
        let device = Self.path(of: watched).map(QuotedText.init)
        // The fixes first: the updates start the receiver, and a log replayed as fast as it can be
        // read would otherwise hand out its first epochs before anyone took its fixes.
        let fixes = client.app.preciseFixes()
        let updates = client.app.engineUpdates(preciseAsStatus: true)
        let pulseTask = Task { [weak self] in
            guard let path = watched?.service.source.devicePath else { return }
            for await pulse in PulsePerSecond.pulses(device: path) { self?.receive(pulse, device: device) }
        }
        // Read on the connection's event loop: each report is written where it is made.
        // A log replayed as fast as it can be read waits for the client rather than outrunning it.
        let paced = client.app.readerSetsPace
        let period = hub.usePeriod(identity, via: .gpsd)
        // The program and its period first: the first update may come at once, and what it says
        // (undecided, or refused) depends on the program's decision.
        let late = state.withLock { state -> Bool in
            if state.closed { return true }
            state.program = program
            state.period = period
            state.stops += [eventTask.cancel, pulseTask.cancel, updates.cancel, fixes.cancel, period.end]
            return false
        }
        if late {
            pulseTask.cancel()
            eventTask.cancel()
            updates.cancel()
            fixes.cancel()
            period.end()
            program.detach()
            return
        }
        output.deliver(
            updates, readerSetsPace: paced, { [weak self] update in self?.receive(update, device: device) },
            end: {})
        output.deliver(
            fixes, readerSetsPace: paced, { [weak self] fix in self?.receive(fix, device: device) }, end: {})
    }

    private func stopWatching() {
        let stops = state.withLock { state in
            defer { state.stops = [] }
            return state.stops
        }
        for stop in stops { stop() }
    }

    /// A precise fix: gpsd's own reports of it, and its pseudo-NMEA for a watcher of NMEA or raw
    /// data (gpslocd passes no receiver's bytes through: see ``PseudoNMEA``).
    private func receive(_ fix: Fix, device: QuotedText?) {
        let (policy, period) = state.withLock { state in
            state.precise = true
            return (state.policy, state.period)
        }
        guard policy.enable else { return }
        period?.delivered(precise: true)
        var lines: [UInt8] = []
        if policy.json { lines = reports(of: fix, device: device) }
        if policy.json && policy.pps && FixFormat.appendGPSDTOFF(fix, device: device, to: &lines) {
            lines += [13, 10]
        }
        if policy.nmea || policy.raw > 0 { PseudoNMEA.append(fix, to: &lines) }
        if !lines.isEmpty { send(lines) }
    }

    /// A pulse of the receiver, for a precise watcher with `pps`: gpsd's PPS.
    private func receive(_ pulse: PulsePerSecond.Pulse, device: QuotedText?) {
        guard state.withLock({ $0.policy.enable && $0.policy.pps && $0.precise }) else { return }
        var line: [UInt8] = []
        FixFormat.appendGPSDPPS(clock: pulse.clock, device: device, to: &line)
        send(line + [13, 10])
    }

    /// gpsd's TPV, SKY, GST and ATT of a fix, each a line (written once for every watcher of the
    /// receiver); TPV and SKY kept for `?POLL`.
    private func reports(of fix: Fix, device: QuotedText?) -> [UInt8] {
        let reports = reportCache.reports(of: fix, device: device)
        state.withLock { state in
            state.lastTPV = reports.tpv
            if let sky = reports.sky { state.lastSKY = sky }
            state.lastRefusal = nil
        }
        return reports.lines
    }

    /// An update: a reduced location becomes a TPV of it alone; a refusal, an ERROR saying why. A
    /// precise location comes as its status alone (the fixes carry it), when that changes.
    private func receive(_ update: LocationUpdate, device: QuotedText?) {
        let refusal: Refusal?
        if update.location == nil {
            let undecided = state.withLock { $0.program?.app.engine.authorizationStatus == .notDetermined }
            refusal = RefusalWords.refusal(update.flags, identity: identity, undecided: undecided)
        } else {
            refusal = nil
        }
        // Anything but a precise status ends the pulses until the next fix: only a precise
        // client gets them.
        let flags = update.flags
        let precise =
            update.location == nil && !update.locationUnavailable && refusal == nil && !flags.accuracyLimited
            && !flags.fullAccuracyDenied && !flags.serviceSessionRequired
        if !precise { state.withLock { $0.precise = false } }
        guard state.withLock({ $0.policy.enable }) else { return }
        if let location = update.location {
            guard update.flags.accuracyLimited else { return }  // the fixes carry precise ones
            let (policy, told, period) = state.withLock { state in
                state.precise = false
                defer { state.toldApproximate = true }
                return (state.policy, state.toldApproximate, state.period)
            }
            if !told && (policy.nmea || policy.raw > 0 || policy.pps) {
                error(
                    "\(identity.app) (uid \(identity.uid)) has approximate location only: gpslocd sends it TPV "
                        + "reports of that, and no NMEA, raw data, SKY, GST, ATT, TOFF or PPS")
            }
            guard policy.json else { return }
            period?.delivered(precise: false)
            var tpv: [UInt8] = []
            FixFormat.appendGPSDReducedTPV(
                latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
                radius: location.horizontalAccuracy, time: Self.timestamp(location.timestamp), device: device,
                to: &tpv)
            state.withLock { state in
                state.lastTPV = tpv
                state.lastSKY = nil
                state.lastRefusal = nil
            }
            send(tpv + [13, 10])
            return
        }
        guard let refusal else { return }
        let (said, period) = state.withLock { state -> (Bool, UsePeriod?) in
            defer { state.lastRefusal = refusal.text }
            return (state.lastRefusal == refusal.text, state.period)
        }
        period?.pause()
        if !said {
            error(refusal.text)
            hub.refused(identity, via: .gpsd, refusal)
        }
    }

    // MARK: Writing

    private func reply(_ body: (inout JSONObjectWriter) -> Void) {
        var line: [UInt8] = []
        JSONObjectWriter.append(to: &line, estimate: 256, body)
        line += [13, 10]
        send(line)
    }

    private func error(_ message: String) { send(GPSDProtocol.error(message)) }

    /// The receiver a client names by its path or its source address.
    private func receiver(named name: String) -> Receiver? {
        hub.configuration.receivers.first { $0.name == name || Self.path(of: $0) == name }
    }

    /// A receiver's path as gpsd clients show it: the device of a serial source, else its address.
    private static func path(of receiver: Receiver?) -> String? {
        guard let name = receiver?.name else { return nil }
        guard name.hasPrefix("serial:") else { return name }
        let path = name.dropFirst("serial:".count)
        return String(path.prefix { $0 != "?" })
    }

    private static func timestamp(_ date: Date) -> UTCTimestamp {
        UTCTimestamp(nanosecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1e9).rounded()))
    }

    /// A client's text as it may be shown back: printable ASCII, at most 64 characters.
    private static func shown(_ text: some StringProtocol) -> String {
        String(
            text.unicodeScalars.prefix(64).map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?"
            })
    }
}
