#!/usr/bin/python3
"""A dock's side of quicklists, as Dash to Dock reads them: it listens for
com.canonical.Unity.LauncherEntry.Update, reads the menu named by its "quicklist" with libdbusmenu's
client (Dbusmenu.Client), and chooses items as a click does (handle_event "clicked").

Prints JSON lines: {"event": "update", "app", "quicklist"} for each Update, {"event": "layout",
"app", "items": [{"label", "type"}]} whenever the menu's layout is read, {"event": "clicked"}.
Reads commands on stdin: "click APP-URI LABEL". Prints "ready" once it listens."""
import json
import sys

import gi

gi.require_version("Dbusmenu", "0.4")
gi.require_version("Gio", "2.0")
from gi.repository import Dbusmenu, Gio, GLib  # noqa: E402

clients = {}


def say(**record):
    print(json.dumps(record), flush=True)


def items_of(client):
    root = client.get_root()
    if root is None:
        return []
    return [{"label": child.property_get("label") or "", "type": child.property_get("type") or "standard"}
            for child in root.get_children()]


def on_update(connection, sender, path, interface, member, parameters):
    app, properties = parameters.unpack()
    quicklist = properties.get("quicklist")
    if quicklist is None:
        return
    say(event="update", app=app, quicklist=quicklist)
    clients.pop(app, None)
    if not quicklist:
        return
    client = Dbusmenu.Client.new(sender, quicklist)
    client.connect("layout-updated", lambda c: say(event="layout", app=app, items=items_of(c)))
    clients[app] = client


def on_command(channel, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    verb, app, label = line.rstrip("\n").split(" ", 2)
    client = clients.get(app)
    found = [child for child in (client.get_root().get_children() if client and client.get_root() else [])
             if child.property_get("label") == label]
    if verb != "click" or not found:
        say(event="error", reason=f"no item {label!r} in {app}'s quicklist")
        return True
    found[0].handle_event("clicked", GLib.Variant("i", 0), 0)
    say(event="clicked", app=app, label=label)
    return True


bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.signal_subscribe(None, "com.canonical.Unity.LauncherEntry", "Update", None, None,
                     Gio.DBusSignalFlags.NONE, on_update)
# The bus handles one connection's messages in order: once this answers, the match rule is in place.
bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
              None, None, Gio.DBusCallFlags.NONE, -1, None)
GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.IO_IN | GLib.IO_HUP, on_command)
loop = GLib.MainLoop()
print("ready", flush=True)
loop.run()
