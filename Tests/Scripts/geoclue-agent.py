#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
# SPDX-License-Identifier: Apache-2.0
"""A GeoClue2 agent (what gnome-shell implements), for gpslocd's tests.

    geoclue-agent.py ADDRESS INTERFACES_DIR AUTHORIZED LEVEL SECONDS

Serves org.freedesktop.GeoClue2.Agent at /org/freedesktop/GeoClue2/Agent as GeoClue's
description declares it, registers with AddAgent, and answers every AuthorizeApp with
(AUTHORIZED, LEVEL), printing each question as JSON."""
import json
import sys

from gi.repository import Gio, GLib

address, directory, authorized, level, seconds = sys.argv[1], sys.argv[2], sys.argv[3] == "true", int(sys.argv[4]), float(sys.argv[5])
flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
with open(f"{directory}/org.freedesktop.GeoClue2.Agent.xml") as file:
    interface = Gio.DBusNodeInfo.new_for_xml(file.read()).lookup_interface("org.freedesktop.GeoClue2.Agent")


def on_call(_bus, sender, _path, _interface, method, parameters, invocation):
    if method == "AuthorizeApp":
        desktop_id, requested = parameters.unpack()
        print(json.dumps({"event": "asked", "desktopId": desktop_id, "level": requested, "sender": sender}), flush=True)
        invocation.return_value(GLib.Variant("(bu)", (authorized, level)))


def on_get(_bus, _sender, _path, _interface, name):
    return GLib.Variant("u", 8) if name == "MaxAccuracyLevel" else None


bus.register_object("/org/freedesktop/GeoClue2/Agent", interface, on_call, on_get, None)
try:
    bus.call_sync("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.GeoClue2.Manager",
                  "AddAgent", GLib.Variant("(s)", ("ocl-test-agent",)), None, 0, -1, None)
    print(json.dumps({"event": "registered"}), flush=True)
except GLib.Error as error:
    print(json.dumps({"event": "refused", "error": error.message}), flush=True)
    sys.exit(0)
loop = GLib.MainLoop()
GLib.timeout_add(int(seconds * 1000), loop.quit)
loop.run()
