// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if MQTT
    import CMosquitto
    import DescriptorIO
    import FoundationEssentials
    import Locking

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// An MQTT client for one broker through libmosquitto, in a thread of its own: a persistent
    /// session (clean session off, a fixed client id), QoS 1, TLS and a username and password or a
    /// client certificate when given, and reconnection (1 s, doubling to 10 s: a broker back after
    /// a long outage is reached within 10 s, for a connection attempt every 10 s while it is
    /// away). What happens on the connection reaches `events` on that thread — a broker that
    /// cannot be reached too, with why (refused, no route, a TLS handshake that failed), each
    /// time the reason changes: libmosquitto's own thread tells no callback of those, so the
    /// thread is this client's, where each attempt's result is read.
    public final class MQTTPublisher: MessagePublisher, @unchecked Sendable {
        /// The broker and how to log in to it.
        public struct Settings: Sendable {
            public var host: String
            public var port: Int32
            public var clientID: String
            public var username: String?
            public var password: String?
            /// TLS: the CA that signed the broker's certificate, and this client's own, if any.
            public var caFile: String?
            public var certificateFile: String?
            public var keyFile: String?
            public var keepAlive: Int32 = 30

            public init(
                host: String, port: Int32, clientID: String, username: String? = nil, password: String? = nil,
                caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil
            ) {
                self.host = host
                self.port = port
                self.clientID = clientID
                self.username = username
                self.password = password
                self.caFile = caFile
                self.certificateFile = certificateFile
                self.keyFile = keyFile
            }

            /// `mqtt://HOST[:PORT]` (1883) or `mqtts://HOST[:PORT]` (8883, TLS): its host, port and
            /// whether it is TLS; `nil` for anything else.
            public static func endpoint(_ url: String) -> (host: String, port: Int32, tls: Bool)? {
                let tls = url.hasPrefix("mqtts://")
                guard tls || url.hasPrefix("mqtt://") else { return nil }
                let rest = url.drop { $0 != "/" }.dropFirst(2)
                let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
                guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
                let port = parts.count == 2 ? Int32(parts[1]) : (tls ? 8883 : 1883)
                guard let port, port > 0, port < 65536 else { return nil }
                return (String(host), port, tls)
            }
        }

        private let handle: OpaquePointer
        private let events: @Sendable (PublisherEvent) -> Void
        private let address: String
        /// Set by ``stop()``; `finished` once the network thread has let the handle go.
        /// `connected` is set when the broker accepted the connection, for the thread to start its
        /// next wait at 1 s and say the next failure again.
        /// `told` when libmosquitto's disconnect callback said the loss already.
        private let loop = Mutex((stopping: false, finished: false, connected: false, told: false))

        private static let initialized: Void = { mosquitto_lib_init() }()

        /// Connects to the broker (in the background: a broker not there yet is tried again) and
        /// tells `events` what happens, on libmosquitto's thread.
        public init(_ settings: Settings, events: @escaping @Sendable (PublisherEvent) -> Void)
            throws(MQTTError)
        {
            _ = Self.initialized
            self.events = events
            address = "\(settings.host):\(settings.port)"
            guard let handle = mosquitto_new(settings.clientID, false, nil) else {
                throw MQTTError("libmosquitto could not make a client (client id '\(settings.clientID)')")
            }
            self.handle = handle
            mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
            mosquitto_reconnect_delay_set(handle, 1, 10, true)
            mosquitto_max_inflight_messages_set(handle, 100)
            if let username = settings.username {
                try Self.check(
                    mosquitto_username_pw_set(handle, username, settings.password), "username and password")
            }
            if settings.caFile != nil || settings.certificateFile != nil {
                try Self.check(
                    mosquitto_tls_set(
                        handle, settings.caFile, nil, settings.certificateFile, settings.keyFile, nil),
                    "TLS (--cafile, --cert, --cert-key)")
            }
            mosquitto_connect_callback_set(handle) { _, context, code in
                let publisher = Unmanaged<MQTTPublisher>.fromOpaque(context!).takeUnretainedValue()
                if code == 0 {
                    publisher.loop.withLock { $0.connected = true }
                    publisher.events(.connected)
                } else {
                    publisher.events(.refused(String(cString: mosquitto_connack_string(code))))
                }
            }
            mosquitto_disconnect_callback_set(handle) { _, context, code in
                let publisher = Unmanaged<MQTTPublisher>.fromOpaque(context!).takeUnretainedValue()
                publisher.loop.withLock { $0.told = true }
                publisher.events(
                    .disconnected(code == 0 ? "disconnected" : String(cString: mosquitto_strerror(code))))
            }
            mosquitto_publish_callback_set(handle) { _, context, mid in
                let publisher = Unmanaged<MQTTPublisher>.fromOpaque(context!).takeUnretainedValue()
                publisher.events(.acknowledged(mid))
            }
            // A broker not there yet is tried again by the loop: only a bad address fails here.
            let code = mosquitto_connect_async(handle, settings.host, settings.port, settings.keepAlive)
            let error = errno
            if code != MOSQ_ERR_SUCCESS.rawValue && code != MOSQ_ERR_ERRNO.rawValue {
                throw MQTTError(
                    "cannot connect to \(settings.host):\(settings.port): \(String(cString: mosquitto_strerror(code)))"
                )
            }
            let first = (code, error)
            detachThread(named: "mqtt") { [self] in run(first: first) }
        }

        /// The network thread: reads and writes the connection, and after a failed attempt or a
        /// lost connection waits (1 s, doubling to 10 s) and tries again, saying why it failed
        /// whenever the reason is new.
        private func run(first: (code: Int32, errno: Int32)) {
            var (code, error) = first
            var backoff = 1
            var said: String?
            while !loop.withLock({ $0.stopping }) {
                if code == MOSQ_ERR_SUCCESS.rawValue {
                    code = mosquitto_loop(handle, 1000, 1)
                    error = errno
                    if code == MOSQ_ERR_SUCCESS.rawValue {
                        if takeFlag(\.connected) {
                            backoff = 1
                            said = nil
                        }
                        continue
                    }
                }
                if loop.withLock({ $0.stopping }) { break }
                let reason = Self.reason(code, errno: error)
                if takeFlag(\.told) {
                    said = ""  // the callback said it; the next attempt's reason is news
                } else if reason != said {
                    said = reason
                    events(.disconnected("cannot reach \(address): \(reason)"))
                }
                for _ in 0..<(backoff * 10) where !loop.withLock({ $0.stopping }) { usleep(100_000) }
                backoff = min(backoff * 2, 10)
                code = mosquitto_reconnect_async(handle)
                error = errno
            }
            loop.withLock { $0.finished = true }
        }

        /// Reads one of the loop's flags and clears it.
        private func takeFlag(
            _ flag: WritableKeyPath<(stopping: Bool, finished: Bool, connected: Bool, told: Bool), Bool>
        ) -> Bool {
            loop.withLock { state in
                defer { state[keyPath: flag] = false }
                return state[keyPath: flag]
            }
        }

        /// libmosquitto's code in words, with the system's reason when the code is only "see errno".
        private static func reason(_ code: Int32, errno error: Int32) -> String {
            if code == MOSQ_ERR_ERRNO.rawValue || (code == MOSQ_ERR_CONN_LOST.rawValue && error != 0) {
                return String(cString: strerror(error))
            }
            return String(cString: mosquitto_strerror(code))
        }

        /// Publishes `payload` on `topic` with QoS 1; its message id, or `nil` when it was not
        /// taken (not connected).
        public func publish(topic: String, payload: [UInt8]) -> Int32? {
            var mid: Int32 = 0
            let code = payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, 1, false)
            }
            return code == MOSQ_ERR_SUCCESS.rawValue ? mid : nil
        }

        /// Disconnects and stops the network thread (within the second its wait for the socket
        /// takes), then lets the handle go.
        public func stop() {
            loop.withLock { $0.stopping = true }
            mosquitto_disconnect(handle)
            while !loop.withLock({ $0.finished }) { usleep(10_000) }
            mosquitto_destroy(handle)
        }

        private static func check(_ code: Int32, _ what: String) throws(MQTTError) {
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTError("\(what): \(String(cString: mosquitto_strerror(code)))")
            }
        }
    }

    /// Why libmosquitto could not do what was asked.
    public struct MQTTError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
#endif
