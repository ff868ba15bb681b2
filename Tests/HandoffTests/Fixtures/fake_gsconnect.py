#!/usr/bin/python3
"""A process that owns org.gnome.Shell.Extensions.GSConnect without being GSConnect (not gjs), as any
process can where GSConnect is not running: it lists a paired, connected device, which the dispatcher
must neither list nor send to.

Usage: fake_gsconnect.py DEVICE_ID DEVICE_NAME
Serves the object manager at /org/gnome/Shell/Extensions/GSConnect with that device, prints "ready".
"""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.gnome.Shell.Extensions.GSConnect"
PATH = "/org/gnome/Shell/Extensions/GSConnect"


class Manager(dbus.service.Object):
    def __init__(self, bus, device_id, device_name):
        super().__init__(bus, PATH)
        self.device = {"Id": device_id, "Name": device_name, "Type": "desktop",
                       "Paired": dbus.Boolean(True), "Connected": dbus.Boolean(True)}

    @dbus.service.method("org.freedesktop.DBus.ObjectManager", in_signature="", out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        path = PATH + "/Device/" + self.device["Id"].replace("-", "_")
        return {path: {"org.gnome.Shell.Extensions.GSConnect.Device": self.device}}


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    manager = Manager(bus, sys.argv[1], sys.argv[2])  # noqa: F841 (exported while it lives)
    name = dbus.service.BusName(NAME, bus)  # noqa: F841
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
