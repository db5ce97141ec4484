// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if LibGPS
    import CGPS
    import DescriptorIO
    import FoundationEssentials
    import GNSS
    import Logging
    import NMEA
    import Synchronization
    import SystemPackage

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// Fixes from gpsd through its own client library, libgps (package trait `LibGPS`):
    /// `gpsd+libgps://host:port[/device]` over gpsd's socket, or `gpsd+shm:` from the
    /// shared-memory segment a local gpsd exports (no socket, no JSON).
    ///
    /// The fixes are those of ``GPSDSource`` for the same gpsd; libgps (`gps_open`, `gps_stream`,
    /// `gps_read`) runs on a thread of its own, which waits for gpsd's socket in a `PollLoop`
    /// like every other source. The shared-memory segment has no descriptor to wait on: it is
    /// looked at every 0.2 s (`gps_waiting`), as gpsd's own clients do. A socket that closes ends
    /// the run with ``DisconnectError``; the shared-memory segment has no end, so a gpsd that
    /// stops shows as fixes going stale.
    public struct LibGPSSource: ConnectingFixSource {
        public enum Transport: Sendable, Hashable {
            case socket(host: String, port: Int, device: String?)
            case sharedMemory
        }

        public let transport: Transport
        private let logger: Logger
        public var origin: FixOrigin { .receiver }
        public var name: String {
            switch transport {
            case .socket(let host, let port, let device): "gpsd+libgps://\(host):\(port)\(device ?? "")"
            case .sharedMemory: "gpsd+shm:"
            }
        }

        public init(_ transport: Transport, logger: Logger = Logger(label: "OpenCoreLocation.libgps")) {
            self.transport = transport
            self.logger = logger
        }

        public func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws
        {
            let transport = transport
            let name = name
            let logger = logger
            let loop: PollLoop
            do { loop = try PollLoop() } catch {
                throw DisconnectError("\(name): cannot create a pipe", errno: error)
            }
            // The reading thread closes libgps itself once its loop is stopped.
            try await deliverFromThread(named: "gnss-libgps", stop: { loop.stop() }, delivery: delivery) {
                yield in
                defer { loop.close() }
                try Self.read(transport, name: name, loop: loop, connected: connected, logger: logger, yield)
            }
        }

        /// The blocking loop: open, watch, read until stopped or disconnected, close.
        private static func read(
            _ transport: Transport, name: String, loop: PollLoop,
            connected: @Sendable (String) -> Void, logger: Logger, _ emit: (Fix) -> Void
        ) throws(DisconnectError) {
            var data = gps_data_t()
            let status: Int32
            switch transport {
            case .socket(let host, let port, _):
                status = gps_open(host, String(port), &data)
            case .sharedMemory:
                status = gps_open(cgps_shared_memory(), nil, &data)
            }
            guard status == 0 else {
                let reason = String(cString: gps_errstr(errno))
                throw DisconnectError(
                    "\(name): cannot connect (\(reason))",
                    hint: transport == .sharedMemory
                        ? "is a gpsd running on this machine with shared memory export?" : "is gpsd running?")
            }
            defer { gps_close(&data) }
            if case .socket(_, _, let device) = transport {
                var flags = cgps_watch_json()
                if let device {
                    flags |= cgps_watch_device()
                    let watched = device.withCString {
                        gps_stream(&data, flags, UnsafeMutableRawPointer(mutating: $0))
                    }
                    guard watched == 0 else {
                        throw DisconnectError("\(name): gpsd refused to watch \(device)")
                    }
                } else {
                    guard gps_stream(&data, flags, nil) == 0 else {
                        throw DisconnectError("\(name): gpsd refused the watch request")
                    }
                }
            }
            logger.debug("\(name): connected")
            connected(name)
            var lastShared: Int64 = 0
            let socket = FileDescriptor(rawValue: data.gps_fd)
            while true {
                if transport == .sharedMemory {
                    if loop.isStopped { return }
                    guard gps_waiting(&data, 200_000) else { continue }
                } else if !gps_waiting(&data, 0) {
                    // Nothing buffered in libgps: wait for gpsd's socket, or to be stopped.
                    let readiness: PollLoop.Readiness
                    do { readiness = try loop.wait(for: socket) } catch {
                        throw DisconnectError("\(name): disconnected", errno: error)
                    }
                    switch readiness {
                    case .stopped: return
                    case .hangUp: throw DisconnectError("\(name): gpsd closed the connection")
                    case .readable: break
                    }
                }
                data.set = 0
                guard gps_read(&data, nil, 0) >= 0 else {
                    throw DisconnectError("\(name): gpsd closed the connection")
                }
                // Over the socket each TPV report sets the mode; the shared-memory segment is the
                // whole state at every read, deduplicated by time below.
                guard transport == .sharedMemory || data.set & cgps_mode_set() != 0 else { continue }
                if case .socket(_, _, let device?) = transport {
                    let from = withUnsafeBytes(of: data.dev.path) {
                        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if !from.isEmpty && from != device { continue }
                }
                let fix = Self.fix(data)
                // The shared-memory segment keeps its last fix: pass each one on once.
                if transport == .sharedMemory {
                    let stamp = fix.time?.nanosecondsSinceEpoch ?? 0
                    if stamp == lastShared { continue }
                    lastShared = stamp
                }
                emit(fix)
            }
        }

        /// A fix from libgps's accumulated state; libgps marks what it does not know with NaN.
        static func fix(_ data: gps_data_t) -> Fix {
            func known(_ value: Double) -> Double? { value.isFinite ? value : nil }
            let source = data.fix
            var fix = Fix()
            let (seconds, overflow) = Int64(source.time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
            if source.time.tv_sec != 0 || source.time.tv_nsec != 0, !overflow,
                case let (nanoseconds, overflowed) = seconds.addingReportingOverflow(
                    Int64(source.time.tv_nsec)),
                !overflowed
            {
                let time = UTCTimestamp(nanosecondsSinceEpoch: nanoseconds)
                fix.time = time
                fix.timeOfDay = NMEATime(millisecondsOf: time)
            }
            fix.mode = FixMode(rawValue: Int(source.mode)) ?? .notSeen
            fix.status = FixStatus(rawValue: Int(source.status)) ?? .unknown
            if fix.mode >= .twoDimensional && fix.status == .unknown { fix.status = .gps }
            fix.latitude = known(source.latitude)
            fix.longitude = known(source.longitude)
            fix.altitudeMSL = known(source.altMSL)
            fix.altitudeHAE = known(source.altHAE)
            fix.geoidSeparation = known(source.geoid_sep)
            fix.speed = known(source.speed)
            fix.course = known(source.track)
            fix.magneticVariation = known(source.magnetic_var)
            fix.climb = known(source.climb)
            fix.errors.horizontal = known(source.eph)
            fix.errors.vertical = known(source.epv)
            fix.errors.longitude = known(source.epx)
            fix.errors.latitude = known(source.epy)
            fix.errors.spherical = known(source.sep)
            fix.errors.speed = known(source.eps)
            fix.errors.climb = known(source.epc)
            fix.errors.time = known(source.ept)
            fix.dop = DOP(
                pdop: known(data.dop.pdop), hdop: known(data.dop.hdop), vdop: known(data.dop.vdop),
                tdop: known(data.dop.tdop), gdop: known(data.dop.gdop), xdop: known(data.dop.xdop),
                ydop: known(data.dop.ydop))
            let visible = Int(max(0, data.satellites_visible))
            fix.satellites = withUnsafeBytes(of: data.skyview) { raw in
                raw.bindMemory(to: satellite_t.self).prefix(visible).map { satellite in
                    let constellation = Constellation(gnssID: Int(satellite.gnssid))
                    return Satellite(
                        constellation: constellation, svid: Int(satellite.svid), nmeaID: Int(satellite.PRN),
                        signal: Int(satellite.sigid), elevation: known(satellite.elevation),
                        azimuth: known(satellite.azimuth), snr: known(satellite.ss), used: satellite.used)
                }
            }
            // libgps counts signals used; the fix counts satellites.
            let used = fix.satellites.usedSatelliteCount
            if used > 0 {
                fix.satellitesUsed = used
            } else if data.satellites_used > 0 {
                fix.satellitesUsed = Int(data.satellites_used)
            }
            fix.sentenceCount = 1
            return fix
        }
    }
#endif
