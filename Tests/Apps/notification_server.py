#!/usr/bin/env python3
"""A notification server of the tests' own that follows the Desktop Notifications spec 1.2,
including what no server in Debian 12 does: it sends ActivationToken just before ActionInvoked.

Usage: notification_server.py [--queue]

It owns org.freedesktop.Notifications on the session bus (with --queue: it waits in the bus's queue
for the name, as a process hoping to become the server once the current one leaves, and prints
"owner" once it has it), answers Notify with a new id, and
prints "ready" once it owns the name, then "notified ID SUMMARY" for each Notify. Tests act as the
user through io.waypost.test.NotificationServer.Invoke(id, action, token): like a real server, it
sends ActivationToken(id, token) (when the token is not empty) and ActionInvoked(id, action) to
the connection that posted the notification only, then closes it (NotificationClosed, reason 2).
"""
import sys

import dbus
import dbus.lowlevel
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
IFACE = "org.freedesktop.Notifications"
CONTROL = "io.waypost.test.NotificationServer"


class Server(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.bus = bus
        self.next_id = 1
        self.posted_by = {}

    @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u", sender_keyword="sender")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout, sender=None):
        if replaces_id and replaces_id in self.posted_by:
            notification = int(replaces_id)
        else:
            notification = self.next_id
            self.next_id += 1
        self.posted_by[notification] = sender
        print("notified %d %s" % (notification, summary), flush=True)
        return dbus.UInt32(notification)

    @dbus.service.method(IFACE, in_signature="u", out_signature="")
    def CloseNotification(self, notification):
        if self.posted_by.pop(int(notification), None) is not None:
            print("closed %d" % notification, flush=True)

    @dbus.service.method(IFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body"]

    @dbus.service.method(IFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("waypost-test-server", "waypost", "1", "1.2")

    def emit(self, member, signature, *arguments):
        destination = self.posted_by[arguments[0]]
        message = dbus.lowlevel.SignalMessage(PATH, IFACE, member)
        message.set_destination(destination)
        message.append(*arguments, signature=signature)
        self.bus.send_message(message)

    @dbus.service.method(CONTROL, in_signature="uss", out_signature="")
    def Invoke(self, notification, action, token):
        notification = int(notification)
        if token:
            self.emit("ActivationToken", "us", dbus.UInt32(notification), token)
        self.emit("ActionInvoked", "us", dbus.UInt32(notification), action)
        self.emit("NotificationClosed", "uu", dbus.UInt32(notification), dbus.UInt32(2))
        self.posted_by.pop(notification, None)


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    server = Server(bus)
    queue = "--queue" in sys.argv[1:]
    if queue:
        bus.add_signal_receiver(lambda name: name == NAME and print("owner", flush=True), "NameAcquired", "org.freedesktop.DBus")
    name = dbus.service.BusName(NAME, bus, do_not_queue=not queue)
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    print("ready", flush=True)
    loop.run()
    del name, server


if __name__ == "__main__":
    main()
