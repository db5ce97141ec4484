// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A source named by a URL-like string, the same in the API and on the command line:
/// `file:PATH` (replay; `?speed=N` or `?speed=max`, default real time by the log's own times),
/// `-` (standard input), `serial:/dev/ttyUSB0?baud=9600`, `gpsd://host:port[/device]`, `gpsd+libgps://host:port[/device]`
/// and `gpsd+shm:` (with the `LibGPS` trait), `tcp://host:port`,
/// `udp://:port` (this machine only) or `udp://ADDRESS:port` (`udp://0.0.0.0:10110` for every
/// IPv4 interface, `udp://[::]:10110` for every interface).
public enum SourceAddress: Sendable, Hashable {
    case file(path: String, speed: ReplaySpeed)
    /// A track journal recorded with `--nmea`, replayed from its sentences, opened with the
    /// private key in the file `key` (`file:JOURNAL?key=FILE`).
    case journal(path: String, key: String, speed: ReplaySpeed)
    case standardInput(speed: ReplaySpeed)
    case serial(path: String, baud: Int?)
    case gpsd(host: String, port: Int, device: String?)
    /// gpsd through libgps: `gpsd+libgps://host:port[/device]` (package trait `LibGPS`).
    case libgps(host: String, port: Int, device: String?)
    /// The shared-memory export of the local gpsd: `gpsd+shm:` (package trait `LibGPS`).
    case gpsdSharedMemory
    case tcp(host: String, port: Int)
    /// NMEA datagrams to `port`, on the loopback interface unless `address` names another.
    case udp(address: String?, port: Int)

    /// Why an address could not be understood, with what to write instead.
    public struct ParseError: Error, CustomStringConvertible {
        public var address: String
        public var reason: String
        public var description: String {
            "'\(address)' is not a source: \(reason). Sources look like file:drive.nmea, "
                + "file:drive.nmea?speed=max, -, serial:/dev/ttyUSB0?baud=9600, gpsd://localhost:2947, "
                + "tcp://host:10110 or udp://:10110"
        }
    }

