// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import LocationEngine

/// An app's `Info.plist` (XML is read, binary refused) through the manifest reader the daemon and
/// `gpsloc` use.
/// The oracle: no crash; a manifest read is kept or refused, and a refusal says which file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    do {
        let manifest = try Manifest(propertyList: Data(bytes: data, count: count), path: "fuzz.plist")
        _ = manifest.hashValue
    } catch {
        if !error.description.contains("fuzz.plist") { fatalError("a refusal without the file: \(error)") }
    }
    return 0
}
