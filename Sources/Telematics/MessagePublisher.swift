// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Where the uplink's messages go: a broker's client that delivers each message at least once
/// and says when the broker has it (``MQTTPublisher`` with the `MQTT` trait, or a program's own).
public protocol MessagePublisher: AnyObject, Sendable {
    /// Publishes `payload` on `topic`; its message id, or `nil` when it was not taken (not
    /// connected), to be offered again once connected.
    func publish(topic: String, payload: [UInt8]) -> Int32?
    /// Disconnects; nothing is published after.
    func stop()
}

/// What happens on a publisher's connection, told to whoever made it.
public enum PublisherEvent: Sendable {
    case connected
    /// The broker refused the connection (bad credentials, a client id not allowed): its reason.
    case refused(String)
    case disconnected(String)
    /// The broker has the message with that id.
    case acknowledged(Int32)
}
