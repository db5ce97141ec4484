// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import FoundationEssentials
import GNSS
import LocationEngine

/// OwnTracks' JSON (`_type: location`), what OwnTracks' apps, its recorder and most fleet
/// dashboards read from MQTT.
public enum OwnTracks {
    /// A location message; a reduced location carries position, accuracy and time only.
    public static func message(_ location: Location, reduced: Bool, tid: String) -> [UInt8] {
        let line = JSONObjectWriter.object { json in
            json.add("_type", string: "location")
            json.add("tid", string: tid)
            json.add("tst", integer: Int(location.timestamp.timeIntervalSince1970.rounded(.down)))
            json.add("lat", location.coordinate.latitude, decimals: 7)
            json.add("lon", location.coordinate.longitude, decimals: 7)
            json.add("acc", integer: Int(location.horizontalAccuracy.rounded()))
            guard !reduced else { return }
            if location.verticalAccuracy > 0 {
                json.add("alt", integer: Int(location.altitude.rounded()))
                json.add("vac", integer: Int(location.verticalAccuracy.rounded()))
            }
            if location.speed >= 0 { json.add("vel", integer: Int((location.speed * 3.6).rounded())) }
            if location.course >= 0 { json.add("cog", integer: Int(location.course.rounded())) }
        }
        return Array(line.utf8)
    }
}
