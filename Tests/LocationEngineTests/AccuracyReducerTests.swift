// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GNSS
import TestSupport
import Testing

@testable import LocationEngine

@Suite("Reduced accuracy")
struct AccuracyReducerTests {
    static let secret = ReducerSecret(bytes: Array(1...32))

    static func location(_ latitude: Double, _ longitude: Double, at seconds: Double) -> Location {
        Location(
            fix: .position(latitude, longitude, at: seconds, speed: 12, course: 80), origin: .receiver,
            fallbackTime: Date())!
    }

    static func reducer(secret: ReducerSecret = secret) -> AccuracyReducer {
        AccuracyReducer(offset: ReducerOffset(secret: secret))
    }

    static func isCentre(_ coordinate: Coordinate) -> Bool {
        let centre = AccuracyReducer.centre(of: AccuracyReducer.cell(containing: coordinate))
        return abs(centre.latitude - coordinate.latitude) < 1e-9
            && abs(centre.longitude - coordinate.longitude) < 1e-9
    }

    @Test("Cells: one cell, one centre, a radius of 3.6 km that covers the cell, latitude snapped first")
    func fixedCells() {
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<2000 {
            let latitude = Double.random(in: -89.9...89.9, using: &generator)
            let longitude = Double.random(in: -180..<180, using: &generator)
            let cell = AccuracyReducer.cell(containing: .init(latitude: latitude, longitude: longitude))
            let centre = AccuracyReducer.centre(of: cell)
            #expect(AccuracyReducer.cell(containing: centre) == cell)
            let radius = AccuracyReducer.radius(of: cell)
            #expect(radius >= 3600 && radius <= 3700)
            let distance = Geodesy.distance(
                latitude1: latitude, longitude1: longitude, latitude2: centre.latitude,
                longitude2: centre.longitude)
            #expect(distance <= radius)
        }
    }

    @Test(
        "The offset: σ half a cell per axis, the same for the same secret and hour, drifting slowly")
    func offset() async {
        var yielder = Yielder()
        let hour = Date(timeIntervalSince1970: 1_800_000_000)
        var norths: [Double] = []
        for index in 0..<400 {
            await yielder.giveWay()
            var offset = ReducerOffset(
                secret: ReducerSecret(
                    bytes: (0..<32).map { UInt8(($0 * 7 + index) & 0xFF) ^ UInt8(index >> 8) }))
            norths.append(offset.metres(at: hour).north)
        }
        let sigma = (norths.map { $0 * $0 }.reduce(0, +) / Double(norths.count)).squareRoot()
        #expect(abs(sigma - ReducerOffset.sigma) < 0.12 * ReducerOffset.sigma, "σ \(sigma) m")

        // Walking forward an hour at a time gives what a fresh computation gives.
        var walked = ReducerOffset(secret: Self.secret)
        var previous = walked.metres(at: hour)
        var largestStep = 0.0
        for h in 1...100 {
            let now = walked.metres(at: hour.addingTimeInterval(Double(h) * 3600))
            largestStep = max(largestStep, abs(now.north - previous.north), abs(now.east - previous.east))
            previous = now
        }
        var fresh = ReducerOffset(secret: Self.secret)
        let direct = fresh.metres(at: hour.addingTimeInterval(100 * 3600))
        #expect(abs(direct.north - previous.north) < 1e-6 && abs(direct.east - previous.east) < 1e-6)
        // 3 % of σ per hour: an hour moves it about 40 m, never a cell.
        #expect(largestStep < 5 * 0.03 * ReducerOffset.sigma)
        // Another secret, another offset.
        var other = ReducerOffset(secret: ReducerSecret(bytes: Array(repeating: 9, count: 32)))
        #expect(other.metres(at: hour).north != fresh.metres(at: hour).north)
    }

    @Test("At most one output per 15–20 minutes; nothing precise-derived; the same fix, the same answer")
    func cadenceAndFields() async {
        var yielder = Yielder()
        var reducer = Self.reducer()
        var emitted: [Location] = []
        for second in stride(from: 0.0, to: 6 * 3600, by: 1) {
            await yielder.giveWay()
            let moving = Self.location(52.0 + second * 0.00001, 5.0, at: second)
            if case .location(let reduced) = reducer.observe(moving, at: moving.timestamp) {
                emitted.append(reduced)
            }
        }
        #expect(emitted.count >= 18 && emitted.count <= 25)
        for (a, b) in zip(emitted, emitted.dropFirst()) {
            let gap = b.timestamp.timeIntervalSince(a.timestamp)
            #expect(gap >= 900 && gap <= 1201)
        }
        for location in emitted {
            #expect(location.speed == -1 && location.course == -1)
            #expect(location.speedAccuracy == -1 && location.courseAccuracy == -1)
            #expect(location.altitude == 0 && location.verticalAccuracy == -1)
            #expect(
                location.horizontalAccuracy
                    == AccuracyReducer.radius(of: AccuracyReducer.cell(containing: location.coordinate)))
            #expect(Self.isCentre(location.coordinate))
        }

