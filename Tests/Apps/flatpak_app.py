#!/usr/bin/python3
"""The Flatpak test app's program: sample_app.py as a sandboxed participating app runs it.

Usage: waypost-flatpak-app [URI...]   (the exported entry runs `flatpak run … @@u %u @@`)

Installed as /app/bin/waypost-flatpak-app, with sample_app.py in /app/lib/waypost. Its config is
sample_app.py's, read from $XDG_CONFIG_HOME/waypost-sample.json: inside the sandbox that is
~/.var/app/APP_ID/config, the one host directory the app sees, so a test writes it there (and
points "log" below ~/.var/app/APP_ID too) before the app starts.

What it adds to sample_app.py:
- Like a real app, it opens the links on its own command line: each is logged as a "CommandLine"
  event, so a link handed over both there and over D-Bus shows twice in the log.
- A refused RegisterApplication is logged ("refused", with the error's name and message) and
  printed ("refused NAME"); the process stays on the bus, as an app that goes on running would,
  so a link the dispatcher wrongly sent it would still reach it.
"""
import json
import os
import sys

sys.path.insert(0, "/app/lib/waypost")

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

import sample_app


def main():
    config_path = os.path.join(os.environ["XDG_CONFIG_HOME"], "waypost-sample.json")
    with open(config_path) as f:
        config = json.load(f)
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    app = sample_app.SampleApp(bus, config)
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    for uri in sys.argv[1:]:
        app.log(event="CommandLine", uri=uri)
    try:
        app.start()
    except dbus.DBusException as error:
        app.log(event="refused", error=error.get_dbus_name(), message=error.get_dbus_message())
        print("refused", error.get_dbus_name(), flush=True)
    loop.run()


if __name__ == "__main__":
    main()
