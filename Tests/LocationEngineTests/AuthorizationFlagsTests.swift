// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS
import Testing

@testable import LocationEngine

/// The authorization flags are held as one bit each, and what a subscriber is told as one
/// integer with them: each flag must read back as it was set, whatever the others are, and
/// nothing told may lose or change one.
@Suite("Authorization flags as bits")
struct AuthorizationFlagsTests {
    static var all: [(name: String, path: WritableKeyPath<AuthorizationFlags, Bool>)] {
        [
            ("authorizationDenied", \.authorizationDenied),
            ("authorizationDeniedGlobally", \.authorizationDeniedGlobally),
            ("authorizationRestricted", \.authorizationRestricted),
            ("authorizationRequestInProgress", \.authorizationRequestInProgress),
            ("insufficientlyInUse", \.insufficientlyInUse),
            ("serviceSessionRequired", \.serviceSessionRequired),
            ("fullAccuracyDenied", \.fullAccuracyDenied),
            ("alwaysAuthorizationDenied", \.alwaysAuthorizationDenied),
            ("accuracyLimited", \.accuracyLimited),
        ]
    }

    @Test("each flag is set and cleared alone, and what a subscriber is told keeps them all")
    func eachFlagAlone() {
        var generator = SeededGenerator(seed: 23)
        for _ in 0..<2_000 {
            var flags = AuthorizationFlags()
            var expected = Self.all.map { _ in Bool.random(using: &generator) }
            for (index, flag) in Self.all.enumerated() { flags[keyPath: flag.path] = expected[index] }
            // One flag changed again, to either value, over the others.
            let index = Int.random(in: 0..<Self.all.count, using: &generator)
            expected[index] = Bool.random(using: &generator)
            flags[keyPath: Self.all[index].path] = expected[index]
            #expect(Self.all.map { flags[keyPath: $0.path] } == expected)
            // By name, as they cross the daemon's socket: the names of those set, and back.
            #expect(flags.setNames == Self.all.indices.filter { expected[$0] }.map { Self.all[$0].name })
            #expect(AuthorizationFlags(named: flags.setNames + ["aFlagOfANewerDaemon"]) == flags)

            var same = AuthorizationFlags()
            for (index, flag) in Self.all.enumerated() { same[keyPath: flag.path] = expected[index] }
            #expect(same == flags && same.hashValue == flags.hashValue)

            let (located, stationary, unavailable) = (
                Bool.random(using: &generator), Bool.random(using: &generator), Bool.random(using: &generator)
            )
            let told = Told(flags: flags, located: located, stationary: stationary, unavailable: unavailable)
            #expect(told.flags == flags)
            #expect(
                told.located == located && told.stationary == stationary && told.unavailable == unavailable)
            let update = told.update(nil)
            #expect(update.flags == flags && update.isStationary == stationary)
            #expect(update.locationUnavailable == unavailable && update.location == nil)
        }
    }

    @Test("two verdicts are equal only when their flags and states are")
    func toldEquality() {
        var flags = AuthorizationFlags()
        flags.accuracyLimited = true
        let told = Told(flags: flags, located: true)
        #expect(told == Told(flags: flags, located: true))
        #expect(told != Told(flags: flags, located: true, stationary: true))
        #expect(told != Told(flags: AuthorizationFlags(), located: true))
        for flag in Self.all {
            var other = flags
            other[keyPath: flag.path].toggle()
            #expect(Told(flags: other, located: true) != told, "\(flag.name)")
        }
    }

    @Test("printed by the names of the flags that are set")
    func printed() {
        var flags = AuthorizationFlags()
        #expect(String(reflecting: flags) == "AuthorizationFlags()")
        flags.insufficientlyInUse = true
        flags.accuracyLimited = true
        #expect(
            String(reflecting: flags)
                == "AuthorizationFlags(insufficientlyInUse: true, accuracyLimited: true)")
    }
}
