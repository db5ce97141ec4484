// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine
import LocationWire
import Locking
import Testing

@testable import LocationDaemon

/// The access history and the ledger of who uses location now: periods begun by a delivery and
/// ended by the program's going or a refusal, written as they happen, intact after a cut-off
/// write, pruned and bounded by a clock the test sets.
@Suite("gpslocd: the access history and who uses location now")
struct AccessHistoryTests {
    /// A directory of the test's own, and a clock it sets.
    final class Scene: Sendable {
        let directory = NSTemporaryDirectory() + "ocl-history-\(UUID().uuidString.prefix(8))"
        private let clock = Mutex(Date(timeIntervalSince1970: 1_796_600_000))
        let logged = Mutex<[String]>([])

        var now: Date { clock.withLock { $0 } }
        func advance(_ seconds: Double) { clock.withLock { $0 = $0.addingTimeInterval(seconds) } }

        func history(bytesPerUser: Int = 1 << 20) -> AccessHistory {
            AccessHistory(
                directory: directory,
                limits: AccessHistory.Limits(retention: .seconds(7 * 86400), bytesPerUser: bytesPerUser),
                log: { [self] line in logged.withLock { $0.append(line) } })
        }

        func ledger(_ history: AccessHistory) -> ActivityLedger {
            ActivityLedger(history: history, now: { [self] in now })
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A user's history once everything recorded is written.
    func written(_ history: AccessHistory, uid: UInt32) -> AccessHistory.Read {
        history.flush()
        return history.read(uid: uid)
    }

    static let maps = ActivityLedger.Accessor(
        uid: 1000, app: "desktop:org.gnome.Maps",
        proof: "desktop entry /usr/share/applications/org.gnome.Maps.desktop",
        frontEnd: .geoclue)
    static let cgps = ActivityLedger.Accessor(
        uid: 1001, app: "/usr/bin/cgps", proof: "unregistered program at /usr/bin/cgps", frontEnd: .gpsd)

    static func located(precise: Bool) -> LocationUpdate {
        var flags = AuthorizationFlags()
        flags.accuracyLimited = !precise
        return LocationUpdate(
            location: Location(
                coordinate: Coordinate(latitude: 52.5, longitude: 13.4),
                horizontalAccuracy: precise ? 5 : 5000,
                timestamp: Date()),
            flags: flags)
    }

    @Test("a period begins with its first delivery, counts each one, and ends with the subscription")
    func period() throws {
        let scene = Scene()
        let history = scene.history()
        let ledger = scene.ledger(history)
        let period = ledger.period(for: Self.maps)
        #expect(ledger.programs(visibleTo: nil).isEmpty, "nothing delivered: nobody uses location")
        period.saw(LocationUpdate(location: nil, flags: AuthorizationFlags(), unavailable: true))
        #expect(ledger.programs(visibleTo: nil).isEmpty, "no fix is no use")
        for _ in 0..<5 {
            scene.advance(1)
            period.saw(Self.located(precise: true))
        }
        let open = ledger.programs(visibleTo: 1000)
        #expect(open.count == 1 && open.first?.precise == true && open.first?.app == Self.maps.app)
        #expect(ledger.isInUse)
        scene.advance(10)
        period.end()
        period.delivered(precise: true)
        #expect(!ledger.isInUse, "an ended period takes no more deliveries")
        let entries = written(history, uid: 1000).entries
        #expect(entries.map(\.kind) == [.begin, .end], "\(entries)")
        #expect(entries.last?.updates == 5)
        #expect(entries[1].time - entries[0].time == 14, "begun at the first delivery, ended at the end")
        #expect(entries.allSatisfy { $0.id == entries[0].id })
    }

    @Test(
        "a refusal ends the period, a change of accuracy begins another; watchers hear each in order, their own user's only"
    )
    func refusalsAndWatchers() throws {
        let scene = Scene()
        let history = scene.history()
        let ledger = scene.ledger(history)
        let heard = Mutex<[String]>([])
        let watcher = ledger.watch(uid: 1000) { entry in
            heard.withLock { $0.append("\(entry.kind) \(entry.app)") }
        }
        let everyone = Mutex<Int>(0)
        _ = ledger.watch(uid: nil) { _ in everyone.withLock { $0 += 1 } }
        let maps = ledger.period(for: Self.maps)
        let cgps = ledger.period(for: Self.cgps)
        maps.saw(Self.located(precise: true))
        cgps.saw(Self.located(precise: false))
        maps.saw(Self.located(precise: false))
        var notInUse = AuthorizationFlags()
        notInUse.insufficientlyInUse = true
        maps.saw(LocationUpdate(location: nil, flags: notInUse))
        maps.saw(LocationUpdate(location: nil, flags: notInUse))
        cgps.end()
        ledger.unwatch(watcher)
        maps.saw(Self.located(precise: false))
        maps.end()
        #expect(
            heard.withLock { $0 } == [
                "begin desktop:org.gnome.Maps", "end desktop:org.gnome.Maps", "begin desktop:org.gnome.Maps",
                "end desktop:org.gnome.Maps",
            ], "uid 1001's cgps is none of uid 1000's business")
        #expect(everyone.withLock { $0 } == 8)
        let maps1000 = written(history, uid: 1000).entries
        #expect(maps1000.filter { $0.kind == .begin }.map(\.precise) == [true, false, false])
        #expect(written(history, uid: 1001).entries.map(\.kind) == [.begin, .end])
    }

