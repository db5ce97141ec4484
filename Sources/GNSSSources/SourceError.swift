import SystemPackage

/// Why a log could not be read; `errno` is the system's error when one caused it.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public var errno: Errno?

    public init(_ description: String, errno: Errno? = nil) {
        self.description = description
        self.errno = errno
    }
}
