// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import FoundationEssentials
import GNSS
import Locking
import Logging
import NMEA
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A serial port opened for a GPS receiver: raw mode, 8N1, no flow control unless asked, and
/// exclusive (`TIOCEXCL` and an advisory lock), so two programs never share one receiver.
enum SerialPort {
    /// The standard rates, most common for GPS receivers first.
    static let detectionOrder = [4800, 9600, 38400, 115200, 57600, 19200, 230400, 460800, 921600]

    static func speed(_ baud: Int) -> speed_t? {
        switch baud {
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        case 230400: speed_t(B230400)
        case 460800: speed_t(B460800)
        case 921600: speed_t(B921600)
        default: nil
        }
    }

    /// Opens `path` exclusively; the error says what to do about a failure.
    static func open(_ path: String) throws(DisconnectError) -> FileDescriptor {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                path, .readWrite,
                // O_NOCTTY, which swift-system does not name: a receiver never becomes our terminal.
                options: [FileDescriptor.OpenOptions(rawValue: O_NOCTTY), .nonBlocking, .closeOnExec])
        } catch {
            let code = error as? Errno
            let hint: String? =
                switch code {
                case .noSuchFileOrDirectory?, .operationNotSupportedByDevice?, .noSuchAddressOrDevice?:
                    "is the receiver plugged in?"
                case .permissionDenied?, .notPermitted?:
                    "add the user to the group that owns it (often dialout, or gnss with gpslocd's udev rule)"
                case .resourceBusy?: "another program has it open"
                default: nil
                }
            throw DisconnectError("serial:\(path): cannot open", errno: code, hint: hint)
        }
        if flock(descriptor.rawValue, LOCK_EX | LOCK_NB) != 0 {
            try? descriptor.close()
            throw DisconnectError(
                "serial:\(path): another program has this receiver open",
                hint: "stop it, or share the receiver through gpslocd")
        }
        _ = ioctl(descriptor.rawValue, UInt(TIOCEXCL))
        return descriptor
    }

    /// Clears the exclusive flag (it outlives the descriptor, and would keep every user but root
    /// out) and closes the port.
    static func close(_ descriptor: FileDescriptor) {
        _ = ioctl(descriptor.rawValue, UInt(TIOCNXCL))
        try? descriptor.close()
    }

    /// Sets raw 8N1 at `baud` and drops whatever was received before.
    static func configure(_ descriptor: FileDescriptor, path: String, baud: Int, flowControl: Bool)
        throws(DisconnectError)
    {
        guard let rate = speed(baud) else {
            throw DisconnectError(
                "serial:\(path): \(baud) is not a standard rate",
                hint: "use one of " + detectionOrder.sorted().map(String.init).joined(separator: ", "),
                permanent: true)
        }
        let fd = descriptor.rawValue
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            throw DisconnectError(
                "serial:\(path): not a serial port", errno: Errno(rawValue: errno),
                hint: "name the receiver's device, as gpsloc devices lists them", permanent: true)
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~tcflag_t(CSTOPB | PARENB | CSIZE)
        settings.c_cflag |= tcflag_t(CS8)
        if flowControl {
            settings.c_cflag |= tcflag_t(CRTSCTS)
        } else {
            settings.c_cflag &= ~tcflag_t(CRTSCTS)
        }
        settings.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        cfsetispeed(&settings, rate)
        cfsetospeed(&settings, rate)
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
            throw DisconnectError("serial:\(path): cannot set \(baud) baud", errno: Errno(rawValue: errno))
        }
        tcflush(fd, TCIFLUSH)
    }
}

/// Decides from a sample of bytes whether a port is set to the receiver's rate: at the right
/// rate NMEA arrives as checksummed sentences; at a wrong one it is noise.
public struct BaudProbe: Sendable {
    public enum Verdict: Sendable, Hashable {
        case nmea, noise, undecided
    }

    private var framer = NMEAFramer()
    public private(set) var sentences = 0
    public private(set) var bytes = 0

    public init() {}

    public mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        bytes += chunk.count
        var found = 0
        framer.append(chunk) { _ in found += 1 }
        sentences += found
    }

    /// Sentences the framer rejected (bad checksums, binary inside a line, …).
    public var rejected: Int { framer.statistics.rejected }

    public var verdict: Verdict {
        if sentences >= 2 && sentences > rejected { return .nmea }
        if bytes >= 1024 && sentences == 0 { return .noise }
        return .undecided
    }
}

