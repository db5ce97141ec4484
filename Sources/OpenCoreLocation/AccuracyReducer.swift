import GNSS

/// Turns precise locations into approximate ones for apps with reduced accuracy authorization.
///
/// The world is divided into a fixed grid of cells about 5 km on a side (bands of 0.045° of
/// latitude, each cut into as many equal columns as keep cells about 5 km wide). A reduced
/// location is the centre of a cell with a constant radius for that cell, so every position in a
/// cell gives the same output and averaging many outputs reveals nothing more than the cell.
///
/// - Hysteresis: the current cell is kept until a fix lies more than ``hysteresis`` metres outside
///   it, so a device sitting on an edge does not flip between cells.
/// - Cadence: the first location is given at once; after that at most one per interval, each
///   interval drawn uniformly from 15 to 20 minutes of fix time. When a location is due does not
///   depend on where the device is, so the timing reveals no edge crossing.
/// - Speed, course and altitude are withheld (`-1`).
public struct AccuracyReducer: Sendable {
    /// A cell of the grid: its latitude band and its column within the band.
    public struct Cell: Sendable, Hashable {
        public var row: Int
        public var column: Int
    }

    /// The height of a cell, degrees of latitude (about 5 km).
    public static let cellHeight = 0.045
    /// How far outside its current cell a fix must be before the reduced location moves, metres.
    public static let hysteresis = 1_000.0
    /// The shortest and longest interval between two reduced locations, seconds.
    public static let intervals: ClosedRange<Double> = 900...1200

    private static let rows = Int((180 / cellHeight).rounded())
    private static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    private var current: Cell?
    private var nextDue: Date?
    private var generator: SeededGenerator

    /// - Parameter seed: seeds the random intervals; a random seed when `nil`.
    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        generator = SeededGenerator(seed: seed ?? system.next())
    }

    /// The cell that contains a coordinate.
    public static func cell(containing coordinate: CLLocationCoordinate2D) -> Cell {
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
    public static func centre(of cell: Cell) -> CLLocationCoordinate2D {
        let width = 360 / Double(columnCount(row: cell.row))
        return CLLocationCoordinate2D(
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
    static func isNear(_ coordinate: CLLocationCoordinate2D, _ cell: Cell) -> Bool {
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

    /// The reduced location for a precise one when one is due, or `nil` when it is withheld.
    public mutating func reduce(_ location: CLLocation) -> CLLocation? {
        let coordinate = location.coordinate
        if let cell = current, Self.isNear(coordinate, cell) {
            // keep the current cell
        } else {
            current = Self.cell(containing: coordinate)
        }
        if let due = nextDue, location.timestamp < due { return nil }
        let interval = Double.random(in: Self.intervals, using: &generator)
        nextDue = location.timestamp.addingTimeInterval(interval)
        let cell = current!
        return CLLocation(
            coordinate: Self.centre(of: cell), altitude: 0, ellipsoidalAltitude: 0,
            horizontalAccuracy: Self.radius(of: cell), verticalAccuracy: -1, course: -1,
            courseAccuracy: -1, speed: -1, speedAccuracy: -1, timestamp: location.timestamp,
            sourceInfo: location.sourceInformation)
    }
}
