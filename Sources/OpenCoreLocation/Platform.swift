// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// Core Location re-exports Foundation; so does this module, so that `import OpenCoreLocation`
// alone gives an app `Date`, `NSObject` and the rest, as `import CoreLocation` does.
@_exported import Foundation
// The context an app binds (`LocationContext`) is the hosting module's, part of this API.
@_exported import LocationHosting
