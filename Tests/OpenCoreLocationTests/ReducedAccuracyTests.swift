import Foundation
import GNSS
import OpenCoreLocation
import TestSupport
import Testing

@Suite("Reduced accuracy")
struct ReducedAccuracyTests {
    static func location(_ latitude: Double, _ longitude: Double, at seconds: Double) -> CLLocation {
        CLLocation(
            fix: .position(latitude, longitude, at: seconds, speed: 12, course: 80), origin: .receiver,
            fallbackTime: Date())!
    }

    @Test("Positions snap to fixed cells: one cell, one output, a constant radius of at least 1 km")
    func fixedCells() {
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<2000 {
            let latitude = Double.random(in: -80...80, using: &generator)
            let longitude = Double.random(in: -180..<180, using: &generator)
            let cell = AccuracyReducer.cell(containing: .init(latitude: latitude, longitude: longitude))
            let centre = AccuracyReducer.centre(of: cell)
            #expect(AccuracyReducer.cell(containing: centre) == cell)
            let radius = AccuracyReducer.radius(of: cell)
            #expect(radius >= 1000 && radius <= 4000)
            let distance = Geodesy.distance(
                latitude1: latitude, longitude1: longitude, latitude2: centre.latitude,
                longitude2: centre.longitude)
            #expect(distance <= radius)
        }
    }

    @Test("At most one location per 15–20 minutes; speed, course and altitude are withheld")
    func cadence() {
        var reducer = AccuracyReducer(seed: 1)
        var emitted: [CLLocation] = []
        for second in stride(from: 0.0, to: 6 * 3600, by: 1) {
            let moving = Self.location(52.0 + second * 0.00001, 5.0, at: second)
            if let reduced = reducer.reduce(moving) { emitted.append(reduced) }
        }
        #expect(emitted.count >= 18 && emitted.count <= 25)
        for (a, b) in zip(emitted, emitted.dropFirst()) {
            let gap = b.timestamp.timeIntervalSince(a.timestamp)
            #expect(gap >= 900 && gap <= 1201)
        }
        for location in emitted {
            #expect(location.speed == -1 && location.course == -1)
            #expect(location.verticalAccuracy <= 0 && location.speedAccuracy == -1)
            #expect(location.horizontalAccuracy >= 1000)
        }
    }

    @Test("A device sitting still for 30 days: every output is the same cell centre")
    func stillForAMonth() {
        let truth = CLLocationCoordinate2D(latitude: 48.85661, longitude: 2.35222)
        var reducer = AccuracyReducer(seed: 7)
        var generator = SeededGenerator(seed: 8)
        var outputs: [CLLocationCoordinate2D] = []
        for minute in 0..<(30 * 24 * 60) {
            let noise = Double.random(in: -0.00005...0.00005, using: &generator)
            let location = Self.location(
                truth.latitude + noise, truth.longitude - noise, at: Double(minute) * 60)
            if let reduced = reducer.reduce(location) { outputs.append(reduced.coordinate) }
        }
        #expect(outputs.count > 2000)
        let centre = AccuracyReducer.centre(of: AccuracyReducer.cell(containing: truth))
        #expect(outputs.allSatisfy { $0 == centre })
        // The average is the centre: it is no closer to the truth than the cell itself.
        let mean = CLLocationCoordinate2D(
            latitude: outputs.map(\.latitude).reduce(0, +) / Double(outputs.count),
            longitude: outputs.map(\.longitude).reduce(0, +) / Double(outputs.count))
        let error = Geodesy.distance(
            latitude1: mean.latitude, longitude1: mean.longitude, latitude2: truth.latitude,
            longitude2: truth.longitude)
        let cellError = Geodesy.distance(
            latitude1: centre.latitude, longitude1: centre.longitude, latitude2: truth.latitude,
            longitude2: truth.longitude)
        #expect(abs(error - cellError) < 1)
    }

    @Test("Back and forth across a cell edge: no flapping, and timing does not reveal the crossings")
    func edgeCrossings() {
        // A point just inside a cell's northern edge; the device wanders ±300 m across it.
        let cell = AccuracyReducer.cell(containing: .init(latitude: 45.02, longitude: 7.01))
        let edge = AccuracyReducer.centre(of: cell).latitude + AccuracyReducer.cellHeight / 2
        var generator = SeededGenerator(seed: 11)
        var crossing = AccuracyReducer(seed: 5)
        var still = AccuracyReducer(seed: 5)
        var crossingTimes: [Date] = []
        var stillTimes: [Date] = []
        var cells = Set<AccuracyReducer.Cell>()
        for second in stride(from: 0.0, to: 12 * 3600, by: 5) {
            let offset = Double.random(in: -0.0027...0.0027, using: &generator)  // ±300 m
            if let out = crossing.reduce(Self.location(edge + offset, 7.01, at: second)) {
                crossingTimes.append(out.timestamp)
                cells.insert(AccuracyReducer.cell(containing: out.coordinate))
            }
            if let out = still.reduce(Self.location(edge - 0.01, 7.01, at: second)) {
                stillTimes.append(out.timestamp)
            }
        }
        #expect(cells.count == 1)  // hysteresis keeps the first cell
        #expect(crossingTimes == stillTimes)
    }

    @Test("Under reduced accuracy, updates between approximate locations carry accuracyLimited")
    func serviceUnderReducedAccuracy() async throws {
        let h = try authorizedHarness(precise: false)
        h.source.send(
            (0..<1800).map { .position(52 + Double($0) * 0.00001, 5, at: Double($0), speed: 10, course: 0) })
        h.source.end()
        let updates = try await h.run { try await collect(CLLocationUpdate.liveUpdates()) }
        let located = updates.filter { $0.location != nil }
        #expect(located.count == 2)
        #expect(located.allSatisfy { $0.location!.speed == -1 && $0.location!.course == -1 })
        #expect(located.allSatisfy { $0.location!.horizontalAccuracy >= 1000 })
        let between = updates.filter { $0.location == nil }
        #expect(between.allSatisfy { $0.accuracyLimited })
        #expect(updates[1].accuracyLimited && updates[1].location == nil)
    }
}