        // Property: two reducers with the same secret (two apps on one receiver) reduce a fix to
        // the same cell at the same time; the same reducer reduces a fix seen again to the same cell.
        var generator = SeededGenerator(seed: 9)
        for trial in 0..<300 {
            await yielder.giveWay()
            let fix = Self.location(
                Double.random(in: -85...85, using: &generator),
                Double.random(in: -180..<180, using: &generator),
                at: 1_700_000_000 + Double(trial) * 7200)
            var a = Self.reducer()
            var b = Self.reducer()
            let first = a.observe(fix, at: fix.timestamp)
            let other = b.observe(fix, at: fix.timestamp)
            if case .location(let l1) = first, case .location(let l2) = other {
                #expect(l1.coordinate == l2.coordinate && l1.timestamp == l2.timestamp)
            } else {
                Issue.record("no output")
            }
            let later = fix.timestamp.addingTimeInterval(1300)
            let again = a.observe(fix, at: later)
            if case .location(let l1) = first, case .location(let l2) = again {
                #expect(l1.coordinate == l2.coordinate)
            } else {
                Issue.record("no output")
            }
        }
    }

    @Test("The secret moves the grid: the cells differ from the public grid's for most places")
    func secretMovesTheGrid() async {
        var yielder = Yielder()
        var generator = SeededGenerator(seed: 4)
        var moved = 0
        for trial in 0..<200 {
            await yielder.giveWay()
            let fix = Self.location(
                Double.random(in: -60...60, using: &generator),
                Double.random(in: -180..<180, using: &generator),
                at: 1_700_000_000)
            var reducer = Self.reducer(
                secret: ReducerSecret(bytes: (0..<32).map { UInt8(($0 * 31 + trial) & 0xFF) }))
            guard case .location(let out) = reducer.observe(fix, at: fix.timestamp) else { continue }
            if AccuracyReducer.cell(containing: out.coordinate)
                != AccuracyReducer.cell(containing: fix.coordinate)
            {
                moved += 1
            }
        }
        // σ = 2.5 km on 5 km cells: about 63 % of places land in another cell.
        #expect(moved > 100 && moved < 150, "\(moved) of 200")
    }

    @Test("Parked for 90 days while the offset drifts: always the same cell")
    func parkedWhileTheOffsetDrifts() async {
        var yielder = Yielder()
        var generator = SeededGenerator(seed: 21)
        for trial in 0..<20 {
            let secret = ReducerSecret(bytes: (0..<32).map { UInt8(($0 * 17 + trial * 5) & 0xFF) })
            var reducer = Self.reducer(secret: secret)
            let latitude = Double.random(in: -70...70, using: &generator)
            let longitude = Double.random(in: -180..<180, using: &generator)
            var cells = Set<AccuracyReducer.Cell>()
            var outputs = 0
            for step in 0..<(90 * 24 * 4) {  // every 15 minutes
                await yielder.giveWay()
                let jitter = Double.random(in: -0.00003...0.00003, using: &generator)  // ±3 m
                let fix = Self.location(
                    latitude + jitter, longitude - jitter, at: 1_800_000_000 + Double(step) * 900)
                if case .location(let out) = reducer.observe(fix, at: fix.timestamp) {
                    cells.insert(AccuracyReducer.cell(containing: out.coordinate))
                    outputs += 1
                }
            }
            #expect(outputs >= 90 * 24 * 2, "outputs \(outputs)")
            #expect(cells.count == 1, "trial \(trial): \(cells.count) cells")
        }
    }

    @Test("Back and forth across the device's own cell edge: one cell, and the times do not change")
    func edgeCrossings() {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        var offset = ReducerOffset(secret: Self.secret)
        let shift = offset.metres(at: time)
        // The public edge north of 45.02 N, moved back by the offset: where this device's edge is.
        let cell = AccuracyReducer.cell(containing: .init(latitude: 45.02, longitude: 7.01))
        let edge =
            AccuracyReducer.centre(of: cell).latitude + AccuracyReducer.cellHeight / 2
            - shift.north / AccuracyReducer.metresPerDegree
        var generator = SeededGenerator(seed: 11)
        var crossing = Self.reducer()
        var still = Self.reducer()
        var crossingTimes: [Date] = []
        var stillTimes: [Date] = []
        var cells = Set<AccuracyReducer.Cell>()
        for second in stride(from: 0.0, to: 3 * 3600, by: 5) {
            let wander = Double.random(in: -0.0027...0.0027, using: &generator)  // ±300 m
            let at = 1_800_000_000 + second
            let fix = Self.location(edge + wander, 7.01, at: at)
            if case .location(let out) = crossing.observe(fix, at: fix.timestamp) {
                crossingTimes.append(out.timestamp)
                cells.insert(AccuracyReducer.cell(containing: out.coordinate))
            }
            let parked = Self.location(edge - 0.01, 7.01, at: at)
            if case .location(let out) = still.observe(parked, at: parked.timestamp) {
                stillTimes.append(out.timestamp)
            }
        }
        #expect(cells.count == 1)  // hysteresis keeps the first cell
        #expect(crossingTimes == stillTimes)
    }

    @Test("Losing the fix is told at the next due time, not when it happens")
    func availabilityAtTheCadence() {
        var reducer = Self.reducer()
        let start = 1_800_000_000.0
        var outputs: [(Double, AccuracyReducer.Output)] = []
        for second in stride(from: 0.0, to: 3600, by: 1) {
            // In a garage from the 100th second to the 400th.
            let inside = second >= 100 && second < 400
            let fix: Location? = inside ? nil : Self.location(48.1, 11.5, at: start + second)
            if let out = reducer.observe(fix, at: Date(timeIntervalSince1970: start + second)) {
                outputs.append((second, out))
            }
        }
        #expect(outputs.first?.0 == 0)
        #expect(outputs.allSatisfy { if case .location = $0.1 { true } else { false } })
        #expect(outputs.dropFirst().allSatisfy { $0.0 >= 900 })
    }
}