/// A GPS receiver on a serial port: `serial:/dev/ttyUSB0?baud=9600`.
///
/// Each run opens the port exclusively, finds the rate when none was given (trying the standard
/// rates until checksummed sentences arrive, the last rate found first on a reopen), and reads
/// until the device goes away (unplugged: EIO, ENXIO or hang-up), which it reports by throwing
/// ``DisconnectError``; the location service then reopens it with backoff.
public final class SerialSource: ConnectingFixSource {
    public let path: String
    public var devicePath: String? { path }
    public let baud: Int?
    public let flowControl: Bool
    /// How long to listen at each rate while detecting it.
    public let probeTime: Duration
    public var origin: FixOrigin { .receiver }
    public var name: String { "serial:\(path)" }
    /// Where the port is read for a consumer told at once; `nil`: on a thread of the source's own.
    public let host: (any ReceiverHost)?

    private let current = Mutex<DescriptorReader?>(nil)
    private let detected = Mutex<Int?>(nil)
    private let logger: Logger

    public init(
        path: String, baud: Int? = nil, flowControl: Bool = false, probeTime: Duration = .milliseconds(2500),
        host: (any ReceiverHost)? = nil, logger: Logger = Logger(label: "OpenCoreLocation.serial")
    ) {
        self.path = path
        self.host = host
        self.baud = baud
        self.flowControl = flowControl
        self.probeTime = probeTime
        self.logger = logger
    }

    /// The rate in use, given or detected.
    public var rate: Int? { baud ?? detected.withLock { $0 } }

    /// Sends bytes to the receiver, such as a configuration sentence.
    public func send(_ bytes: [UInt8]) throws(DisconnectError) {
        guard let reader = current.withLock({ $0 }) else {
            throw DisconnectError("\(name): not open; the receiver is not connected")
        }
        try reader.write(bytes)
    }

    public func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws {
        let path = path
        let descriptor = try SerialPort.open(path)
        let rate: Int
        do {
            if let baud {
                rate = baud
            } else {
                rate = try await detectRate(descriptor)
            }
            try SerialPort.configure(descriptor, path: path, baud: rate, flowControl: flowControl)
        } catch {
            SerialPort.close(descriptor)
            throw error
        }
        // The receiver's pulse per second on DCD, where the port reports its modem lines.
        let pulses =
            PulsePerSecond.Watcher.reportsModemLines(descriptor.rawValue)
            ? PulsePerSecond.Watcher(port: descriptor.rawValue, device: path) { [logger] in
                logger.notice("\($0)")
            }
            : nil
        defer { pulses?.stop() }
        let reader = try DescriptorReader(descriptor: descriptor, name: name)
        current.withLock { $0 = reader }
        defer { current.withLock { if $0 === reader { $0 = nil } } }
        logger.debug("\(name): open at \(rate) baud")
        connected(
            "\(name) at \(rate) baud"
                + (pulses == nil ? " (no pulse per second: the port does not report its DCD line)" : ""))
        let (logger, name) = (logger, name)
        let decoder = StreamDecoder { bytes, rejected in
            logger.warning(
                """
                \(name): \(bytes) bytes at \(rate) baud and not one NMEA sentence (\(rejected) rejected): \
                is \(rate) its rate (leave ?baud= out to detect it), or does it speak a binary protocol \
                (UBX, SiRF) only?
                """)
        }
        if let host, case .immediate(let deliver) = delivery {
            try await reader.run(hostedBy: host, { decoder.decode($0) }, deliver: deliver)
        } else {
            try await reader.run({ decoder.decode($0) }, delivery: delivery)
        }
    }

    /// Tries the standard rates (the last one found first) until one gives NMEA.
    private func detectRate(_ descriptor: FileDescriptor) async throws -> Int {
        var order = SerialPort.detectionOrder
        if let last = detected.withLock({ $0 }) {
            order.removeAll { $0 == last }
            order.insert(last, at: 0)
        }
        let found = try await Self.findRate(
            descriptor, path: path, flowControl: flowControl, order: order, probeTime: probeTime,
            logger: logger)
        detected.withLock { $0 = found }
        logger.notice("serial:\(path): found NMEA at \(found) baud")
        return found
    }

