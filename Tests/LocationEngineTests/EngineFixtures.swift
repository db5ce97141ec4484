// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import LocationEngine

/// What the engine's tests share: an app's manifest with every usage description.
enum EngineFixtures {
    static let manifest = Manifest(
        whenInUseUsageDescription: "Shows where you are on the map.",
        alwaysUsageDescription: "Logs your trips in the background.",
        temporaryUsageDescriptions: ["DirectionsKey": "Turn-by-turn directions need precise location."])
}
