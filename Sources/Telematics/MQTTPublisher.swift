// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if MQTT
    import CMosquitto
    import FoundationEssentials

    /// An MQTT client for one broker through libmosquitto, in a thread of libmosquitto's own:
    /// a persistent session (clean session off, a fixed client id), QoS 1, TLS and a username
    /// and password or a client certificate when given, and reconnection by itself (1 s, doubling
    /// to 10 s: a broker back after a long outage is reached within 10 s, for a connection
    /// attempt every 10 s while it is away). What happens on the connection reaches `events` on
    /// libmosquitto's thread.
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

        private static let initialized: Void = { mosquitto_lib_init() }()

        /// Connects to the broker (in the background: a broker not there yet is tried again) and
        /// tells `events` what happens, on libmosquitto's thread.
        public init(_ settings: Settings, events: @escaping @Sendable (PublisherEvent) -> Void)
            throws(MQTTError)
        {
            _ = Self.initialized
            self.events = events
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
                    publisher.events(.connected)
                } else {
                    publisher.events(.refused(String(cString: mosquitto_connack_string(code))))
                }
            }
            mosquitto_disconnect_callback_set(handle) { _, context, code in
                let publisher = Unmanaged<MQTTPublisher>.fromOpaque(context!).takeUnretainedValue()
                publisher.events(
                    .disconnected(code == 0 ? "disconnected" : String(cString: mosquitto_strerror(code))))
            }
            mosquitto_publish_callback_set(handle) { _, context, mid in
                let publisher = Unmanaged<MQTTPublisher>.fromOpaque(context!).takeUnretainedValue()
                publisher.events(.acknowledged(mid))
            }
            // A broker not there yet is tried again by the loop: only a bad address fails here.
            let code = mosquitto_connect_async(handle, settings.host, settings.port, settings.keepAlive)
            if code != MOSQ_ERR_SUCCESS.rawValue && code != MOSQ_ERR_ERRNO.rawValue {
                throw MQTTError(
                    "cannot connect to \(settings.host):\(settings.port): \(String(cString: mosquitto_strerror(code)))"
                )
            }
            try Self.check(mosquitto_loop_start(handle), "starting libmosquitto's network thread")
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

        /// Disconnects and stops the network thread.
        public func stop() {
            mosquitto_disconnect(handle)
            mosquitto_loop_stop(handle, false)
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
