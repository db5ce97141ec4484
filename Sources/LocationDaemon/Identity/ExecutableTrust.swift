// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether a registration by executable path proves anything about a client: it does only when
/// the client's user could not have put another program at that path. A file or a directory above
/// it that the user owns, may write through its group or everyone's bits, or that carries an
/// access control list, lets that user replace the program (a sticky directory such as `/tmp`
/// lets a user replace only the entries it owns).
public enum ExecutableTrust {
    /// Why `uid` (with `groups`) could replace the program at `path`, or `nil` when it could not.
    /// Root could replace anything, and is trusted whatever it runs.
    public static func replaceability(of path: String, uid: UInt32, groups: Set<UInt32>) -> String? {
        guard uid != 0 else { return nil }
        guard path.hasPrefix("/") else { return "\(path) is not an absolute path" }
        var current = path
        var below: stat?
        while true {
            var info = stat()
            guard lstat(current, &info) == 0 else { return "\(current) cannot be examined" }
            if let reason = writable(current, info, below: below, uid: uid, groups: groups) { return reason }
            if current == "/" { return nil }
            below = info
            current = parent(of: current)
        }
    }

    private static func writable(
        _ path: String, _ info: stat, below: stat?, uid: UInt32, groups: Set<UInt32>
    ) -> String? {
        let isDirectory = info.st_mode & S_IFMT == S_IFDIR
        let what = isDirectory ? "the directory \(path)" : path
        if info.st_uid == uid { return "\(what) belongs to uid \(uid)" }
        // A symbolic link's mode means nothing (every one reads rwxrwxrwx, and none can be
        // written): replacing it takes writing the directory it is in, which the walk checks. Where
        // it leads is the file's own path, which the caller checks too.
        if info.st_mode & S_IFMT == S_IFLNK { return nil }
        let sticky = isDirectory && info.st_mode & S_ISVTX != 0
        // In a sticky directory a user may replace only the entries it owns (checked one level down).
        if sticky, let below, below.st_uid != uid { return nil }
        if info.st_mode & S_IWOTH != 0 { return "everyone may write \(what)" }
        if info.st_mode & S_IWGRP != 0, groups.contains(info.st_gid) {
            return "\(what) is writable by group \(info.st_gid), which uid \(uid) is in"
        }
        if hasAccessList(path) {
            return "\(what) has an access control list that may let uid \(uid) write it"
        }
        return nil
    }

    /// Whether a POSIX access ACL is set beyond the mode bits.
    private static func hasAccessList(_ path: String) -> Bool {
        lgetxattr(path, "system.posix_acl_access", nil, 0) > 0
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Whether the file at `path` is the one the process runs (`/proc/<pid>/exe`): a program
    /// replaced since it started is not the registered one, whatever its path says.
    public static func isRunning(_ path: String, pid: Int32) -> Bool {
        var onDisk = stat()
        var running = stat()
        guard stat(path, &onDisk) == 0, stat("/proc/\(pid)/exe", &running) == 0 else { return false }
        return onDisk.st_dev == running.st_dev && onDisk.st_ino == running.st_ino
    }
}
