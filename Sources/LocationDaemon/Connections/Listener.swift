// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux
import DescriptorIO
import NIOCore
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A listening socket whose connections the daemon accepts itself, on a thread of its own, and
/// hands to SwiftNIO as connected sockets: so the daemon knows each connection's descriptor and
/// writes its updates there directly (``ConnectionOutput``), where SwiftNIO's accepted channels
/// keep theirs to themselves.
///
/// Accepting is rare beside what the connections do, so one blocking thread per socket is cheap.
/// A process out of descriptors (`EMFILE`, `ENFILE`) or the kernel out of memory for a socket
/// leaves the connection waiting in the backlog: the thread says so once and tries again in a
/// tenth of a second, so that it neither spins nor stops.
public final class Listener: Sendable {
    /// A socket file the daemon bound, known by its device and inode: removed when the daemon
    /// stops listening, unless another socket has taken its path by then.
    struct SocketFile: Sendable {
        let path: String
        let device: UInt64
        let inode: UInt64

        /// The socket file at `path` now; nil when there is none.
        init?(path: String) {
            guard let (device, inode) = Self.identity(of: path) else { return nil }
            self.path = path
            self.device = device
            self.inode = inode
        }

        private static func identity(of path: String) -> (UInt64, UInt64)? {
            var facts = stat()
            guard lstat(path, &facts) == 0, facts.st_mode & S_IFMT == S_IFSOCK else { return nil }
            return (UInt64(facts.st_dev), UInt64(facts.st_ino))
        }

        /// Removes the file if it is still the one bound.
        func remove() {
            guard let (device, inode) = Self.identity(of: path), device == self.device, inode == self.inode
            else { return }
            unlink(path)
        }
    }

    /// Stops the accepting thread, which then closes the listening socket.
    private let stopper: PollLoop
    private let bound: SocketFile?

    /// Listens on `descriptor`, a socket bound and listening already (made here, or passed by
    /// systemd), whose file is `bound` when the daemon made it. Each accepted connection's
    /// descriptor, non-blocking and closed on exec, goes to `accepted`, which owns it; `log`
    /// hears of trouble.
    init(
        descriptor: CInt, name: String, bound: SocketFile? = nil, log: @escaping @Sendable (String) -> Void,
        accepted: @escaping @Sendable (CInt) -> Void
    ) throws(Errno) {
        let stopper = try PollLoop()
        self.stopper = stopper
        self.bound = bound
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        detachThread(named: name) {
            Self.accept(on: descriptor, stopper: stopper, log: log, accepted: accepted)
            Glibc.close(descriptor)
            stopper.close()
        }
    }

    /// Stops accepting; the socket file the daemon made is removed, and the socket is closed at
    /// once by its thread. Connections made stay.
    public func close() {
        bound?.remove()
        stopper.stop()
    }

    private static func accept(
        on descriptor: CInt, stopper: PollLoop, log: @Sendable (String) -> Void,
        accepted: @Sendable (CInt) -> Void
    ) {
        let socket = FileDescriptor(rawValue: descriptor)
        var saidShort = false
        var short = false
        while true {
            // Short of descriptors, the waiting connection keeps the socket readable: pause first.
            if short, stopper.pause(until: .now + .milliseconds(100)) { return }
            short = false
            let readiness: PollLoop.Readiness
            do {
                readiness = try stopper.wait(for: socket)
            } catch {
                log("cannot wait for connections: \(error); no more are accepted")
                return
            }
            switch readiness {
            case .stopped: return
            case .hangUp:
                log("the listening socket failed; no more connections are accepted")
                return
            case .readable: break
            }
            while true {
                let connection = clinux_accept_nonblocking(descriptor)
                if connection >= 0 {
                    saidShort = false
                    accepted(connection)
                    continue
                }
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK: break
                case EINTR, ECONNABORTED, EPROTO, EPERM: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    if !saidShort {
                        saidShort = true
                        log(
                            "cannot accept a connection: \(String(cString: strerror(code))); "
                                + "it waits until a descriptor is free (raise LimitNOFILE, or find who holds them)"
                        )
                    }
                    short = true
                default:
                    log("cannot accept connections: \(String(cString: strerror(code))); no more are accepted")
                    return
                }
                break
            }
        }
    }
}