    /// Listens at each rate of `order` for up to `probeTime` until one gives checksummed NMEA.
    static func findRate(
        _ descriptor: FileDescriptor, path: String, flowControl: Bool, order: [Int], probeTime: Duration,
        logger: Logger? = nil
    ) async throws -> Int {
        let loop: PollLoop
        do { loop = try PollLoop() } catch {
            throw DisconnectError("serial:\(path): cannot create a pipe", errno: error)
        }
        let found: Int? = try await onThread(named: "serial rate probe", stop: { loop.stop() }) {
            () throws(DisconnectError) -> Int? in
            defer { loop.close() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let lost = { (code: Errno?) in
                DisconnectError("serial:\(path): disconnected while finding its rate", errno: code)
            }
            for rate in order {
                try SerialPort.configure(descriptor, path: path, baud: rate, flowControl: flowControl)
                var probe = BaudProbe()
                let deadline = ContinuousClock.now.advanced(by: probeTime)
                while probe.verdict == .undecided {
                    let result: PollLoop.ReadResult?
                    do {
                        result = try buffer.withUnsafeMutableBytes { raw throws(Errno) in
                            try loop.read(descriptor, into: raw, until: deadline)
                        }
                    } catch { throw lost(error as? Errno) }
                    guard let result else { break }
                    switch result {
                    case .bytes(let count):
                        buffer.withUnsafeBytes { probe.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                    case .stopped:
                        return nil
                    case .end, .hangUp:
                        throw lost(nil)
                    }
                }
                logger?.debug(
                    """
                    serial:\(path): at \(rate) baud \(probe.bytes) bytes, \(probe.sentences) sentences, \
                    \(probe.rejected) rejected: \(probe.verdict)
                    """)
                if probe.verdict == .nmea { return rate }
            }
            return nil
        }
        try Task.checkCancellation()
        guard let found else {
            throw DisconnectError(
                "serial:\(path): no NMEA at any standard rate",
                hint: "the receiver may send binary only (UBX, SiRF) or be silent: give the rate with ?baud=N"
            )
        }
        return found
    }

    /// Opens `path` exclusively, finds the rate at which it speaks NMEA, and closes it again.
    /// Throws ``DisconnectError`` saying why when the device cannot be opened or sends no NMEA.
    public static func probe(path: String, probeTime: Duration = .milliseconds(1500)) async throws -> Int {
        let descriptor = try SerialPort.open(path)
        defer { SerialPort.close(descriptor) }
        return try await findRate(
            descriptor, path: path, flowControl: false, order: SerialPort.detectionOrder, probeTime: probeTime
        )
    }

    /// A device's name as it sorts among its kind: `ttyUSB2` before `ttyUSB10`.
    private static func numberedOrder(_ name: String) -> (String, Int, String) {
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }.count
        return (String(name.dropLast(digits)), Int(name.suffix(digits)) ?? -1, name)
    }

    /// The devices a GPS receiver is usually found on: `/dev/ttyUSB*`, `/dev/ttyACM*` and the
    /// stable `/dev/serial/by-id/*` links to them, links first and each device once.
    public static func candidateDevices(in root: String = "/dev") -> [String] {
        let files = FileManager.default
        var result: [String] = []
        var seen: Set<String> = []
        let byID = root + "/serial/by-id"
        for name in ((try? files.contentsOfDirectory(atPath: byID)) ?? []).sorted() {
            let link = byID + "/" + name
            let target =
                realpath(link, nil).map { resolved in
                    defer { free(resolved) }
                    return String(cString: resolved)
                } ?? link
            if seen.insert(target).inserted { result.append(link) }
        }
        let names = ((try? files.contentsOfDirectory(atPath: root)) ?? []).filter {
            $0.hasPrefix("ttyUSB") || $0.hasPrefix("ttyACM")
        }
        for name in names.sorted(by: { numberedOrder($0) < numberedOrder($1) }) {
            let path = root + "/" + name
            if seen.insert(path).inserted { result.append(path) }
        }
        return result
    }
}
