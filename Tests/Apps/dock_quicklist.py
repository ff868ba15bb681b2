#!/usr/bin/python3
"""A dock's side of quicklists, as Dash to Dock reads them: it listens for
com.canonical.Unity.LauncherEntry.Update, reads the menu named by its "quicklist" with libdbusmenu's
client (Dbusmenu.Client), and chooses items as a click does (handle_event "clicked").

usage: dock_quicklist.py [LABEL…]
Prints JSON lines: {"event": "update", "app", "quicklist"} for each Update, {"event": "layout",
"app", "items": [{"label", "type"}]} whenever a menu's layout is read, and {"event": "clicked",
"label"} once it chose the item of each LABEL, as a user's click does, the first time a layout
shows it. Prints "ready" once it listens."""
import json
import sys

import gi

gi.require_version("Dbusmenu", "0.4")
gi.require_version("Gio", "2.0")
from gi.repository import Dbusmenu, Gio, GLib  # noqa: E402

clients = {}
to_click = list(sys.argv[1:])


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
    client.connect("layout-updated", lambda c: on_layout(app, c))
    clients[app] = client


def on_layout(app, client):
    say(event="layout", app=app, items=items_of(client))
    for child in client.get_root().get_children() if client.get_root() else []:
        label = child.property_get("label")
        if label in to_click:
            to_click.remove(label)
            child.handle_event("clicked", GLib.Variant("i", 0), 0)
            say(event="clicked", app=app, label=label)


bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.signal_subscribe(None, "com.canonical.Unity.LauncherEntry", "Update", None, None,
                     Gio.DBusSignalFlags.NONE, on_update)
# The bus handles one connection's messages in order: once this answers, the match rule is in place.
bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
              None, None, Gio.DBusCallFlags.NONE, -1, None)
loop = GLib.MainLoop()
print("ready", flush=True)
loop.run()