    @Test("a line cut off by a power cut is skipped and counted, and the next entry is whole")
    func cutOffLine() throws {
        let scene = Scene()
        let history = scene.history()
        let ledger = scene.ledger(history)
        ledger.refused(Self.maps, .notInUse, "not in use")
        history.flush()
        let path = history.path(uid: 1000)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"kind":"begin","id":"cut","time":17966"#.utf8))
        try handle.close()
        ledger.refused(Self.maps, .denied, "denied")
        let read = written(history, uid: 1000)
        #expect(read.damaged == 1)
        #expect(read.entries.map(\.reason) == ["notInUse", "denied"])
    }

    @Test("a period the daemon did not see end is ended, interrupted, when it starts again")
    func interrupted() throws {
        let scene = Scene()
        let killed = scene.history()
        let ledger = scene.ledger(killed)
        let period = ledger.period(for: Self.maps)
        period.saw(Self.located(precise: true))
        killed.flush()
        // The daemon is killed: the period's end is never written. A new daemon reads the history.
        scene.advance(3600)
        let history = scene.history()
        #expect(history.endInterrupted(now: scene.now) == 1)
        #expect(history.endInterrupted(now: scene.now) == 0, "once")
        let entries = written(history, uid: 1000).entries
        #expect(entries.map(\.kind) == [.begin, .end])
        #expect(entries.last?.interrupted == true && entries.last?.updates == nil)
    }

    @Test(
        "entries older than the retention go; a user's history never outgrows its bound, the oldest going first"
    )
    func pruningAndBound() throws {
        let scene = Scene()
        let history = scene.history(bytesPerUser: 16384)
        let ledger = scene.ledger(history)
        ledger.refused(Self.cgps, .denied, "the oldest")
        scene.advance(6 * 86400)
        ledger.refused(Self.cgps, .denied, "six days later")
        history.flush()
        scene.advance(2 * 86400)
        #expect(history.prune(now: scene.now) == 1)
        #expect(written(history, uid: 1001).entries.map(\.text) == ["six days later"])
        for number in 0..<500 {
            ledger.refused(Self.maps, .notInUse, "refusal \(number)")
            scene.advance(1)
        }
        history.flush()
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: history.path(uid: 1000))[.size] as? Int)
        #expect(size <= 16384)
        let kept = written(history, uid: 1000).entries
        #expect(kept.last?.text == "refusal 499" && kept.count > 20 && kept.count < 500, "\(kept.count)")
        #expect(written(history, uid: 1001).entries.count == 1, "another user's history is its own")
        #expect(scene.logged.withLock { $0 }.isEmpty, "\(scene.logged.withLock { $0 })")
    }
}
