// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The password and group databases, read with the reentrant calls only: `getpwnam`, `getpwuid`
/// and `getgrnam` answer in one buffer shared by every thread of the process, so that a lookup of
/// one user read while another thread looks up another can return the other's uid. Each answer
/// here is copied out of a buffer of its own before it is returned.
public enum UserDatabase {
    /// A user's entry, as far as the programs here need it.
    public struct User: Sendable, Equatable {
        public var name: String
        public var uid: UInt32
        public var gid: UInt32
        public var home: String
    }

    /// The user named `name`, or `nil` when there is none (or the database cannot be read).
    public static func user(named name: String) -> User? {
        lookUpUser { entry, buffer, size, result in getpwnam_r(name, entry, buffer, size, result) }
    }

    /// The user whose uid is `uid`, or `nil` when there is none.
    public static func user(uid: UInt32) -> User? {
        lookUpUser { entry, buffer, size, result in getpwuid_r(uid, entry, buffer, size, result) }
    }

    /// The gid of the group named `name`, or `nil` when there is none.
    public static func groupID(named name: String) -> UInt32? {
        var entry = group()
        var found: UnsafeMutablePointer<group>?
        return withBuffer { buffer, size in
            let status = getgrnam_r(name, &entry, buffer, size, &found)
            return (status, found.map { $0.pointee.gr_gid })
        }
    }

    private static func lookUpUser(
        _ call: (
            UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int,
            UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>
        ) -> CInt
    ) -> User? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        return withBuffer { buffer, size in
            let status = call(&entry, buffer, size, &found)
            let user = found.map { entry in
                User(
                    name: String(cString: entry.pointee.pw_name), uid: entry.pointee.pw_uid,
                    gid: entry.pointee.pw_gid,
                    home: entry.pointee.pw_dir.map { String(cString: $0) } ?? "/")
            }
            return (status, user)
        }
    }

    /// Runs `body` with a buffer for the strings of an entry, a larger one while it says `ERANGE`
    /// (a group of many members outgrows any first guess), up to 1 MiB.
    private static func withBuffer<Value>(
        _ body: (UnsafeMutablePointer<CChar>, Int) -> (CInt, Value?)
    ) -> Value? {
        var size = 4096
        while size <= 1 << 20 {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let (status, value) = body(buffer, size)
            if status == ERANGE {
                size *= 4
                continue
            }
            return status == 0 ? value : nil
        }
        return nil
    }
}
