// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

/// How each of gpslocd's D-Bus services stays on the bus: served until cancelled, and when the
/// bus is lost (dbus-daemon restarted), everything it knew of the bus forgotten and a new
/// connection made every 2 seconds, its failures logged once each.
struct BusServing {
    /// How the log names the service ("GeoClue2", "activity indicator").
    var label: String
    var daemon: Daemon
    /// A new connection, owning the service's name.
    var open: () throws(BusError) -> BusConnection
    /// A failure to connect in words, with what fixes it.
    var explain: (BusError) -> String
    /// The connection now served, for the service's calls to use.
    var adopt: (BusConnection) -> Void
    /// The bus was lost: the service forgets what it knew of it.
    var forget: () -> Void

    /// Serves `first` (the connection `connect()` made), then each new one, until cancelled.
    func run(first: BusConnection?) async {
        var bus = first
        while !Task.isCancelled {
            if let serving = bus {
                adopt(serving)
                let failure = await withTaskCancellationHandler {
                    await serving.runOnThread()
                } onCancel: {
                    serving.stop()
                }
                forget()
                guard let failure else { break }
                daemon.log("\(label): the system bus was lost (\(failure)); connecting again")
            }
            try? await Task.sleep(for: .seconds(2))
            if Task.isCancelled { break }
            do {
                bus = try open()
                daemon.log("\(label): serving on the system bus again")
            } catch {
                bus = nil
                daemon.logOnce("\(label) \(error)", "\(label): \(explain(error))")
            }
        }
    }
}
