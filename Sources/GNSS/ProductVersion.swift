// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// The release of OpenCoreLocation this build is: what `gpsloc --version` and `gpslocd --version`
/// print, kept here alone. CHANGELOG.md says what each release holds.
public enum ProductVersion {
    public static let current = "0.1.0"
}
