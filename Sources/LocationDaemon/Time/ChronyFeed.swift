// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import GNSSSources
import LocationEngine
import Locking
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The receiver's time for chrony, through its SOCK refclock: where chronyd listens on
/// `<directory>/chrony.<device>.sock` (`refclock SOCK /run/chrony.ttyUSB0.sock` in chrony.conf;
/// gpsd's convention, so an existing chrony.conf works unchanged), every fix with a position
/// becomes one sample: the system clock when the epoch's first byte was read
/// (``Fix/arrival``) and the offset of the receiver's time from it.
///
/// It is the daemon's one reader of the receiver that is not an app: it sends chronyd time and
/// nothing of where the receiver is. The socket counts only when root (or the daemon's own user)
/// owns it, no other user may write to it, and no other user may replace it (its directory not
/// writable by others, unless sticky), so that no user can make the daemon keep a receiver open
/// for a socket of theirs, or read the samples. The feed's socket is connected to chronyd's once
/// that is checked, and every sample goes to that socket, never to whatever is at the path later:
/// when chronyd stops, its socket goes with it, sending fails, and the path is checked again
/// before anything more is sent.
/// While chronyd listens the receiver stays open, as gpsd keeps it for chrony; when the socket
/// goes (chronyd stopped), the feed lets the receiver go and waits for it to come back.
final class ChronyFeed: Sendable {
    /// chrony's `struct sock_sample` magic number, "SOCK".
    static let magic: Int32 = 0x534F_434B

    let receiver: Receiver
    let path: String
    private let log: @Sendable (String) -> Void
    private let failure = Mutex<String?>(nil)
    /// The socket connected to chronyd's, once checked; -1 while there is none.
    private let descriptor = Mutex<Int32>(-1)
    /// chronyd's socket address, made once; `nil` when the path is too long for one.
    private let address: UnixSocketAddress?

    /// The feed of `receiver` into `directory`, `nil` for a receiver without a device file.
    init?(receiver: Receiver, directory: String, log: @escaping @Sendable (String) -> Void) {
        guard let device = receiver.service.source.devicePath else { return nil }
        let name = device.split(separator: "/").last.map(String.init) ?? device
        self.receiver = receiver
        path = directory + "/chrony." + name + ".sock"
        self.log = log
        address = UnixSocketAddress(path: path)
    }

    deinit { disconnect() }

    /// Feeds chronyd whenever it listens, until cancelled.
    func run() async {
        guard address != nil else {
            log(
                "cannot feed chrony at \(path): the path is too long for a socket; give a shorter --chrony-sockets"
            )
            return
        }
        var said: String?
        while !Task.isCancelled {
            if let distrust = Self.distrust(path) {
                // Said once a reason, not every two seconds: chronyd is not there yet, or the path
                // is not one the daemon may trust.
                if distrust != said { log("not feeding chrony at \(path): \(distrust)") }
                said = distrust
                try? await Task.sleep(for: .seconds(2))
                continue
            }
            said = nil
            if let failed = connect() {
                log("cannot feed chrony at \(path): \(failed)")
                try? await Task.sleep(for: .seconds(2))
                continue
            }
            failure.withLock { $0 = nil }
            let id = receiver.service.subscribe { [self] event in
                if case .fix(let fix) = event { self.send(fix) }
            }
            let pulses = Task { [self] in
                guard let device = receiver.service.source.devicePath else { return }
                for await pulse in PulsePerSecond.pulses(device: device) { self.send(pulse) }
            }
            defer { pulses.cancel() }
            log("feeding chrony at \(path) with the time of \(receiver.name)")
            while !Task.isCancelled, failure.withLock({ $0 }) == nil {
                try? await Task.sleep(for: .seconds(1))
            }
            receiver.service.unsubscribe(id)
            disconnect()
            if let reason = failure.withLock({ $0 }) {
                log("stopped feeding chrony at \(path): \(reason); fed again once chronyd listens there")
            }
        }
    }

    /// One sample, when the fix has a position (a receiver's time without one is not trusted),
    /// its time and its arrival.
    private func send(_ fix: Fix) {
        guard fix.hasPosition, let time = fix.time, let arrival = fix.arrival else { return }
        send(Self.sample(time: time, arrival: arrival))
    }

