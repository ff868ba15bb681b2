#!/usr/bin/python3
"""Opens a link from inside the Flatpak sandbox, as a sandboxed app does, and prints the answer.

Usage: waypost-flatpak-open dispatcher URI
           io.waypost.Dispatcher1.Open(URI, {}) (the app talks to io.waypost.Dispatcher)
       waypost-flatpak-open portal URI TOKEN
           org.freedesktop.portal.OpenURI.OpenURI("", URI, {"activation_token": TOKEN}), then waits
           for the request's Response (the portal answers once the link was handed on, or the
           user answered its chooser)

Installed as /app/bin/waypost-flatpak-open. Prints one JSON line, {"outcome": {...}},
{"response": N} or {"error": NAME, "message": TEXT}, and exits 0 only on success.
"""
import json
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib


def plain(value):
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (int, float)):
        return value
    return str(value)


def report(record, ok):
    print(json.dumps(record), flush=True)
    sys.exit(0 if ok else 1)


def open_with_dispatcher(bus, uri):
    dispatcher = dbus.Interface(bus.get_object("io.waypost.Dispatcher", "/io/waypost/Dispatcher"), "io.waypost.Dispatcher1")
    outcome = dispatcher.Open(uri, dbus.Dictionary({}, signature="sv"))
    report({"outcome": plain(outcome)}, True)


def open_with_portal(bus, uri, token):
    # The request's path is known before the call (sender and handle token), so the Response
    # cannot arrive before we listen for it.
    handle = "waypost_test"
    sender = bus.get_unique_name()[1:].replace(".", "_")
    path = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender, handle)
    loop = GLib.MainLoop()
    answer = {}

    def on_response(code, results):
        answer["response"] = int(code)
        answer["results"] = plain(results)
        loop.quit()

    bus.add_signal_receiver(on_response, signal_name="Response", dbus_interface="org.freedesktop.portal.Request", path=path)
    portal = dbus.Interface(
        bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop"), "org.freedesktop.portal.OpenURI")
    options = {"handle_token": dbus.String(handle), "activation_token": dbus.String(token)}
    portal.OpenURI("", uri, dbus.Dictionary(options, signature="sv"))
    loop.run()
    report(answer, answer["response"] == 0)


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    try:
        if sys.argv[1] == "dispatcher":
            open_with_dispatcher(bus, sys.argv[2])
        elif sys.argv[1] == "portal":
            open_with_portal(bus, sys.argv[2], sys.argv[3])
        else:
            report({"error": "usage", "message": __doc__}, False)
    except dbus.DBusException as error:
        report({"error": error.get_dbus_name(), "message": error.get_dbus_message()}, False)


if __name__ == "__main__":
    main()
