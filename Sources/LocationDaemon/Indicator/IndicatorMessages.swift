// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import CSDBus
import LocationWire

/// The indicator's values as D-Bus writes them: `Programs` is `a(usssbt)`, one struct per
/// program served now — its uid, its app as gpslocd proved it, the proof, the protocol it is
/// served through (`native`, `gpsd`, `GeoClue2`), whether precisely, and since when
/// (microseconds since 1970).
enum IndicatorMessages {
    static let interface = "org.opencorelocation.Activity1"
    static let path = "/org/opencorelocation/Activity"
    static let programsSignature = "a(usssbt)"

    /// Appends `programs` to `message` as `Programs`' value.
    @discardableResult
    static func append(_ programs: [WireAccess], to message: OpaquePointer) -> Int32 {
        var result = sd_bus_message_open_container(message, type("a"), "(usssbt)")
        for program in programs where result >= 0 {
            result = sd_bus_message_open_container(message, type("r"), "usssbt")
            var uid = program.uid
            if result >= 0 { result = sd_bus_message_append_basic(message, type("u"), &uid) }
            for text in [program.app, program.proof, program.frontEnd.rawValue] where result >= 0 {
                result = text.withCString { sd_bus_message_append_basic(message, type("s"), $0) }
            }
            var precise: Int32 = program.precise == true ? 1 : 0
            if result >= 0 { result = sd_bus_message_append_basic(message, type("b"), &precise) }
            var since = UInt64(max(0, program.time * 1_000_000))
            if result >= 0 { result = sd_bus_message_append_basic(message, type("t"), &since) }
            if result >= 0 { result = sd_bus_message_close_container(message) }
        }
        if result >= 0 { result = sd_bus_message_close_container(message) }
        return result
    }

    /// `PropertiesChanged` of `Programs` and `InUse` with their values for one viewer, sent to
    /// `destination` alone.
    static func emitChanged(_ programs: [WireAccess], on bus: OpaquePointer, to destination: String) -> Int32
    {
        var signal: OpaquePointer?
        var result = sd_bus_message_new_signal(
            bus, &signal, path, "org.freedesktop.DBus.Properties", "PropertiesChanged")
        guard result >= 0, let signal else { return result }
        result = interface.withCString { sd_bus_message_append_basic(signal, type("s"), $0) }
        if result >= 0 { result = sd_bus_message_open_container(signal, type("a"), "{sv}") }
        // Programs.
        if result >= 0 { result = sd_bus_message_open_container(signal, type("e"), "sv") }
        if result >= 0 { result = sd_bus_message_append_basic(signal, type("s"), "Programs") }
        if result >= 0 { result = sd_bus_message_open_container(signal, type("v"), programsSignature) }
        if result >= 0 { result = append(programs, to: signal) }
        if result >= 0 { result = sd_bus_message_close_container(signal) }
        if result >= 0 { result = sd_bus_message_close_container(signal) }
        // InUse.
        if result >= 0 { result = sd_bus_message_open_container(signal, type("e"), "sv") }
        if result >= 0 { result = sd_bus_message_append_basic(signal, type("s"), "InUse") }
        if result >= 0 { result = sd_bus_message_open_container(signal, type("v"), "b") }
        var inUse: Int32 = programs.isEmpty ? 0 : 1
        if result >= 0 { result = sd_bus_message_append_basic(signal, type("b"), &inUse) }
        if result >= 0 { result = sd_bus_message_close_container(signal) }
        if result >= 0 { result = sd_bus_message_close_container(signal) }
        if result >= 0 { result = sd_bus_message_close_container(signal) }
        // No property invalidated without its value.
        if result >= 0 { result = sd_bus_message_open_container(signal, type("a"), "s") }
        if result >= 0 { result = sd_bus_message_close_container(signal) }
        guard result >= 0 else {
            sd_bus_message_unref(signal)
            return result
        }
        return ocl_bus_send_to(bus, signal, destination)
    }

    private static func type(_ letter: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: letter)) }
}
