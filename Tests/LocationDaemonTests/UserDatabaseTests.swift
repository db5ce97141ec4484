// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import DescriptorIO
import Foundation
import Testing

/// The user database as the daemon, its tools and its tests read it: each answer the one asked
/// for, however many threads ask at once (getpwnam's shared buffer let one suite's user read as
/// another's).
@Suite("the user database, read from many threads at once")
struct UserDatabaseTests {
    @Test("users and groups looked up from 8 threads at once are each the one asked for")
    func concurrentLookups() async throws {
        let root = try #require(UserDatabase.user(named: "root"))
        #expect(root.uid == 0 && root.gid == 0 && root.home == "/root")
        let nobody = try #require(UserDatabase.user(named: "nobody"))
        #expect(nobody.uid != 0)
        #expect(UserDatabase.user(uid: nobody.uid)?.name == "nobody")
        #expect(UserDatabase.groupID(named: "root") == 0)
        #expect(UserDatabase.user(named: "no-such-user-of-this-machine") == nil)
        #expect(UserDatabase.groupID(named: "no-such-group-of-this-machine") == nil)

        let wrong = await withTaskGroup(of: Int.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<2000 {
                        let (name, uid) = (thread + round) % 2 == 0 ? ("root", 0) : ("nobody", nobody.uid)
                        if UserDatabase.user(named: name)?.uid != uid { wrong += 1 }
                        if UserDatabase.user(uid: uid)?.name != name { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0, "\(wrong) of 32000 answers were another user's")
    }
}
