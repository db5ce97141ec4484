// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import GNSSSources
import LocationDaemon
import LocationEngine
import NIOCore
import NIOPosix
import TrackJournal

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(Glibc)
    private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
    private let RLIMIT_NOFILE_VALUE = RLIMIT_NOFILE
#endif

/// The daemon's life: it opens the receivers and the stored monitors, listens (or adopts
/// systemd's sockets), says READY, checks every client's "in use" each second, pings the
/// watchdog, and on SIGTERM (or SIGINT) says STOPPING, stops listening and lets its clients go.
struct DaemonService {
    let settings: DaemonSettings
    let daemon: Daemon
    let log: @Sendable (String) -> Void
    /// The serial receivers whose device did not exist at the start, as named.
    let absentReceivers: [String]
    /// An event loop per processor this process may run on, up to four. The first reads every
    /// serial receiver and serves the first hundred connections; only past those do the others
    /// take any (`LoopPlacement`), so that a small box with a few clients wakes one loop per
    /// epoch, and a thousand clients are written on every processor at once.
    let group = MultiThreadedEventLoopGroup(numberOfThreads: min(usableProcessors(), 4))

    init(settings: DaemonSettings, log: @escaping @Sendable (String) -> Void) throws(DaemonSettings
        .SettingsError)
    {
        self.settings = settings
        self.log = log
        var receivers: [Receiver] = []
        var absent: [String] = []
        // The group's first loop reads every serial receiver (`LoopPlacement` gives it the first
        // connections too).
        var loops = group.makeIterator()
        let loop = loops.next()!
        for text in settings.sources {
            let address: SourceAddress
            let source: any FixSource
            do {
                address = try SourceAddress(parsing: text)
            } catch {
                throw .init(description: "--source \(error)", isUsage: true)
            }
            let device = address.deviceIdentity
            // A receiver not plugged in yet is waited for, as one unplugged is; but a name that
            // does not exist may be a mistake, which the first lines should show.
            if case .serial(let path, _) = address, access(path, F_OK) != 0 {
                absent.append(text)
                log(
                    "warning: receiver \(text): \(path) does not exist (yet): its clients are told the receiver "
                        + "is unavailable until it appears, tried every 2 s while a client wants it; if it is the wrong "
                        + "name, see `ls -l /dev/serial/by-id/`")
            }
            // One device under two names is one receiver: read once, one reduced state per app.
            if let same = receivers.first(where: { $0.device == device }) {
                log("receiver \(text) is \(same.name) under another name (\(device)): served as one receiver")
                receivers.append(Receiver(name: text, device: device, service: same.service))
                continue
            }
            // A serial receiver is read on the event loop, and each app after the first is told
            // of its fixes there in turn, after the clients of the one before were written.
            do {
                source = try address.open(host: EventLoopReceiverHost(loop: loop), journals: JournalReplay())
            } catch {
                throw .init(description: "--source \(text): \(error)")
            }
            let service = LocationService(
                source: source, clock: ContinuousClock(), log: { log("receiver \(text): \($0)") },
                relay: { loop.execute($0) })
            receivers.append(Receiver(name: text, device: device, service: service))
        }
        if receivers.isEmpty {
            log(
                "warning: no receiver is configured: clients get locationUnavailable; pass --source or set "
                    + "\"sources\" in the configuration file")
        }
        absentReceivers = absent
        try Self.prepareStateDirectory(settings.stateDirectory)
        var group: UInt32?
        if let gid = UserDatabase.groupID(named: settings.administratorGroup) {
            group = gid
        } else {
            log(
                "the administrators' group \(settings.administratorGroup) does not exist; only root may grant, or "
                    + "change another user's decisions (each user may take back their own)"
            )
        }
        var configuration = Daemon.Configuration(
            receivers: receivers, stateDirectory: settings.stateDirectory,
            appsDirectory: settings.appsDirectory,
            administratorGroup: group, gracePeriod: .milliseconds(Int64(settings.grace * 1000)), log: log)
        configuration.applicationDirectories = settings.applicationDirectories
        configuration.historyRetention =
            settings.historyDays > 0 ? .milliseconds(Int64(settings.historyDays * 86_400_000)) : nil
        daemon = Daemon(configuration)
    }

