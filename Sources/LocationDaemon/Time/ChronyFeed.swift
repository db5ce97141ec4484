// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import GNSSSources
import LocationEngine
import Locking

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
/// owns it, so that no user can make the daemon keep a receiver open for a socket of theirs.
/// While chronyd listens the receiver stays open, as gpsd keeps it for chrony; when the socket
/// goes (chronyd stopped), the feed lets the receiver go and waits for it to come back.
final class ChronyFeed: Sendable {
    /// chrony's `struct sock_sample` magic number, "SOCK".
    static let magic: Int32 = 0x534F_434B

    let receiver: Receiver
    let path: String
    private let log: @Sendable (String) -> Void
    private let failure = Mutex<String?>(nil)
    private let descriptor: Int32
    /// chronyd's socket address, made once; `nil` when the path is too long for one.
    private let address: UnixSocketAddress?

    /// The feed of `receiver` into `directory`, `nil` for a receiver without a device file.
    init?(receiver: Receiver, directory: String, log: @escaping @Sendable (String) -> Void) {
        guard let device = receiver.service.source.devicePath else { return nil }
        let name = device.split(separator: "/").last.map(String.init) ?? device
        self.receiver = receiver
        path = directory + "/chrony." + name + ".sock"
        self.log = log
        descriptor = closeOnExecSocket(domain: AF_UNIX, type: Int32(SOCK_DGRAM.rawValue))
        address = UnixSocketAddress(path: path)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Feeds chronyd whenever it listens, until cancelled.
    func run() async {
        guard descriptor >= 0 else {
            log("cannot feed chrony at \(path): no socket (\(String(cString: strerror(errno))))")
            return
        }
        guard address != nil else {
            log(
                "cannot feed chrony at \(path): the path is too long for a socket; give a shorter --chrony-sockets"
            )
            return
        }
        while !Task.isCancelled {
            guard Self.isTrusted(path) else {
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

    private func send(_ sample: [UInt8]) {
        guard let address else { return }
        let sent = sample.withUnsafeBytes { raw in
            address.withSockAddr {
                sendto(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), $0, $1)
            }
        }
        if sent < 0 && errno != EAGAIN {
            let reason = String(cString: strerror(errno))
            failure.withLock { $0 = reason }
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

    /// Whether a socket at `path` is chronyd's: a socket that root or this daemon's user owns.
    static func isTrusted(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return false }
        return info.st_uid == 0 || info.st_uid == geteuid()
    }
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
