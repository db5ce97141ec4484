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
    final class MQTTPublisher: @unchecked Sendable {
        struct Settings {
            var host: String
            var port: Int32
            var clientID: String
            var username: String?
            var password: String?
            /// TLS: the CA that signed the broker's certificate, and this client's own, if any.
            var caFile: String?
            var certificateFile: String?
            var keyFile: String?
            var keepAlive: Int32 = 30
        }

        enum Event {
            case connected
            /// The broker refused the connection (bad credentials, a client id not allowed): its reason.
            case refused(String)
            case disconnected(String)
            /// The broker acknowledged the message `mid` (QoS 1's PUBACK).
            case acknowledged(Int32)
        }

        private let handle: OpaquePointer
        private let events: (Event) -> Void

        private static let initialized: Void = { mosquitto_lib_init() }()

        init(_ settings: Settings, events: @escaping (Event) -> Void) throws(MQTTError) {
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
        func publish(topic: String, payload: [UInt8]) -> Int32? {
            var mid: Int32 = 0
            let code = payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, 1, false)
            }
            return code == MOSQ_ERR_SUCCESS.rawValue ? mid : nil
        }

        /// Disconnects and stops the network thread.
        func stop() {
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

    struct MQTTError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
#endif
