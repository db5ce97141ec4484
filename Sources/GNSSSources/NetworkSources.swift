// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import GNSS
import Logging
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// NMEA from a TCP server, such as a marine multiplexer or a receiver's network port:
/// `tcp://host:port`. Each run connects (giving up after ``connectTimeout``) and reads until the
/// server closes the connection or it fails, which is reported by throwing ``DisconnectError``;
/// the location service then reconnects with backoff.
public struct TCPSource: ConnectingFixSource {
    public let host: String
    public let port: Int
    public let connectTimeout: Duration
    private let logger: Logger
    public var origin: FixOrigin { .receiver }
    public var name: String { "tcp://\(host):\(port)" }

    public init(
        host: String, port: Int, connectTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "OpenCoreLocation.tcp")
    ) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.logger = logger
    }

    public func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws {
        let socket = try await Socket.connect(host: host, port: port, timeout: connectTimeout, name: name)
        let reader = try DescriptorReader(descriptor: socket, name: name)
        logger.debug("\(name): connected")
        connected(name)
        let (logger, name) = (logger, name)
        let decoder = StreamDecoder { bytes, rejected in
            logger.warning(
                "\(name): \(bytes) bytes and not one NMEA sentence (\(rejected) rejected): is this port NMEA?"
            )
        }
        try await reader.run({ decoder.decode($0) }, delivery: delivery)
    }
}

/// NMEA sent over UDP, one or more sentences per datagram. `udp://:port` listens on the loopback
/// interface only: NMEA over UDP carries no authentication, so any host that can reach the port
/// can inject positions. Name an address to listen on a network (`udp://0.0.0.0:port` for every
/// IPv4 interface, `udp://[::]:port` for every interface, or one interface's address).
public struct UDPSource: ConnectingFixSource {
    /// The address to listen on; `nil` for loopback.
    public let address: String?
    public let port: Int
    private let logger: Logger
    public var origin: FixOrigin { .receiver }
    public var name: String {
        guard let address else { return "udp://:\(port)" }
        return address.contains(":") ? "udp://[\(address)]:\(port)" : "udp://\(address):\(port)"
    }

    public init(address: String? = nil, port: Int, logger: Logger = Logger(label: "OpenCoreLocation.udp")) {
        self.address = address
        self.port = port
        self.logger = logger
    }

    public func run(_ delivery: FixDelivery, connected: @escaping @Sendable (String) -> Void) async throws {
        let socket = try Socket.listenUDP(address: address, port: port, name: name)
        let reader = try DescriptorReader(descriptor: socket, name: name, datagrams: true)
        logger.debug("\(name): listening")
        connected("\(name) listening")
        let (logger, name) = (logger, name)
        let decoder = StreamDecoder { bytes, rejected in
            logger.warning(
                "\(name): \(bytes) bytes and not one NMEA sentence (\(rejected) rejected): is this port NMEA?"
            )
        }
        try await reader.run({ decoder.decode($0) }, delivery: delivery)
    }
}

/// Sockets, with errors that say what to check.
enum Socket {
    /// A connected TCP socket to `host:port`, trying every address the name resolves to.
    static func connect(host: String, port: Int, timeout: Duration, name: String)
        async throws(DisconnectError) -> FileDescriptor
    {
        // A day at most: a caller's `.seconds(Int64.max)` means "wait long", not a trap converting
        // it to poll's milliseconds.
        let milliseconds = Int32(max(0, min(timeout.components.seconds, 86_400)) * 1000)
        return try await onThread(named: "tcp connect") { () throws(DisconnectError) -> FileDescriptor in
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = SocketType.stream
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw DisconnectError(
                    "\(name): cannot resolve \(host) (\(String(cString: gai_strerror(status))))",
                    hint: "check the host name")
            }
            defer { freeaddrinfo(list) }
            var last = DisconnectError("\(name): cannot connect", hint: "the name has no address")
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let info = entry {
                entry = info.pointee.ai_next
                let raw = closeOnExecSocket(
                    domain: info.pointee.ai_family, type: SocketType.stream, nonBlocking: true)
                guard raw >= 0 else {
                    last = DisconnectError("\(name): cannot create a socket", errno: Errno(rawValue: errno))
                    continue
                }
                let descriptor = FileDescriptor(rawValue: raw)
                if let failure = connect(descriptor, to: info.pointee, within: milliseconds) {
                    try? descriptor.close()
                    last = DisconnectError(
                        "\(name): cannot connect", errno: failure, hint: "is the server running?")
                    continue
                }
                return descriptor
            }
            throw last
        }
    }

    /// Connects a non-blocking socket, waiting up to `milliseconds`; returns what failed, or `nil`.
    private static func connect(_ descriptor: FileDescriptor, to info: addrinfo, within milliseconds: Int32)
        -> Errno?
    {
        if Glibc.connect(descriptor.rawValue, info.ai_addr, info.ai_addrlen) == 0 { return nil }
        guard errno == EINPROGRESS else { return Errno(rawValue: errno) }
        var pending = pollfd(fd: descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&pending, 1, milliseconds)
        guard ready > 0 else { return ready == 0 ? .timedOut : Errno(rawValue: errno) }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor.rawValue, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
            return Errno(rawValue: errno)
        }
        return code == 0 ? nil : Errno(rawValue: code)
    }

    /// A UDP socket bound to `port` at `address` (a name or a numeric address), or on the
    /// IPv4 loopback interface without one.
    static func listenUDP(address: String?, port: Int, name: String) throws(DisconnectError) -> FileDescriptor
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketType.datagram
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address ?? "127.0.0.1", String(port), &hints, &list)
        guard status == 0, let info = list?.pointee else {
            throw DisconnectError(
                "\(name): cannot resolve \(address ?? "127.0.0.1") (\(String(cString: gai_strerror(status))))",
                hint: "name an address of this machine, 0.0.0.0 or [::]")
        }
        defer { freeaddrinfo(list) }
        let raw = closeOnExecSocket(domain: info.ai_family, type: SocketType.datagram)
        guard raw >= 0 else {
            throw DisconnectError("\(name): cannot create a socket", errno: Errno(rawValue: errno))
        }
        let descriptor = FileDescriptor(rawValue: raw)
        var no: Int32 = 0
        var yes: Int32 = 1
        if info.ai_family == AF_INET6 {
            // [::] takes IPv4 datagrams too.
            _ = setsockopt(raw, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &no, socklen_t(MemoryLayout<Int32>.size))
        }
        _ = setsockopt(raw, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(raw, info.ai_addr, info.ai_addrlen) == 0 else {
            let code = Errno(rawValue: errno)
            try? descriptor.close()
            let hint: String? =
                switch code {
                case .addressInUse: "another program listens there"
                case .addressNotAvailable: "that address is not one of this machine's"
                default: nil
                }
            throw DisconnectError("\(name): cannot listen on port \(port)", errno: code, hint: hint)
        }
        return descriptor
    }
}
