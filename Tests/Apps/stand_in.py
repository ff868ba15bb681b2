#!/usr/bin/env python3
"""Owns a bus name and answers every call to it, recording each: a squatter on io.waypost.Dispatcher
(a hostile process that took the dispatcher's name first, forging success), or a stand-in for a
notification server on org.freedesktop.Notifications.

Usage: stand_in.py NAME LOG

Prints "ready" once it owns NAME. Appends one JSON line per method call received to LOG: member and
arguments. Replies as the real service would succeed: Open and the other routing calls with an
outcome, Notify with an id, Status with nothing, anything else with no values.
"""
import json
import sys

import dbus
import dbus.lowlevel
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib


def plain(value):
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (dbus.Array, list, tuple, dbus.Struct)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.String, dbus.ObjectPath, str)):
        return str(value)
    if isinstance(value, (int, float, bool)):
        return value
    return str(value)


def main():
    name, log = sys.argv[1], sys.argv[2]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()

    def answer(connection, message):
        if message.get_type() != dbus.lowlevel.MESSAGE_TYPE_METHOD_CALL or message.get_destination() == "org.freedesktop.DBus":
            return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
        member = message.get_member()
        with open(log, "a") as out:
            out.write(json.dumps({"member": member, "arguments": plain(message.get_args_list())}) + "\n")
        reply = dbus.lowlevel.MethodReturnMessage(message)
        if member in ("Open", "ContinueActivity", "Explain") and message.get_interface() == "io.waypost.Dispatcher1":
            reply.append({"action": "deliver", "app-id": "forged", "rule": "forged"}, signature="a{sv}")
        elif member == "Notify":
            reply.append(dbus.UInt32(1))
        elif member == "Status":
            reply.append([], [], signature="aa{sv}aa{sv}")
        connection.send_message(reply)
        return dbus.lowlevel.HANDLER_RESULT_HANDLED

    bus.add_message_filter(answer)
    if bus.request_name(name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE) != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        print(f"cannot own {name}", file=sys.stderr)
        sys.exit(1)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
