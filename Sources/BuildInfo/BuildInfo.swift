// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import GNSS

/// What `gpsloc --version` and `gpslocd --version` print: the release first (alone, for scripts
/// that want it: `gpsloc --version | cut -d' ' -f1`), then the commit, the day of the build and
/// the Swift version, as `gpsd -V` and `swift --version` users expect.
public enum BuildInfo {
    public static var version: String {
        "\(ProductVersion.current) (commit \(BuildStamp.commit), built \(BuildStamp.day) with Swift \(BuildStamp.swift))"
    }
}
