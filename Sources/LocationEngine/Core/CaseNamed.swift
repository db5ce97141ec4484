// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// An enum spelt by the names its `description` gives: on the daemon's wire, in the monitors'
/// files and in `gpsloc auth`.
public protocol CaseNamed: CaseIterable, CustomStringConvertible {}

extension CaseNamed {
    /// The case a name (its `description`) stands for; `nil` for a name no case has.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}
