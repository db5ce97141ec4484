// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// One of the daemon's front-ends once started: it serves until the task that runs it is
/// cancelled, then takes no new client. gpslocd holds the ones it started in a list and runs
/// each in a task of its own.
public protocol FrontEnd: Sendable {
    /// How the log names it.
    var name: String { get }
    /// Serves until cancelled.
    func run() async
}

/// The front-ends that listen on sockets, made for one daemon: its own socket (the native
/// protocol, and gpsd's for a connection whose first byte is `?`) and gpsd's TCP port, each
/// bound where gpslocd was told, or passed by systemd.
public struct SocketFrontEnds: Sendable {
    private let server: DaemonServer
    /// gpsd's protocol, one value for every listener that speaks it: its precise watchers share
    /// the reports it writes once per fix.
    private let gpsd = GPSDProtocol()

    public init(server: DaemonServer) {
        self.server = server
    }

    private var socketProtocols: [any ConnectionProtocol] { [NativeProtocol(), gpsd] }

    /// The daemon's own socket at `path`.
    public func listen(at path: String) throws -> ListeningFrontEnd {
        ListeningFrontEnd(
            name: "socket \(path)", listener: try server.listen(at: path, speaking: socketProtocols))
    }

    /// The daemon's own socket, passed by systemd.
    public func adopt(descriptor: CInt) throws -> ListeningFrontEnd {
        ListeningFrontEnd(
            name: "socket passed by systemd",
            listener: try server.adopt(descriptor: descriptor, speaking: socketProtocols))
    }

    /// gpsd's protocol on TCP at `host` and `port` (gpsd's is 2947).
    public func listenGPSD(host: String, port: Int) throws -> ListeningFrontEnd {
        let fix =
            "is gpsd running there? stop it (systemctl stop gpsd.socket gpsd), or pass another --gpsd-listen"
        let listener = try server.listen(host: host, port: port, speaking: [gpsd], fix: fix)
        return ListeningFrontEnd(name: "gpsd \(host):\(port)", listener: listener)
    }

    /// gpsd's protocol on a TCP socket systemd passed (`FileDescriptorName=gpsd`).
    public func adoptGPSD(descriptor: CInt) throws -> ListeningFrontEnd {
        ListeningFrontEnd(
            name: "gpsd socket passed by systemd",
            listener: try server.adopt(descriptor: descriptor, speaking: [gpsd]))
    }
}

/// A listening socket as a front-end: it accepts until cancelled, then closes (the connections
/// it made stay until the daemon lets them go).
public struct ListeningFrontEnd: FrontEnd {
    public let name: String
    let listener: Listener

    public func run() async {
        // The listener's own thread accepts; this task only waits for the end (a sleep cut short
        // by cancellation, woken once an hour at most).
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        listener.close()
    }
}
