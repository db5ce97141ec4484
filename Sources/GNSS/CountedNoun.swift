// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// `number` with its noun, as a person writes it: "1 record", "0 records", "3 records". The
/// programs' messages count what they found at run time, which is as often one as many.
package func counted(_ number: some BinaryInteger, _ one: String, _ many: String) -> String {
    "\(number) \(number == 1 ? one : many)"
}

/// The verb that agrees with `number` of something: `are` for "3 records are whole", `is` for one.
package func agreeing(_ number: some BinaryInteger, _ one: String, _ many: String) -> String {
    number == 1 ? one : many
}
