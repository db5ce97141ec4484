// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// Where am I: the first three locations an app is given, with the code it would write on Apple
// platforms, from a receiver or a log named on the command line.
//
//     swift run where-am-i 'file:fixtures/drive-1hz.nmea?speed=max'
//     swift run where-am-i serial:/dev/ttyUSB0
//
// Without gpslocd the rules run in this program: it is the app OPENCORELOCATION_APP names (else
// "where-am-i"), with the Info.plist OPENCORELOCATION_MANIFEST names (examples/Info.plist is
// one); an undetermined app is asked on the terminal. With gpslocd running, it is the daemon's
// client and the receiver is the daemon's.

import GNSSSources
import LocationEngine  // LocationService: the receiver the engine reads
import OpenCoreLocation

let address = CommandLine.arguments.dropFirst().first ?? "file:fixtures/drive-1hz.nmea?speed=max"
let source = try SourceAddress(parsing: address).open()
LocationContext.bootstrap(.fromEnvironment(service: LocationService(source: source)))

var told = 0
for try await update in CLLocationUpdate.liveUpdates() {
    if let location = update.location {
        print(location)
        told += 1
        if told == 3 { break }
    } else if update.authorizationDenied {
        print("not allowed: grant it with gpsloc auth grant, or answer its prompt")
        break
    }
}
