// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns precise locations into approximate ones for an app with reduced accuracy authorization.
///
/// - The grid: bands of 0.045° of latitude (about 5 km), each cut into as many equal columns as
///   keep cells about 5 km wide, snapped latitude first.
/// - The secret offset: before snapping, the position is moved by ``ReducerOffset`` (Gaussian,
///   σ half a cell, drifting slowly, from a secret the app never sees), so the edges an
///   observer could compute from the public grid are not where the device's edges are.
/// - Hysteresis: the current cell is kept until the position, moved by the offset the cell was
///   found with, lies more than ``hysteresis`` metres outside it, so a device on an edge does not
///   flip between cells, and the offset's drift never moves a device that stays (averaging a
///   parked device's month of updates finds one cell); a new cell is found with today's offset.
/// - Cadence: the first output at once; after that at most one per interval, drawn uniformly from
///   15 to 20 minutes of fix time. Each output is the location when one can be had, else
///   "unavailable", so neither the timing of cell changes nor that of losing the fix is seen
///   sooner than the cadence allows.
/// - What is given: the centre of the cell and the cell's radius; speed, course, altitude and
///   their accuracies are `-1`. The same precise fix reduced twice gives the same cell.
///
/// The ``State`` is the app's: the shell keeps one reducer per app, shared by all its
/// subscriptions and processes, and stores the state across restarts.
public struct AccuracyReducer: Sendable {
    /// A cell of the grid: its latitude band and its column within the band.
    public struct Cell: Sendable, Hashable, Codable {
        public var row: Int
        public var column: Int
    }

    /// The height of a cell, degrees of latitude (about 5 km).
    public static let cellHeight = 0.045
    /// How far outside its current cell a moved position must be before the output moves, metres.
    public static let hysteresis = 1_000.0
    /// The shortest and longest interval between two outputs, seconds.
    public static let intervals: ClosedRange<Double> = 900...1200

    static let rows = Int((180 / cellHeight).rounded())
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// What the app was last told and when it is told again: the app's, kept across restarts.
    public struct State: Sendable, Hashable, Codable {
        /// The cell the app is in, as it was last told.
        public var cell: Cell?
        /// The last output: the cell's centre and radius, or `nil` for "unavailable".
        public var said: Said?
        /// When the next output is due, in fix time.
        public var nextDue: Date?
        /// The last precise coordinate reduced (it gave ``cell``): the same fix, the same answer.
        /// Kept in memory alone, never stored: the state on disk holds no precise coordinate
        /// (found again from ``cell`` and ``cellOffset``, the same fix gives the same cell).
        var lastFine: [Double]?
        /// The offset the current cell was found with (metres north and east): a device is kept
        /// in its cell by that one, so the drift alone never moves a device that stays.
        var cellOffset: [Double]?

        private enum CodingKeys: String, CodingKey {
            case cell, said, nextDue, cellOffset
        }

        public init() {}
    }

    /// An output as stored: when, and whether it was the location of ``State/cell`` or
    /// "unavailable".
    public struct Said: Sendable, Hashable, Codable {
        public var time: Date
        public var unavailable: Bool
        /// Where the location came from (a simulation, an accessory), as Core Location says it.
        public var simulated: Bool?
        public var accessory: Bool?
    }

    /// What the app is told at a due time.
    public enum Output: Sendable, Hashable {
        case location(Location)
        case unavailable

        /// The location, when it is one.
        var location: Location? {
            if case .location(let location) = self { location } else { nil }
        }
    }

    public private(set) var state: State
    private var offset: ReducerOffset

    /// - Parameters:
    ///   - offset: the receiver's secret offset.
    ///   - state: the app's state as last stored.
    public init(offset: ReducerOffset, state: State = State()) {
        self.offset = offset
        self.state = state
    }

    /// What the app was last told, for a subscription that starts now: the same output, with its
    /// original time, never a fresh one.
    public var current: Output? {
        guard let said = state.said else { return nil }
        guard !said.unavailable, let cell = state.cell else { return .unavailable }
        return .location(
            Self.location(
                cell, at: said.time,
                source: said.simulated.map {
                    Location.Source(isSimulatedBySoftware: $0, isProducedByAccessory: said.accessory ?? false)
                }))
    }

    /// Takes what the receiver says at `time` (a location, or `nil` when none can be had) and
    /// returns what the app is told, when an output is due.
    public mutating func observe(_ location: Location?, at time: Date) -> Output? {
        if let due = state.nextDue, time < due.addingTimeInterval(-Self.intervals.upperBound) {
            // The receiver's time went back before the last output (another log, a receiver
            // reset): the cadence starts again from here, without an output.
            state.nextDue = time.addingTimeInterval(interval(after: time))
            return nil
        }
        if let due = state.nextDue, time < due { return nil }
        state.nextDue = time.addingTimeInterval(interval(after: time))
        guard let location else {
            state.said = Said(time: time, unavailable: true)
            return .unavailable
        }
        let cell = cell(for: location)
        let source = location.source
        state.said = Said(
            time: time, unavailable: false, simulated: source?.isSimulatedBySoftware,
            accessory: source?.isProducedByAccessory)
        return .location(Self.location(cell, at: time, source: source))
    }

