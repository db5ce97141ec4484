#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
# SPDX-License-Identifier: Apache-2.0
"""A bus connection handed on across a fork and an exit, for gpslocd's pid-reuse tests.

    geoclue-handover.py ADDRESS GO_FILE ACTION SECONDS

Connects to the bus (authenticated, Hello said: the bus daemon notes this process's pid as the
connection's), prints {"event": "opened", "pid": P, "name": ":1.N"}, hands the connection to a
fresh python (fork, then exec) and exits, which frees pid P. The heir keeps the connection, waits
until GO_FILE exists (by then the test has given pid P to another program) and on the connection
it was handed does ACTION:

- start: CreateClient, DesktopId, RequestedAccuracyLevel 8, Start, then counts LocationUpdated
  for SECONDS;
- agent: serves org.freedesktop.GeoClue2.Agent, answering yes to every AuthorizeApp, and calls
  AddAgent; then waits SECONDS.

Prints one JSON object a line for each thing that happened, and {"event": "done", ...} last."""
import json
import os
import sys
import time

from gi.repository import Gio, GLib

NAME = "org.freedesktop.GeoClue2"
IFACE = "org.freedesktop.GeoClue2."
MANAGER = "/org/freedesktop/GeoClue2/Manager"
AGENT_XML = """<node><interface name="org.freedesktop.GeoClue2.Agent">
<method name="AuthorizeApp"><arg name="desktop_id" type="s" direction="in"/>
<arg name="req_accuracy_level" type="u" direction="in"/><arg name="authorized" type="b" direction="out"/>
<arg name="allowed_accuracy_level" type="u" direction="out"/></method>
<property name="MaxAccuracyLevel" type="u" access="read"/></interface></node>"""


def say(**fields):
    print(json.dumps(fields), flush=True)


def open_and_hand_on(address, rest):
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    bus = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    descriptor = os.dup(bus.get_stream().get_socket().get_fd())
    os.set_inheritable(descriptor, True)
    say(event="opened", pid=os.getpid(), name=bus.get_unique_name())
    if os.fork() == 0:
        # The heir keeps the connection and standard output only: whatever else the opener was
        # given (the test's watch on its end) closes with the opener.
        os.closerange(3, descriptor)
        os.closerange(descriptor + 1, os.sysconf("SC_OPEN_MAX"))
        # Nor its process group: a pid stays taken while a group or a session has its number.
        os.setsid()
        os.execv(sys.executable, [sys.executable, __file__, "--heir", str(descriptor)] + rest)
    os._exit(0)


def call(bus, path, interface, method, arguments=None, reply=None):
    return bus.call_sync(NAME, path, interface, method, arguments, reply, 0, -1, None)


def start(bus, seconds):
    path = call(bus, MANAGER, IFACE + "Manager", "CreateClient", reply=GLib.VariantType("(o)")).unpack()[0]
    say(event="created", path=path)
    properties = "org.freedesktop.DBus.Properties"
    call(bus, path, properties, "Set", GLib.Variant("(ssv)", (IFACE + "Client", "DesktopId", GLib.Variant("s", "handed-on"))))
    call(bus, path, properties, "Set",
         GLib.Variant("(ssv)", (IFACE + "Client", "RequestedAccuracyLevel", GLib.Variant("u", 8))))
    locations = []
    bus.signal_subscribe(None, IFACE + "Client", "LocationUpdated", path, None, Gio.DBusSignalFlags.NONE,
                         lambda *signal: locations.append(signal[5].unpack()[1]))
    call(bus, path, IFACE + "Client", "Start")
    say(event="started")
    wait(seconds)
    return {"locations": len(locations)}


def agent(bus, seconds):
    asked = []

    def on_call(_bus, _sender, _path, _interface, method, parameters, invocation):
        if method == "AuthorizeApp":
            asked.append(parameters.unpack()[0])
            say(event="asked", desktopId=parameters.unpack()[0])
            invocation.return_value(GLib.Variant("(bu)", (True, 8)))

    interface = Gio.DBusNodeInfo.new_for_xml(AGENT_XML).lookup_interface(IFACE + "Agent")
    bus.register_object("/org/freedesktop/GeoClue2/Agent", interface, on_call,
                        lambda *_: GLib.Variant("u", 8), None)
    call(bus, MANAGER, IFACE + "Manager", "AddAgent", GLib.Variant("(s)", ("handed-on-agent",)))
    say(event="registered")
    wait(seconds)
    return {"asked": len(asked)}


def wait(seconds):
    loop = GLib.MainLoop()
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()


def heir(descriptor, go, action, seconds):
    # No authentication and no Hello: the connection was opened, authenticated and named already.
    stream = Gio.Socket.new_from_fd(descriptor).connection_factory_create_connection()
    bus = Gio.DBusConnection.new_sync(stream, None, Gio.DBusConnectionFlags.NONE, None, None)
    say(event="heir", pid=os.getpid())
    deadline = time.monotonic() + 60
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            say(event="done", error="never told to go")
            return
        time.sleep(0.02)
    try:
        outcome = start(bus, seconds) if action == "start" else agent(bus, seconds)
        say(event="done", **outcome)
    except GLib.Error as error:
        say(event="done", refused=Gio.dbus_error_get_remote_error(error), message=error.message)


if __name__ == "__main__":
    if sys.argv[1] == "--heir":
        heir(int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5]))
    else:
        open_and_hand_on(sys.argv[1], sys.argv[2:])