    public init(parsing text: String) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(address: text, reason: reason) }
        var body = Substring(text)
        var query: [String: String] = [:]
        if let mark = body.firstIndex(of: "?") {
            for pair in body[body.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            body = body[..<mark]
        }
        /// Refuses a `?key=` the kind of source does not take: a misspelt `?sped=max` would
        /// otherwise replay in real time without a word.
        func only(_ known: [String], for kind: String) throws(ParseError) {
            for key in query.keys.sorted() where !known.contains(key) {
                throw fail(
                    "'\(key)' is not an option of \(kind) sources; "
                        + (known.isEmpty
                            ? "they take none"
                            : "they take " + known.map { "?\($0)=" }.joined(separator: ", ")))
            }
        }
        func speed() throws(ParseError) -> ReplaySpeed {
            guard let value = query["speed"] else { return .realTime }
            if value == "max" { return .maximum }
            guard let factor = Double(value), factor >= 0.001, factor <= 1_000_000 else {
                throw fail(
                    "speed must be 'max' or a factor from 0.001 to 1000000 (1 is real time), not '\(value)'")
            }
            return .factor(factor)
        }
        /// `host:port`, `[IPv6]:port`, `host` or `[IPv6]`; an empty host is `nil`.
        func hostPort(_ rest: Substring, defaultPort: Int?) throws(ParseError) -> (String?, Int) {
            let rest = rest.hasSuffix("/") ? rest.dropLast() : rest
            var host = rest
            var portText: Substring?
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else {
                    throw fail("an IPv6 address needs its closing bracket, as in [::1]:10110")
                }
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { throw fail("after [address] comes :port") }
                    portText = after.dropFirst()
                }
            } else if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            }
            guard let portText else {
                guard let port = defaultPort else { throw fail("a port is needed, as in host:10110") }
                return (host.isEmpty ? nil : String(host), port)
            }
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw fail("the port must be a number from 1 to 65535")
            }
            return (host.isEmpty ? nil : String(host), port)
        }
        if body == "-" {
            try only(["speed"], for: "standard input")
            self = .standardInput(speed: try speed())
        } else if body.hasPrefix("file:") {
            try only(["speed", "key"], for: "file:")
            var path = body.dropFirst(5)
            if path.hasPrefix("//") { path = path.dropFirst(2) }
            guard !path.isEmpty else { throw fail("the file's path is missing") }
            if let key = query["key"] {
                self = .journal(path: String(path), key: key, speed: try speed())
            } else {
                self = .file(path: String(path), speed: try speed())
            }
        } else if body.hasPrefix("serial:") {
            try only(["baud"], for: "serial:")
            var path = body.dropFirst(7)
            if path.hasPrefix("//") { path = path.dropFirst(2) }
            guard path.hasPrefix("/") else {
                throw fail("the device must be an absolute path like /dev/ttyUSB0")
            }
            var baud: Int?
            if let value = query["baud"] {
                guard let rate = Int(value), rate > 0 else {
                    throw fail("baud must be a number such as 9600")
                }
                baud = rate
            }
            self = .serial(path: String(path), baud: baud)
        } else if body == "gpsd+shm:" || body == "gpsd+shm://" {
            try only([], for: "gpsd+shm:")
            self = .gpsdSharedMemory
        } else if body.hasPrefix("gpsd://") || body.hasPrefix("gpsd+libgps://") {
            let viaLibGPS = body.hasPrefix("gpsd+libgps://")
            try only([], for: viaLibGPS ? "gpsd+libgps://" : "gpsd://")
            var rest = body.dropFirst(viaLibGPS ? 14 : 7)
            var device: String?
            if let slash = rest.firstIndex(of: "/") {
                if rest[slash...].count > 1 { device = String(rest[slash...]) }
                rest = rest[..<slash]
            }
            let (host, port) = try hostPort(rest, defaultPort: 2947)
            self =
                viaLibGPS
                ? .libgps(host: host ?? "localhost", port: port, device: device)
                : .gpsd(host: host ?? "localhost", port: port, device: device)
        } else if body.hasPrefix("tcp://") {
            try only([], for: "tcp://")
            let (host, port) = try hostPort(body.dropFirst(6), defaultPort: nil)
            self = .tcp(host: host ?? "localhost", port: port)
        } else if body.hasPrefix("udp://") {
            try only([], for: "udp://")
            let (address, port) = try hostPort(body.dropFirst(6), defaultPort: nil)
            self = .udp(address: address, port: port)
        } else if body.hasPrefix("/dev/") {
            throw fail("a device is a receiver, named serial:\(body)")
        } else if body.hasPrefix("/") || body.hasPrefix("./") || body.hasPrefix("../") || !body.contains(":")
        {
            throw fail("a log is named with file: in front, as file:\(body)")
        } else {
            throw fail("unknown kind of source")
        }
    }

    /// Opens the source, or explains why it cannot be opened here. A serial receiver is read by
    /// `host` when one is given and its fixes are wanted at once; a track journal by `journals`
    /// (the journal's module, which holds its cryptography), when the program reads journals.
    public func open(host: (any ReceiverHost)? = nil, journals: (any JournalOpening)? = nil)
        throws(SourceError)
        -> any FixSource
    {
        switch self {
        case .file(let path, let speed):
            guard access(path, R_OK) == 0 else {
                throw SourceError("\(path): \(errnoDescription(errno)); check the path given after file:")
            }
            return ReplaySource(path: path, speed: speed)
        case .journal(let path, let keyPath, let speed):
            guard let journals else {
                throw SourceError(
                    "file:\(path)?key=\(keyPath): this program was built without the track journal, which "
                        + "reads it; replay it with `gpsloc watch --source 'file:\(path)?key=\(keyPath)'` from a "
                        + "gpsloc built with its default traits (swift build --product gpsloc)")
            }
            return try journals.open(path, keyPath: keyPath, speed: speed)
        case .standardInput(let speed):
            return ReplaySource(path: "-", speed: speed)
        case .serial(let path, let baud):
            if let baud, SerialPort.speed(baud) == nil {
                throw SourceError(
                    "serial:\(path): \(baud) is not a standard rate; use one of "
                        + SerialPort.detectionOrder.sorted().map(String.init).joined(separator: ", ")
                        + ", or leave baud out to detect it")
            }
            return SerialSource(path: path, baud: baud, host: host)
        case .tcp(let host, let port):
            return TCPSource(host: host, port: port)
        case .udp(let address, let port):
            return UDPSource(address: address, port: port)
        case .gpsd(let host, let port, let device):
            return GPSDSource(host: host, port: port, device: device)
        case .libgps(let host, let port, let device):
            #if LibGPS
                return LibGPSSource(.socket(host: host, port: port, device: device))
            #else
                throw SourceError(
                    "gpsd+libgps://\(host):\(port): this build has no libgps; use gpsd://\(host):\(port) (the same "
                        + "fixes over gpsd's JSON protocol) or build with --enable-all-traits (needs libgps-dev)"
                )
            #endif
        case .gpsdSharedMemory:
            #if LibGPS
                return LibGPSSource(.sharedMemory)
            #else
                throw SourceError(
                    "gpsd+shm: this build has no libgps; use gpsd://localhost:2947 or build with "
                        + "--enable-all-traits (needs libgps-dev)")
            #endif
        }
    }
}

/// Opens a track journal recorded with NMEA as a replay of its sentences: what the journal's
/// module gives ``SourceAddress/open(host:journals:)`` (this module knows no cryptography).
public protocol JournalOpening: Sendable {
    /// The journal at `path`, opened with the private key at `keyPath` and replayed at `speed`.
    func open(_ path: String, keyPath: String, speed: ReplaySpeed) throws(SourceError) -> any FixSource
}
