#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
# SPDX-License-Identifier: Apache-2.0
"""A GeoClue2 client through Gio.DBusProxy, for gpslocd's tests: prints one JSON object a line.

    geoclue-client.py ADDRESS DESKTOP_ID LEVEL SECONDS [--check-interfaces DIR]

Creates a client, sets its DesktopId and RequestedAccuracyLevel, starts it and prints every
LocationUpdated with the new Location's properties, every change of Active, and the Manager's
properties; with --check-interfaces, first compares each object's introspection and property
types with GeoClue's interface descriptions in DIR."""
import json
import sys

from gi.repository import Gio, GLib

NAME = "org.freedesktop.GeoClue2"
IFACE = "org.freedesktop.GeoClue2."


def say(**fields):
    print(json.dumps(fields), flush=True)


def connect(address):
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def proxy(bus, path, interface):
    return Gio.DBusProxy.new_sync(bus, Gio.DBusProxyFlags.NONE, None, NAME, path, IFACE + interface, None)


def check(bus, path, interface, directory):
    """Differences between an object's interface and GeoClue's description of it."""
    with open(f"{directory}/{IFACE}{interface}.xml") as file:
        reference = Gio.DBusNodeInfo.new_for_xml(file.read()).lookup_interface(IFACE + interface)
    reply = bus.call_sync(NAME, path, "org.freedesktop.DBus.Introspectable", "Introspect", None,
                          GLib.VariantType("(s)"), 0, -1, None)
    served = Gio.DBusNodeInfo.new_for_xml(reply.unpack()[0]).lookup_interface(IFACE + interface)
    problems = []
    if served is None:
        return [f"{path} has no {interface}"]
    for prop in reference.properties:
        mine = served.lookup_property(prop.name)
        if mine is None:
            problems.append(f"{interface}.{prop.name} missing")
            continue
        if mine.signature != prop.signature or mine.flags != prop.flags:
            problems.append(f"{interface}.{prop.name}: {mine.signature}/{mine.flags}, described {prop.signature}/{prop.flags}")
        value = bus.call_sync(NAME, path, "org.freedesktop.DBus.Properties", "Get",
                              GLib.Variant("(ss)", (IFACE + interface, prop.name)), None, 0, -1, None)
        if value.get_child_value(0).get_variant().get_type_string() != prop.signature:
            problems.append(f"{interface}.{prop.name}'s value is not {prop.signature}")
    for method in reference.methods:
        mine = served.lookup_method(method.name)
        if mine is None:
            problems.append(f"{interface}.{method.name}() missing")
            continue
        for direction in ("in_args", "out_args"):
            want = [(a.name, a.signature) for a in getattr(method, direction)]
            have = [(a.name, a.signature) for a in getattr(mine, direction)]
            if want != have:
                problems.append(f"{interface}.{method.name} {direction}: {have}, described {want}")
    for signal in reference.signals:
        mine = served.lookup_signal(signal.name)
        want = [(a.name, a.signature) for a in signal.args]
        if mine is None or [(a.name, a.signature) for a in mine.args] != want:
            problems.append(f"{interface}.{signal.name} signal differs from {want}")
    return problems


def main():
    address, desktop_id, level, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    directory = sys.argv[6] if len(sys.argv) > 6 and sys.argv[5] == "--check-interfaces" else None
    bus = connect(address)
    manager = proxy(bus, "/org/freedesktop/GeoClue2/Manager", "Manager")
    say(event="manager", inUse=manager.get_cached_property("InUse").unpack(),
        available=manager.get_cached_property("AvailableAccuracyLevel").unpack())
    path = manager.call_sync("CreateClient", None, 0, -1, None).unpack()[0]
    say(event="client", path=path)
    client = proxy(bus, path, "Client")
    problems = check(bus, "/org/freedesktop/GeoClue2/Manager", "Manager", directory) if directory else []
    if directory:
        problems += check(bus, path, "Client", directory)
    props = Gio.DBusProxy.new_sync(bus, 0, None, NAME, path, "org.freedesktop.DBus.Properties", None)
    for name, value in (("DesktopId", GLib.Variant("s", desktop_id)),
                        ("RequestedAccuracyLevel", GLib.Variant("u", level))):
        props.call_sync("Set", GLib.Variant("(ssv)", (IFACE + "Client", name, value)), 0, -1, None)
    loop = GLib.MainLoop()
    checked = [False]

    def on_signal(_proxy, _sender, name, parameters):
        if name != "LocationUpdated":
            return
        old, new = parameters.unpack()
        location = proxy(bus, new, "Location")
        values = {key: location.get_cached_property(key).unpack() for key in location.get_cached_property_names()}
        if directory and not checked[0]:
            checked[0] = True
            problems.extend(check(bus, new, "Location", directory))
            say(event="interfaces", problems=problems)
        say(event="location", old=old, new=new, **values)

    def on_changed(_proxy, changed, _invalidated):
        if "Active" in changed.keys():
            say(event="active", value=changed["Active"])

    client.connect("g-signal", on_signal)
    client.connect("g-properties-changed", on_changed)
    try:
        client.call_sync("Start", None, 0, -1, None)
        say(event="started")
    except GLib.Error as error:
        say(event="refused", error=error.message)
        return
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()


main()
