// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension SourceAddress {
    /// The physical receiver behind the address, whatever it is called: a device or a file by its
    /// real path (a `/dev/serial/by-id` link, `./` and `../` resolved), the same device through
    /// gpsd on this machine as directly, a network source by its host and port. Two addresses
    /// with the same identity read the same receiver.
    public var deviceIdentity: String {
        switch self {
        case .file(let path, _): "file:" + Self.realPath(path)
        case .journal(let path, _, _): "journal:" + Self.realPath(path)
        case .standardInput: "stdin"
        case .serial(let path, _): "device:" + Self.realPath(path)
        case .gpsd(let host, let port, let device), .libgps(let host, let port, let device):
            if let device, Self.isLoopback(host) {
                "device:" + Self.realPath(device)
            } else {
                "gpsd:\(host.lowercased()):\(port)" + (device.map { "/" + $0 } ?? "")
            }
        case .gpsdSharedMemory: "gpsd-shm"
        case .tcp(let host, let port): "tcp:\(host.lowercased()):\(port)"
        case .udp(let address, let port): "udp:\(address?.lowercased() ?? "*"):\(port)"
        }
    }

    /// The path with every link, `.` and `..` resolved; as given when it cannot be resolved (a
    /// device not plugged in yet).
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered == "[::1]" || lowered.hasPrefix("127.")
    }
}
