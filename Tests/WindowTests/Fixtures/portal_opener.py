#!/usr/bin/python3
"""An app that opens a link the way Chromium and every Flatpak app do: through the OpenURI portal
(org.freedesktop.portal.OpenURI.OpenURI), giving an activation token. Prints the portal's response
code once its Request answers (0: the link was handed on; 1: the user cancelled a chooser; 2: other),
or "error: ..." if the call fails. Exits when the response came, or after 30 s.

usage: portal_opener.py URI TOKEN
"""
import sys

from gi.repository import Gio, GLib

uri, token = sys.argv[1], sys.argv[2]
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
loop = GLib.MainLoop()
# The request's path is known before the call (the portal's documented handle_token scheme), so the
# subscription is in place before the portal can answer.
handle = "waypost_test"
sender = bus.get_unique_name()[1:].replace(".", "_")
path = f"/org/freedesktop/portal/desktop/request/{sender}/{handle}"


def answered(_connection, _sender, _path, _interface, _signal, parameters):
    print(parameters.unpack()[0], flush=True)
    loop.quit()


bus.signal_subscribe("org.freedesktop.portal.Desktop", "org.freedesktop.portal.Request", "Response", path, None,
                     Gio.DBusSignalFlags.NONE, answered)
options = {"handle_token": GLib.Variant("s", handle), "activation_token": GLib.Variant("s", token)}
try:
    bus.call_sync("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.OpenURI",
                  "OpenURI", GLib.Variant("(ssa{sv})", ("", uri, options)), None, Gio.DBusCallFlags.NONE, 30000, None)
except GLib.Error as error:
    print(f"error: {error.message}", flush=True)
    sys.exit(1)
GLib.timeout_add_seconds(30, loop.quit)
loop.run()
