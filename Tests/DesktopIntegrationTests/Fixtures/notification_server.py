#!/usr/bin/env python3
"""A stand-in org.freedesktop.Notifications server: appends each Notify call as a JSON line to LOG.

Usage: notification_server.py LOG   (prints "ready" once it owns the name)
"""
import json
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib


class Notifications(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.log = log
        self.next_id = 1

    @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, icon, summary, body, actions, hints, timeout):
        with open(self.log, "a") as f:
            f.write(json.dumps({"app": str(app_name), "summary": str(summary), "body": str(body)}) + "\n")
        self.next_id += 1
        return self.next_id - 1


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    name = dbus.service.BusName("org.freedesktop.Notifications", bus, do_not_queue=True)
    server = Notifications(bus, sys.argv[1])
    print("ready", flush=True)
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    loop.run()


if __name__ == "__main__":
    main()