    /// The interval after an output at `time`: uniform over ``intervals``, drawn from the secret.
    private func interval(after time: Date) -> Double {
        Self.intervals.lowerBound + offset.unit(after: time)
            * (Self.intervals.upperBound - Self.intervals.lowerBound)
    }

    /// The cell a precise location reduces to now, with hysteresis.
    private mutating func cell(for location: Location) -> Cell {
        let fine = [location.coordinate.latitude, location.coordinate.longitude]
        if fine == state.lastFine, let cell = state.cell { return cell }
        let now = offset.metres(at: location.timestamp)
        let cell: Cell
        if let current = state.cell,
            Self.isNear(
                Self.moved(
                    location.coordinate,
                    by: state.cellOffset.map { (north: $0[0], east: $0[1]) } ?? now),
                current)
        {
            cell = current
        } else {
            cell = Self.cell(containing: Self.moved(location.coordinate, by: now))
            state.cellOffset = [now.north, now.east]
        }
        state.cell = cell
        state.lastFine = fine
        return cell
    }

    /// A cell as a location: its centre and radius, nothing else.
    private static func location(_ cell: Cell, at time: Date, source: Location.Source?) -> Location {
        var location = Location(
            coordinate: centre(of: cell), horizontalAccuracy: radius(of: cell), timestamp: time)
        location.source = source
        return location
    }

    /// A coordinate moved by an offset in metres; latitude kept inside the poles.
    static func moved(_ coordinate: Coordinate, by offset: (north: Double, east: Double))
        -> Coordinate
    {
        let latitude = min(89.999_999, max(-89.999_999, coordinate.latitude + offset.north / metresPerDegree))
        let cosine = max(0.01, cos(coordinate.latitude * .pi / 180))
        var longitude = coordinate.longitude + offset.east / (metresPerDegree * cosine)
        longitude = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if longitude < 0 { longitude += 360 }
        return Coordinate(latitude: latitude, longitude: longitude - 180)
    }

    /// The cell that contains a coordinate: its band from the latitude, then its column from the
    /// band's own width.
    public static func cell(containing coordinate: Coordinate) -> Cell {
        let row = min(rows - 1, max(0, Int(((coordinate.latitude + 90) / cellHeight).rounded(.down))))
        let columns = columnCount(row: row)
        let width = 360 / Double(columns)
        var column = Int(((coordinate.longitude + 180) / width).rounded(.down)) % columns
        if column < 0 { column += columns }
        return Cell(row: row, column: column)
    }

    static func columnCount(row: Int) -> Int {
        let centre = -90 + (Double(row) + 0.5) * cellHeight
        let circumference = 360 * cos(centre * .pi / 180)
        return max(1, Int((circumference / cellHeight).rounded(.down)))
    }

    /// The centre of a cell.
    public static func centre(of cell: Cell) -> Coordinate {
        let width = 360 / Double(columnCount(row: cell.row))
        return Coordinate(
            latitude: -90 + (Double(cell.row) + 0.5) * cellHeight,
            longitude: -180 + (Double(cell.column) + 0.5) * width)
    }

    /// The radius reported for a cell: the distance from its centre to its corners, rounded up
    /// to 100 m. Constant for the cell and never under 1 km.
    public static func radius(of cell: Cell) -> Double {
        let centre = centre(of: cell)
        let halfHeight = cellHeight / 2 * metresPerDegree
        let halfWidth =
            360 / Double(columnCount(row: cell.row)) / 2 * metresPerDegree
            * cos(centre.latitude * .pi / 180)
        let corner = (halfHeight * halfHeight + halfWidth * halfWidth).squareRoot()
        return max(1_000, (corner / 100).rounded(.up) * 100)
    }

    /// Whether a coordinate lies within a cell widened by ``hysteresis`` on every side.
    static func isNear(_ coordinate: Coordinate, _ cell: Cell) -> Bool {
        let centre = centre(of: cell)
        let marginLatitude = hysteresis / metresPerDegree
        let halfWidth = 360 / Double(columnCount(row: cell.row)) / 2
        let cosine = max(0.01, cos(coordinate.latitude * .pi / 180))
        let marginLongitude = hysteresis / (metresPerDegree * cosine)
        var dLon = abs(coordinate.longitude - centre.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        return abs(coordinate.latitude - centre.latitude) <= cellHeight / 2 + marginLatitude
            && dLon <= halfWidth + marginLongitude
    }
}