    /// A pulse: chronyd takes the second it marks from the samples of the fixes (`lock` in its
    /// refclock line), and from the pulse only where in the second the clock was.
    private func send(_ pulse: PulsePerSecond.Pulse) {
        send(Self.sample(time: pulse.clock.nearestWholeSecond, arrival: pulse.clock, pulse: true))
    }

    /// Sends a sample to the socket connected to chronyd's: never to the path, which another
    /// socket may hold by now.
    private func send(_ sample: [UInt8]) {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            let sent = sample.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if sent < 0 && errno != EAGAIN {
                let reason = String(cString: strerror(errno))
                failure.withLock { $0 = reason }
            }
        }
    }

    /// Connects a socket of the feed's own to chronyd's at the path, just checked; the reason
    /// when it cannot. It is checked once more after: the socket connected is the one checked.
    private func connect() -> String? {
        guard let address else { return "the path is too long for a socket" }
        let socket = closeOnExecSocket(domain: AF_UNIX, type: SocketType.datagram)
        guard socket >= 0 else { return "no socket (\(String(cString: strerror(errno))))" }
        let connected = address.withSockAddr { Glibc.connect(socket, $0, $1) }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            return "chronyd does not take samples there (\(reason))"
        }
        // Checked again, now that the socket is connected: what was checked is what it reached
        // unless the path changed between, which this check then sees.
        if let distrust = Self.distrust(path) {
            close(socket)
            return distrust
        }
        descriptor.withLock { old in
            if old >= 0 { close(old) }
            old = socket
        }
        return nil
    }

    private func disconnect() {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    /// chrony's `struct sock_sample` on this machine (64-bit `timeval`): the system clock at the
    /// epoch's arrival (or the pulse), the receiver's time minus it in seconds, whether it is a
    /// pulse, no leap second.
    static func sample(time: UTCTimestamp, arrival: UTCTimestamp, pulse: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        func append<T>(_ value: T) { withUnsafeBytes(of: value) { bytes += $0 } }
        let (seconds, nanoseconds) = arrival.secondsAndNanoseconds
        append(Int(seconds))
        append(Int(nanoseconds / 1000))
        append(Double(time.nanosecondsSinceEpoch - arrival.nanosecondsSinceEpoch) / 1e9)
        append(Int32(pulse ? 1 : 0))
        append(Int32(0))  // leap
        append(Int32(0))  // padding
        append(magic)
        return bytes
    }

    /// Why no socket at `path` is known to be chronyd's: none there (``absent``); not a socket;
    /// not owned by root or this daemon's user; writable by others; or in a directory other users
    /// may write to without its sticky bit (anyone could replace it). `nil` when it may be trusted.
    static func distrust(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return absent }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return "it is not a socket" }
        guard info.st_uid == 0 || info.st_uid == geteuid() else {
            return "the socket belongs to uid \(info.st_uid), not root or this daemon's user"
        }
        guard info.st_mode & S_IWOTH == 0 else { return "the socket is writable by any user" }
        let directory = FilePath(path).removingLastComponent().string
        var folder = stat()
        guard stat(directory.isEmpty ? "." : directory, &folder) == 0 else {
            return "its directory cannot be read (\(String(cString: strerror(errno))))"
        }
        let othersWrite =
            folder.st_mode & S_IWOTH != 0
            || (folder.st_mode & S_IWGRP != 0 && folder.st_gid != 0 && folder.st_gid != getegid())
        if othersWrite && folder.st_mode & S_ISVTX == 0 {
            return
                "its directory \(directory) is writable by other users and not sticky, so any of them could "
                + "replace the socket; make it 0755 (or 1777), or choose another --chrony-sockets"
        }
        return nil
    }

    /// ``distrust(_:)`` for a path with nothing there: chronyd not listening (yet).
    static let absent =
        "chronyd does not listen there (yet); it is fed once it does (`refclock SOCK` in chrony.conf)"
}

/// Every receiver with a device file fed to chrony's SOCK refclocks in one directory: a
/// front-end of the daemon's, served until cancelled.
public struct ChronyFeeds: FrontEnd {
    let feeds: [ChronyFeed]

    /// The feeds of `hub`'s receivers (each device once) into `directory`.
    public init(hub: Daemon, directory: String) {
        feeds = hub.distinctReceivers.compactMap {
            ChronyFeed(receiver: $0, directory: directory, log: hub.log)
        }
    }

    public var name: String { "chrony" }

    public func run() async {
        await withDiscardingTaskGroup { group in
            for feed in feeds { group.addTask { await feed.run() } }
        }
    }
}