    /// Looks at the clients' processes once a second (``Daemon/refreshActivity()``) until
    /// cancelled, on a thread of its own that sleeps in between: woken once a second and by
    /// nothing else, where a sleeping task wakes the runtime's timer thread and a worker each time
    /// (half the idle daemon's CPU: `BENCHMARKS.md`). Not on an event loop, where reading the
    /// `/proc` of a thousand processes would hold up the receivers' clients.
    static func checkActivity(of daemon: Daemon) async {
        let pause: PollLoop
        do { pause = try PollLoop() } catch {
            // Out of descriptors at start: the runtime's sleep, which needs none.
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                daemon.refreshActivity()
            }
            return
        }
        await onThread(named: "gpslocd-activity", stop: { pause.stop() }) {
            var turns = 0
            while !pause.pause(until: .now + .seconds(1)) {
                daemon.refreshActivity()
                // The access history's old entries go once an hour.
                turns += 1
                if turns % 3600 == 0 { daemon.pruneHistory() }
            }
        }
    }

    /// Makes the state directory the daemon's own: created 0700 if missing, made 0700 if it is open
    /// to others.
    static func prepareStateDirectory(_ path: String) throws(DaemonSettings.SettingsError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .init(
                description: "cannot create the state directory \(path) (\(errorWords(error))); "
                    + "pass --state-dir with a place the daemon's user owns")
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & 0o077 != 0 { chmod(path, 0o700) }
    }

    /// Raises the soft limit of open files to the hard one: each client is a descriptor, and the
    /// soft limit of 1,024 that most systems start a process with would refuse the thousandth.
    static func raiseDescriptorLimit(log: (String) -> Void) {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            if setrlimit(RLIMIT_NOFILE_VALUE, &limit) != 0 {
                log("cannot raise the limit of open files (\(String(cString: strerror(errno))))")
                _ = getrlimit(RLIMIT_NOFILE_VALUE, &limit)
            }
        }
        if limit.rlim_cur < 4096 {
            log(
                "at most \(limit.rlim_cur) open files: fewer clients than that can connect; "
                    + "raise LimitNOFILE in the unit (or ulimit -n)")
        }
    }

    /// Gives every event loop's thread the nice value `nice` (`--nice`), before any client or
    /// receiver is served. The loops read the receivers and write every client's update: as gpsd
    /// raises its own priority, they run ahead of the clients they wake at an epoch and of the
    /// rest of the machine, where at nice 0 a client woken by its update, or any busy program,
    /// held up the rest of the epoch's writes (`BENCHMARKS.md`, round 2, seventeenth part). The
    /// daemon's other threads (requests, decisions, monitors, the activity check) keep the nice
    /// value they start with. Refused (no `LimitNICE=`, no `CAP_SYS_NICE`), the loops stay as they
    /// are and the log says how to allow it.
    static func setNice(_ nice: Int, of group: MultiThreadedEventLoopGroup, log: (String) -> Void) async {
        var refused: CInt?
        for loop in group.makeIterator() {
            if let error = try? await loop.submit({ setCurrentThreadNice(nice) }).get() { refused = error }
        }
        guard let refused else { return }
        log(
            "cannot run the event loops at nice \(nice) (\(String(cString: strerror(refused)))): updates may "
                + "wait behind busy programs; allow it with LimitNICE=\(nice) in the unit (or CAP_SYS_NICE), "
                + "or pass --nice 0")
    }

    func run(until signals: ShutdownSignals) async throws {
        Self.raiseDescriptorLimit(log: log)
        await Self.setNice(settings.nice, of: group, log: log)
        if let note = PidfdSupport.startupNote { log(note) }
        let removed = removeStaleTemporaryFiles(under: settings.stateDirectory)
        if removed > 0 {
            log("removed \(removed) temporary files a stop mid-write left in \(settings.stateDirectory)")
        }
        let limits = ConnectionLimits(
            .init(
                perUser: settings.connectionsPerUser,
                helloTimeout: .milliseconds(Int64(settings.helloTimeout * 1000))))
        log(limits.summary)
        let server = DaemonServer(
            daemon: daemon, group: group, clientBuffer: settings.clientBuffer, limits: limits)
        let sockets = SocketFrontEnds(server: server)
        var frontEnds: [any FrontEnd] = []
        // Sockets systemd passed: gpsd's (named "gpsd" by gpslocd-gpsd.socket) and the daemon's own.
        let passed = Systemd.listenSockets()
        if let own = passed.first(where: { $0.name != "gpsd" }) {
            frontEnds.append(try sockets.adopt(descriptor: own.descriptor))
            log("serving on the socket systemd passed")
        } else {
            frontEnds.append(try sockets.listen(at: settings.socket))
            log("listening on \(settings.socket)")
        }
        for gpsd in passed where gpsd.name == "gpsd" {
            frontEnds.append(try sockets.adoptGPSD(descriptor: gpsd.descriptor))
            log("serving gpsd's protocol on the socket systemd passed (descriptor \(gpsd.descriptor))")
        }
        if let (host, port) = settings.gpsdEndpoint {
            frontEnds.append(try sockets.listenGPSD(host: host, port: port))
            log("serving gpsd's protocol on \(host):\(port)")
        }
        if settings.geoclue {
            let service = GeoClueService(daemon: daemon)
            do {
                try service.connect()
                frontEnds.append(service)
            } catch {
                // The other protocols are served all the same; the reason is what a reader needs.
                log(error.description)
            }
        }
        if settings.indicator {
            let indicator = ActivityIndicator(daemon: daemon)
            do {
                try indicator.connect()
                frontEnds.append(indicator)
            } catch {
                log("\(error.description); `gpsloc activity --watch` shows who uses location all the same")
            }
        }
        if !settings.chronySockets.isEmpty {
            frontEnds.append(ChronyFeeds(hub: daemon, directory: settings.chronySockets))
        }
        // Said once every socket is bound, as systemd is told: what waits for the daemon waits for this.
        let count = daemon.receiverCount
        let serving =
            count == 0
            ? "serving no receiver (clients get locationUnavailable)"
            : "serving \(count) \(count == 1 ? "receiver" : "receivers")"
                + (absentReceivers.isEmpty
                    ? "" : " (not present yet: \(absentReceivers.joined(separator: ", ")))")
        log("ready: \(serving)")
        if let failure = Systemd.notify("READY=1\nSTATUS=\(serving)") {
            log("cannot tell systemd the daemon is ready: \(failure)")
        }
        var stoppedBy: Int32?
        await withDiscardingTaskGroup { tasks in
            let daemon = daemon
            // Stored monitors are opened once the daemon answers: however many there are, it is
            // ready at once, and their evaluation catches up.
            tasks.addTask { daemon.restoreMonitors() }
            tasks.addTask { await daemon.logReceiverConnections() }
            for frontEnd in frontEnds { tasks.addTask { await frontEnd.run() } }
            tasks.addTask { await Self.checkActivity(of: daemon) }
            if let interval = Systemd.watchdogInterval() {
                tasks.addTask {
                    while !Task.isCancelled {
                        Systemd.notify("WATCHDOG=1")
                        try? await Task.sleep(for: interval)
                    }
                }
            }
            stoppedBy = await signals.next()
            tasks.cancelAll()
        }
        Systemd.notify("STOPPING=1")
        let signal = stoppedBy == SIGINT ? "SIGINT" : "SIGTERM"
        // The front-ends' tasks, cancelled, have stopped listening.
        log("stopping on \(signal): \(server.statistics.summary)")
        daemon.endActivity()
        // The receivers first: read on the event loop, and telling their apps through it.
        await daemon.stopReceivers()
        try? await group.shutdownGracefully()
    }
}
