// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import GNSS

/// What `gpsloc decode` writes of each fix, and which fixes: `--fields`, `--no-satellites`,
/// `--from`, `--to` and `--bbox`.
struct DecodeSelection: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The members (jsonl) or columns (csv) to write, comma-separated, e.g. time,latitude,longitude.",
            valueName: "list"))
    var fields: String?

    @Flag(
        name: .customLong("no-satellites"),
        help: "Leave out the list of satellites (jsonl, gpsd): most of each record's size.")
    var noSatellites = false

    @Option(
        help: ArgumentHelp(
            "Only fixes at or after this UTC time: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.sss][Z].",
            valueName: "time"))
    var from: String?

    @Option(
        help: ArgumentHelp("Only fixes before this UTC time (the same forms as --from).", valueName: "time"))
    var to: String?

    // `.unconditional`: a box west of Greenwich starts with a minus sign, which must not be taken
    // for an option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only fixes inside this box, in degrees: WEST,SOUTH,EAST,NORTH (GeoJSON's order; WEST > EAST "
                + "crosses the 180th meridian).", valueName: "box"))
    var bbox: String?

    // The options only: what follows is worked out from them by `resolve`.
    private enum CodingKeys: String, CodingKey {
        case fields, noSatellites, from, to, bbox
    }

    /// What a record holds, for jsonl.
    private(set) var recordFields = RecordFields.all
    /// The columns, for csv.
    private(set) var columns = CSVColumns.all
    private(set) var window: (from: UTCTimestamp?, to: UTCTimestamp?) = (nil, nil)
    private(set) var box: (west: Double, south: Double, east: Double, north: Double)?

    /// Checks the options against each other and the format, and reads them.
    mutating func resolve(for format: Decode.Format) throws {
        if let fields {
            switch format {
            case .jsonl:
                do { recordFields = try RecordFields(parsing: fields) } catch {
                    throw ValidationError("--fields: \(error)")
                }
                if noSatellites && recordFields.contains(.satellites) {
                    throw ValidationError(
                        "--fields names 'satellites' and --no-satellites leaves them out; choose one")
                }
            case .csv:
                do { columns = try CSVColumns(parsing: fields) } catch {
                    throw ValidationError("--fields: \(error)")
                }
            default:
                throw ValidationError(
                    "--fields chooses the members of jsonl and the columns of csv; --format \(format.rawValue) "
                        + "writes fields of its own")
            }
        }
        if noSatellites {
            guard format == .jsonl || format == .gpsd else {
                throw ValidationError(
                    "--no-satellites applies to --format jsonl and gpsd; \(format.rawValue) has no satellite list"
                )
            }
            recordFields.remove(.satellites)
        }
        window = (try from.map { try Self.time($0, "--from") }, try to.map { try Self.time($0, "--to") })
        if let start = window.from, let end = window.to, !(start < end) {
            throw ValidationError("--from (\(start)) must be before --to (\(end))")
        }
        if let bbox { box = try Self.box(bbox) }
    }

    /// Whether the options keep every fix.
    var keepsAll: Bool { window.from == nil && window.to == nil && box == nil }

    /// Whether `fix` is written: inside the time window (a fix without a time is not, when there
    /// is one) and the box (a fix without a position is not, when there is one).
    func keeps(_ fix: Fix) -> Bool {
        if window.from != nil || window.to != nil {
            guard let time = fix.time else { return false }
            if let start = window.from, time < start { return false }
            if let end = window.to, !(time < end) { return false }
        }
        return box == nil || isInBox(fix)
    }

    /// Whether `fix` has a position inside `--bbox` (true without one).
    func isInBox(_ fix: Fix) -> Bool {
        guard let box else { return true }
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude else {
            return false
        }
        return Self.contains(box, latitude: latitude, longitude: longitude)
    }

    static func contains(
        _ box: (west: Double, south: Double, east: Double, north: Double), latitude: Double, longitude: Double
    ) -> Bool {
        guard latitude >= box.south && latitude <= box.north else { return false }
        if box.west <= box.east { return longitude >= box.west && longitude <= box.east }
        return longitude >= box.west || longitude <= box.east
    }

    static func time(_ text: String, _ option: String) throws -> UTCTimestamp {
        var full = text
        if full.utf8.count == 10 { full += "T00:00:00Z" } else if !full.hasSuffix("Z") { full += "Z" }
        guard let time = UTCTimestamp(iso8601: full) else {
            throw ValidationError(
                "\(option) '\(text)' is not a UTC time: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, e.g. 2026-03-14T08:00:00"
            )
        }
        return time
    }

    static func box(_ text: String) throws -> (west: Double, south: Double, east: Double, north: Double) {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard numbers.count == 4, let west = numbers[0], let south = numbers[1], let east = numbers[2],
            let north = numbers[3]
        else {
            throw ValidationError(
                "--bbox '\(text)' is not four numbers: write WEST,SOUTH,EAST,NORTH, e.g. 4.8,52.3,5.0,52.4")
        }
        guard (-180...180).contains(west) && (-180...180).contains(east) else {
            throw ValidationError("--bbox: longitudes (WEST, EAST) must be from -180 to 180")
        }
        guard (-90...90).contains(south) && (-90...90).contains(north) else {
            throw ValidationError("--bbox: latitudes (SOUTH, NORTH) must be from -90 to 90")
        }
        guard south < north else {
            throw ValidationError(
                "--bbox: SOUTH (\(south)) must be below NORTH (\(north)); the order is WEST,SOUTH,EAST,NORTH")
        }
        return (west, south, east, north)
    }
}

/// Where the input's fixes lie, to say so when `--bbox` holds none of them (a box written
/// latitude first matches nothing, silently).
struct FixReach {
    var positioned = 0
    var inside = 0
    var south = Double.infinity, north = -Double.infinity
    var west = Double.infinity, east = -Double.infinity

    mutating func add(_ fix: Fix, inBox: Bool) {
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude else { return }
        positioned += 1
        if inBox { inside += 1 }
        south = min(south, latitude)
        north = max(north, latitude)
        west = min(west, longitude)
        east = max(east, longitude)
    }

    /// What to say when the box held none of the fixes there were.
    func warning(box: (west: Double, south: Double, east: Double, north: Double)) -> String? {
        guard positioned > 0, inside == 0 else { return nil }
        func text(_ value: Double) -> String { formatFixed(value, 4) }
        var warning =
            "no fix lies inside --bbox \(text(box.west)),\(text(box.south)),\(text(box.east)),\(text(box.north)); "
            + "the \(counted(positioned, "fix", "fixes")) \(agreeing(positioned, "lies at", "span")) longitude \(text(west)) to \(text(east)), latitude "
            + "\(text(south)) to \(text(north))"
        // The same numbers read latitude first would have held them: say so.
        let swapped = (west: box.south, south: box.west, east: box.north, north: box.east)
        if (-90...90).contains(swapped.south), (-90...90).contains(swapped.north),
            swapped.south < swapped.north,
            DecodeSelection.contains(swapped, latitude: (south + north) / 2, longitude: (west + east) / 2)
        {
            warning +=
                "; latitude and longitude look swapped: --bbox is WEST,SOUTH,EAST,NORTH, longitude first, "
                + "so try --bbox \(text(box.south)),\(text(box.west)),\(text(box.north)),\(text(box.east))"
        }
        return warning
    }
}
