// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// Which members of this library's JSON record (``FixFormat/appendJSONRecord(_:fields:to:)``)
/// to write: `gpsloc decode --fields` and `--no-satellites`.
public struct RecordFields: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let time = RecordFields(rawValue: 1 << 0)
    public static let timeOfDay = RecordFields(rawValue: 1 << 1)
    public static let mode = RecordFields(rawValue: 1 << 2)
    public static let status = RecordFields(rawValue: 1 << 3)
    public static let latitude = RecordFields(rawValue: 1 << 4)
    public static let longitude = RecordFields(rawValue: 1 << 5)
    public static let altitudeMSL = RecordFields(rawValue: 1 << 6)
    public static let altitudeHAE = RecordFields(rawValue: 1 << 7)
    public static let geoidSeparation = RecordFields(rawValue: 1 << 8)
    /// `speed` and `speedDerived`.
    public static let speed = RecordFields(rawValue: 1 << 9)
    public static let course = RecordFields(rawValue: 1 << 10)
    /// `climb` and `climbDerived`.
    public static let climb = RecordFields(rawValue: 1 << 11)
    public static let magneticVariation = RecordFields(rawValue: 1 << 12)
    public static let heading = RecordFields(rawValue: 1 << 13)
    public static let dop = RecordFields(rawValue: 1 << 14)
    public static let errors = RecordFields(rawValue: 1 << 15)
    public static let noise = RecordFields(rawValue: 1 << 16)
    public static let satellitesUsed = RecordFields(rawValue: 1 << 17)
    public static let satellitesInView = RecordFields(rawValue: 1 << 18)
    /// The list of satellites in view, the bulk of a record (about 4 KB an epoch with four
    /// constellations).
    public static let satellites = RecordFields(rawValue: 1 << 19)
    public static let sentences = RecordFields(rawValue: 1 << 20)

    public static let all = RecordFields(rawValue: (1 << 21) - 1)

    /// Each member's name in the record, in the record's order.
    public static let names: [(name: String, field: RecordFields)] = [
        ("time", .time), ("timeOfDay", .timeOfDay), ("mode", .mode), ("status", .status),
        ("latitude", .latitude), ("longitude", .longitude), ("altitudeMSL", .altitudeMSL),
        ("altitudeHAE", .altitudeHAE), ("geoidSeparation", .geoidSeparation), ("speed", .speed),
        ("course", .course), ("climb", .climb), ("magneticVariation", .magneticVariation),
        ("heading", .heading), ("dop", .dop), ("errors", .errors), ("noise", .noise),
        ("satellitesUsed", .satellitesUsed), ("satellitesInView", .satellitesInView),
        ("satellites", .satellites), ("sentences", .sentences),
    ]

    /// The fields a comma-separated list names; the error names the first unknown one and lists
    /// the known ones.
    public init(parsing list: String) throws(FieldListError) {
        var fields: RecordFields = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = name.trimmingCharacters(in: " ")
            guard let entry = Self.names.first(where: { $0.name == name }) else {
                throw FieldListError(name: name, known: Self.names.map(\.name))
            }
            fields.insert(entry.field)
        }
        self = fields
    }
}

/// The CSV columns of ``FixFormat/csvHeader`` to write, in the order asked.
public struct CSVColumns: Sendable, Hashable {
    /// Indices into ``FixFormat/csvColumnNames``.
    public let indices: [Int]

    public static let all = CSVColumns(indices: Array(FixFormat.csvColumnNames.indices))

    init(indices: [Int]) { self.indices = indices }

    /// The columns a comma-separated list names, in its order.
    public init(parsing list: String) throws(FieldListError) {
        var indices: [Int] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = name.trimmingCharacters(in: " ")
            guard let index = FixFormat.csvColumnNames.firstIndex(of: name) else {
                throw FieldListError(name: name, known: FixFormat.csvColumnNames)
            }
            indices.append(index)
        }
        self.indices = indices
    }

    /// The header line for these columns.
    public var header: String { indices.map { FixFormat.csvColumnNames[$0] }.joined(separator: ",") }
}

/// A field list named a field that does not exist.
public struct FieldListError: Error, CustomStringConvertible, Sendable {
    public let name: String
    public let known: [String]
    public var description: String {
        "'\(name)' is not a field; the fields are: \(known.joined(separator: ", "))"
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
