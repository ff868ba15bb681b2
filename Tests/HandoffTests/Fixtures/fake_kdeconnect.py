#!/usr/bin/python3
"""A process that owns org.kde.kdeconnect without being kdeconnectd, as any process can where
kdeconnectd is not running (GNOME with GSConnect): it names a paired device and signals shares "from"
it, which the dispatcher must not believe.

Usage: fake_kdeconnect.py DEVICE_ID DEVICE_NAME
Owns the name, serves /modules/kdeconnect (devices) and /modules/kdeconnect/devices/DEVICE_ID (its
name, type and reachability as properties), prints "ready"; io.waypost.test.FakeKDEConnect.Share(url)
on /modules/kdeconnect emits shareReceived(url) on the device's share object, as kdeconnectd does.
"""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.kde.kdeconnect"


class Daemon(dbus.service.Object):
    def __init__(self, bus, device_id):
        super().__init__(bus, "/modules/kdeconnect")
        self.device_id = device_id

    @dbus.service.method("org.kde.kdeconnect.daemon", in_signature="bb", out_signature="as")
    def devices(self, only_reachable, only_paired):
        return [self.device_id]

    @dbus.service.method("io.waypost.test.FakeKDEConnect", in_signature="s", out_signature="")
    def Share(self, url):
        self.share.shareReceived(url)


class Device(dbus.service.Object):
    def __init__(self, bus, device_id, name):
        super().__init__(bus, "/modules/kdeconnect/devices/" + device_id)
        self.properties = {"name": name, "type": "desktop", "isReachable": True, "isTrusted": True}

    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.properties[str(name)]


class Share(dbus.service.Object):
    def __init__(self, bus, device_id):
        super().__init__(bus, "/modules/kdeconnect/devices/%s/share" % device_id)

    @dbus.service.signal("org.kde.kdeconnect.device.share", signature="s")
    def shareReceived(self, url):
        pass


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    device_id, name = sys.argv[1], sys.argv[2]
    daemon = Daemon(bus, device_id)
    daemon.share = Share(bus, device_id)
    device = Device(bus, device_id, name)
    owned = dbus.service.BusName(NAME, bus, do_not_queue=True)
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    print("ready", flush=True)
    loop.run()
    del owned, device


if __name__ == "__main__":
    main()
